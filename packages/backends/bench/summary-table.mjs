// Builds the one summary table `bench/run.mjs` ends with: per backend, spawn → running and
// spawn → ready (p50 / p95), members left 5 s after a lead SIGKILL, dead-member detection and
// growth over spawn/kill cycles, each beside its goal (R17, R22, R31, R33 of issue 15).
// Not a bench itself: run.mjs imports it.
//
// Each bench may put `summary: [{ backend, spawnToRunningMs: { n, p50, p95 }, spawnToReadyMs,
// orphansAfterLeadKill: { watched, survivors }, deadDetectionMs: { n, p50, p95 },
// cycles: { cycles, fdGrowth, zombies, panesLeft, listenerGrowth, resourceGrowth } }]` in its
// `--json` object (every field optional). For a bench that does not (yet), FIGURE_READERS below
// reads the fields it prints today; either way the row says which bench each figure came from.

/** R17 spawn → running p95 targets (ms); a backend without one shows its figure only. */
export const RUNNING_P95_GOAL_MS = { 'in-process': 5, pty: 15, child: 15, tmux: 40 };
/** R22 / issue 15: a dead member is noticed within 2 s. */
export const DETECTION_GOAL_MS = 2_000;

const stat = (value) =>
  value && typeof value.p50 === 'number' && typeof value.p95 === 'number'
    ? { n: value.n, p50: value.p50, p95: value.p95 }
    : undefined;

/** Today's fields of benches that do not emit `summary` themselves, by file name. */
const FIGURE_READERS = {
  'tmux.mjs': (figures) => [
    {
      backend: 'tmux',
      spawnToRunningMs: stat(figures.spawnToRunningMs),
      spawnToReadyMs: stat(figures.spawnToReadyMs),
      deadDetectionMs: stat(figures.vanishedDetectionMs),
      orphansAfterLeadKill:
        figures.leadSigkill && typeof figures.leadSigkill.survivorsAfter5s === 'number'
          ? {
              watched: figures.leadSigkill.watched,
              survivors: figures.leadSigkill.survivorsAfter5s,
            }
          : undefined,
      cycles: figures.cycles && {
        cycles: figures.cycles.cycles,
        fdGrowth: figures.cycles.leadFdGrowth,
        zombies: figures.cycles.zombies,
        panesLeft: figures.cycles.panesLeft,
        listenerGrowth: Array.isArray(figures.cycles.listenerGrowth)
          ? figures.cycles.listenerGrowth.reduce((total, growth) => total + growth, 0)
          : figures.cycles.listenerGrowth,
      },
    },
  ],
  'pty.mjs': (figures) => [
    {
      backend: 'pty',
      spawnToRunningMs: stat(figures.spawnToRunningMs),
      spawnToReadyMs: stat(figures.spawnToReadyMs),
      cycles: figures.hygiene && {
        cycles: figures.hygiene.cycles,
        fdGrowth: figures.hygiene.leadDescriptorGrowth + figures.hygiene.hostDescriptorGrowth,
        zombies: figures.hygiene.zombies,
      },
    },
  ],
  'iterm.mjs': (figures) => [
    {
      backend: 'iterm2 (stand-in)',
      spawnToRunningMs: stat(figures.runningMs),
      spawnToReadyMs: stat(figures.readyMs),
      cycles:
        typeof figures.leadFdsGrowth === 'number'
          ? { cycles: figures.n, fdGrowth: figures.leadFdsGrowth, panesLeft: figures.sessionsLeft }
          : undefined,
    },
  ],
  'lead-link.mjs': (figures) => [
    {
      backend: 'child',
      spawnToReadyMs: stat(figures.spawnToReadyMs),
      orphansAfterLeadKill:
        typeof figures.leadGoneSurvivors === 'number'
          ? { survivors: figures.leadGoneSurvivors }
          : undefined,
    },
  ],
};

/** The summary entries of one bench's figures (its own `summary`, else read from its fields). */
export function summaryEntries(name, figures) {
  if (figures === undefined) return [];
  if (Array.isArray(figures.summary)) return figures.summary;
  return FIGURE_READERS[name]?.(figures) ?? [];
}

const FIELDS = [
  'spawnToRunningMs',
  'spawnToReadyMs',
  'orphansAfterLeadKill',
  'deadDetectionMs',
  'cycles',
];

/** Merges entries per backend, in bench order: the first bench to give a field wins. */
export function mergeByBackend(results) {
  const rows = new Map();
  for (const { name, figures } of results) {
    for (const entry of summaryEntries(name, figures)) {
      if (typeof entry?.backend !== 'string') continue;
      const row = rows.get(entry.backend) ?? { backend: entry.backend, sources: {} };
      for (const field of FIELDS) {
        if (entry[field] === undefined || row[field] !== undefined) continue;
        row[field] = entry[field];
        row.sources[field] = name;
      }
      rows.set(entry.backend, row);
    }
  }
  return [...rows.values()];
}

const round = (value) =>
  value >= 100 ? String(Math.round(value)) : String(Math.round(value * 10) / 10);
const verdict = (met) => (met ? 'ok' : 'MISSED');

function latencyCell(value, goal) {
  if (value === undefined) return 'not measured';
  const text = `${round(value.p50)} / ${round(value.p95)}`;
  return goal === undefined ? text : `${text} ${verdict(value.p95 <= goal)}`;
}

function orphanCell(value) {
  if (value === undefined) return 'not measured';
  const of = typeof value.watched === 'number' ? ` of ${value.watched}` : '';
  return `${value.survivors}${of} ${verdict(value.survivors === 0)}`;
}

function cyclesCell(value) {
  if (value === undefined) return 'not measured';
  const parts = [
    ['fds', value.fdGrowth],
    ['zombies', value.zombies],
    ['panes', value.panesLeft],
    ['listeners', value.listenerGrowth],
    ['resources', value.resourceGrowth],
  ].filter(([, figure]) => typeof figure === 'number');
  const grew = parts.some(([, figure]) => figure > 0);
  const text = parts.map(([label, figure]) => `${label} ${figure > 0 ? '+' : ''}${figure}`);
  return `${value.cycles ?? '?'}×: ${text.join(', ')} ${verdict(!grew)}`;
}

/** The table as Markdown lines (header, goal row, one row per backend). */
export function summaryTable(rows) {
  const header = [
    'backend',
    'spawn → running p50 / p95 ms',
    'spawn → ready p50 / p95 ms',
    'left 5 s after lead SIGKILL',
    'dead member noticed p50 / p95 ms',
    'growth over spawn/kill cycles',
  ];
  const goals = [
    'goal',
    'p95 ≤ 5 in-process, 15 pty/child, 40 tmux (R17)',
    'reported (R17)',
    '0 (R31)',
    `p95 ≤ ${DETECTION_GOAL_MS} (R22)`,
    'no growth (R33)',
  ];
  const lines = [header, goals].map((cells) => `| ${cells.join(' | ')} |`);
  lines.splice(1, 0, `|${header.map(() => '---').join('|')}|`);
  for (const row of rows) {
    const cells = [
      row.backend,
      latencyCell(row.spawnToRunningMs, RUNNING_P95_GOAL_MS[row.backend]),
      latencyCell(row.spawnToReadyMs, undefined),
      orphanCell(row.orphansAfterLeadKill),
      latencyCell(row.deadDetectionMs, DETECTION_GOAL_MS),
      cyclesCell(row.cycles),
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines;
}
