import path from 'node:path';
import { CliError } from '../cli-error.js';
import { printJson, printLine, type CommandContext } from '../context.js';
import type { DoctorReport, Finding } from '../doctor/doctor-types.js';
import { runDoctor } from '../doctor/run-doctor.js';
import { loadValidator } from '../doctor/load-validator.js';
import { EXIT_FAILURE } from '../exit-codes.js';
import { paint, symbol, type TerminalStyle } from '../terminal-style.js';
import { escapeTerminalText } from '../terminal-text.js';

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * The doctor's report as text: findings grouped by file, then what --fix did. File names
 * and messages (which quote names and values from the files) are escaped for the terminal.
 */
export function formatDoctorReport(report: DoctorReport, style: TerminalStyle): string {
  const lines: string[] = [];
  const relative = (file: string) => escapeTerminalText(path.relative(report.root, file) || '.');
  const problems = report.findings.filter((finding) => finding.severity === 'problem');
  const warnings = report.findings.filter((finding) => finding.severity === 'warning');
  lines.push(
    `muster doctor: ${escapeTerminalText(report.root)} (${plural(report.teams.length, 'team')}, ${plural(report.filesChecked, 'file')} checked with the ${report.validator})`,
  );
  if (report.repairs.length > 0) {
    lines.push('', paint(style, 'bold', 'Repairs:'));
    for (const repair of report.repairs) {
      const mark = repair.repaired
        ? paint(style, 'green', symbol(style, 'ok'))
        : paint(style, 'yellow', symbol(style, 'warning'));
      lines.push(`${mark} ${relative(repair.file)}: ${escapeTerminalText(repair.message)}`);
    }
  }
  const byFile = new Map<string, Finding[]>();
  for (const finding of report.findings) {
    byFile.set(finding.file, [...(byFile.get(finding.file) ?? []), finding]);
  }
  if (byFile.size > 0) lines.push('');
  for (const [file, findings] of byFile) {
    const worst = findings.some((finding) => finding.severity === 'problem')
      ? 'problem'
      : findings.some((finding) => finding.severity === 'warning')
        ? 'warning'
        : 'note';
    const mark =
      worst === 'problem'
        ? paint(style, 'red', symbol(style, 'problem'))
        : worst === 'warning'
          ? paint(style, 'yellow', symbol(style, 'warning'))
          : paint(style, 'cyan', symbol(style, 'note'));
    lines.push(`${mark} ${paint(style, 'bold', relative(file))}`);
    for (const finding of findings) {
      const label =
        finding.severity === 'problem' ? finding.code : `${finding.code} (${finding.severity})`;
      lines.push(`    ${paint(style, 'dim', label)} ${escapeTerminalText(finding.message)}`);
    }
  }
  lines.push('');
  if (problems.length === 0) {
    lines.push(
      `${paint(style, 'green', symbol(style, 'ok'))} No problems${warnings.length ? ` (${plural(warnings.length, 'warning')})` : ''}.`,
    );
  } else {
    const fixable = problems.filter((finding) => finding.repair !== undefined).length;
    lines.push(
      `${paint(style, 'red', symbol(style, 'problem'))} ${plural(problems.length, 'problem')}${warnings.length ? `, ${plural(warnings.length, 'warning')}` : ''}.` +
        (fixable > 0 ? ` muster doctor --fix can repair ${fixable} of them.` : ''),
    );
  }
  return lines.join('\n');
}

/** `muster doctor [--fix]`: exit 0 only when nothing is wrong. */
export async function doctorCommand(context: CommandContext, options: { fix?: boolean }) {
  if (context.requestedTeamSource === '--team') {
    throw new CliError({
      code: 'USAGE',
      message:
        `muster doctor checks every team under the root; it has no --team. Drop --team ` +
        `"${context.requestedTeam ?? ''}", and choose the folder with --root instead.`,
      details: { team: context.requestedTeam },
    });
  }
  const validator = await loadValidator();
  const report = await runDoctor({ root: context.root, validator, fix: options.fix === true });
  if (context.json) {
    printJson(context, {
      ...report,
      ok: !report.findings.some((finding) => finding.severity === 'problem'),
    });
  } else {
    printLine(context, formatDoctorReport(report, context.style));
  }
  return report.findings.some((finding) => finding.severity === 'problem') ? EXIT_FAILURE : 0;
}
