/**
 * The words and files of the `demo-team` script: the throwaway repository it works on, the
 * lead's prompt, the team, the tasks, and the code, tests and docs the teammates write.
 */

/** The team the demo lead creates. */
export const DEMO_TEAM_NAME = 'slugify-team';

/** The implementer (default permission mode): claims the implementation task, runs `npm test`. */
export const DEMO_IMPLEMENTER = 'alice';

/** The plan-mode teammate: plans (rejected once), then writes the tests and the docs. */
export const DEMO_TESTER = 'bob';

/** The read-only reviewer (agent type Explore): reviews src/slugify.js once alice reports. */
export const DEMO_REVIEWER = 'carol';

/** Every teammate the demo lead spawns, in spawn order. */
export const DEMO_TEAMMATES = [DEMO_IMPLEMENTER, DEMO_TESTER, DEMO_REVIEWER] as const;

/**
 * What marks the first reply of every demo agent (and every reply of a teammate answering a
 * person): the replies come from a script, not a model.
 */
export const DEMO_SCRIPT_LABEL = '[scripted demo: @muster/scripted-model, not a model]';

/**
 * The permission rules the demo runs under: bob's `node --test`, and edits inside the project's
 * `src/`, `test/` and README.md. What is left to ask is alice's `npm test` (and bob's plan).
 */
export const DEMO_TEAM_PERMISSION_RULES: readonly string[] = Object.freeze([
  'Bash(node --test:*)',
  'Edit(src/**)',
  'Edit(test/**)',
  'Edit(README.md)',
  // alice's src/ in her worktree, as the lead judges a process teammate's asks (paths from the
  // lead's folder); an in-process alice's own rules read src/** from her worktree already.
  'Edit(.muster/worktrees/agents/*/src/**)',
  // alice commits her work on her worktree's branch; the lead merges it into the main checkout.
  'Bash(git add:*)',
  'Bash(git commit:*)',
  'Bash(git merge:*)',
]);

/** The prompt to give the demo lead (`claude -p "<this>"` or muster's run). */
export const DEMO_TEAM_PROMPT =
  'Add a slugify(text) function to this repository, with tests and documentation. Use a team of three teammates.';

/**
 * The throwaway repository the demo expects in its working directory (path → content): an
 * ES module package with `capitalize`, its test and a README. `npm test` runs `node --test`.
 */
export const DEMO_TEAM_REPOSITORY: Readonly<Record<string, string>> = Object.freeze({
  'package.json': `${JSON.stringify(
    {
      name: 'demo-strings',
      version: '1.0.0',
      private: true,
      type: 'module',
      scripts: { test: 'node --test' },
    },
    null,
    2,
  )}\n`,
  'src/index.js': "export { capitalize } from './capitalize.js';\n",
  'src/capitalize.js':
    '/** Upper-cases the first character of text. */\nexport function capitalize(text) {\n  return text.charAt(0).toUpperCase() + text.slice(1);\n}\n',
  'test/capitalize.test.js':
    "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { capitalize } from '../src/index.js';\n\ntest('capitalize upper-cases the first letter', () => {\n  assert.equal(capitalize('hello'), 'Hello');\n});\n",
  'README.md':
    '# demo-strings\n\nSmall string helpers.\n\n## API\n\n- `capitalize(text)`: upper-cases the first character.\n',
  '.claude/agents/implementer.md': [
    '---',
    'name: implementer',
    'description: Implements a change in a git worktree of its own, commits it on its branch and asks team-lead to merge it.',
    'isolation: worktree',
    '---',
    'You implement one task in your own git worktree (your working directory). Run the tests there, commit your work on your branch, and ask team-lead to merge the branch into the main checkout before you report the task done.',
    '',
  ].join('\n'),
});

/**
 * The agent type alice is spawned as when the lead is offered it (the repository's
 * `.claude/agents/implementer.md`, `isolation: worktree`): she then works in a git worktree of
 * her own, commits there and asks the lead to merge her branch.
 */
export const DEMO_IMPLEMENTER_AGENT_TYPE = 'implementer';

/** How alice's message asking the lead to merge her branch starts (the branch follows). */
export const DEMO_MERGE_REQUEST = 'Please merge branch';

/** How the lead's answer to alice starts once her branch is merged (the branch follows). */
export const DEMO_MERGED = 'Merged branch';

/** The four tasks the lead creates, in order (every later one is blocked by the first). */
export const DEMO_TASKS = [
  {
    key: 'implement',
    subject: 'Implement slugify()',
    description: 'Add slugify(text) in src/slugify.js and export it from src/index.js.',
    activeForm: 'Implementing slugify()',
  },
  {
    key: 'tests',
    subject: 'Write tests for slugify()',
    description:
      'Add test/slugify.test.js covering words, punctuation, accents and the empty string; npm test must pass.',
    activeForm: 'Writing tests for slugify()',
  },
  {
    key: 'docs',
    subject: 'Document slugify() in README.md',
    description: 'Add slugify(text) to the API list in README.md.',
    activeForm: 'Documenting slugify()',
  },
  {
    key: 'review',
    subject: 'Review slugify()',
    description:
      'Read src/slugify.js once it is written (read-only) and send team-lead a short review.',
    activeForm: 'Reviewing slugify()',
  },
] as const;

/** The implementation alice writes to src/slugify.js. */
export const SLUGIFY_SOURCE = `/**
 * Turns text into a URL slug: lower case, accents removed, every run of other characters
 * replaced by one hyphen, and no hyphen at either end.
 */
export function slugify(text) {
  return String(text)
    .normalize('NFKD')
    .replace(/[\\u0300-\\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
`;

/** The line alice adds to src/index.js. */
export const SLUGIFY_EXPORT = "export { slugify } from './slugify.js';";

/** The tests bob writes to test/slugify.test.js. */
export const SLUGIFY_TESTS = `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slugify } from '../src/index.js';

test('slugify lowers case and joins words with one hyphen', () => {
  assert.equal(slugify('Hello   World'), 'hello-world');
});

test('slugify drops punctuation and accents', () => {
  assert.equal(slugify('Crème brûlée, s’il vous plaît!'), 'creme-brulee-s-il-vous-plait');
});

test('slugify of an empty string is an empty string', () => {
  assert.equal(slugify(''), '');
});
`;

/** The line bob adds to README.md's API list. */
export const SLUGIFY_DOCS =
  '- `slugify(text)`: a URL slug of text: lower case, accents removed, other characters joined by single hyphens (`slugify("Crème brûlée!")` is `"creme-brulee"`).';

/** Bob's first plan (the lead rejects it once). */
export const PLAN_FIRST = `# Plan: tests and docs for slugify()

1. Wait for alice to finish slugify() (task blocked by the implementation).
2. Write test/slugify.test.js: words joined by hyphens, punctuation dropped.
3. Run the tests with \`node --test\`.
4. Add slugify(text) to the API list in README.md.
`;

/** The feedback the lead gives when it rejects the first plan. */
export const PLAN_FEEDBACK =
  'Please also cover accented letters and the empty string in the tests.';

/** Bob's revised plan, answering the feedback. */
export const PLAN_REVISED = `# Plan: tests and docs for slugify() (revised)

1. Wait for alice to finish slugify() (task blocked by the implementation).
2. Write test/slugify.test.js: words joined by one hyphen, punctuation dropped,
   accented letters folded ("Crème brûlée" → "creme-brulee"), and the empty string.
3. Run the tests with \`node --test\`.
4. Add slugify(text) to the API list in README.md.
`;

/** carol's review of src/slugify.js, sent to team-lead. */
export const SLUGIFY_REVIEW =
  'Review of src/slugify.js: looks good to merge. It folds accents (NFKD, then drops the combining marks), lower-cases, turns every run of other characters into one hyphen and trims hyphens at both ends; String(text) keeps a number or null from throwing. One note for later: letters NFKD does not split (ß, ø, æ) become hyphens, so "Straße" gives "stra-e".';

/** The spawn prompt of the implementer (the teammate reads its name and task id from it). */
export function implementerPrompt(
  taskId: string,
  workingDirectory: string | undefined,
  inWorktree = false,
): string {
  return [
    `You are ${DEMO_IMPLEMENTER}, the implementer on team ${DEMO_TEAM_NAME}.`,
    `Your task: #${taskId} ${DEMO_TASKS[0].subject}: ${DEMO_TASKS[0].description}`,
    workingDirectory ? `The repository is at ${workingDirectory}.` : undefined,
    inWorktree
      ? 'You work in a git worktree of your own: commit your work on its branch and ask team-lead to merge the branch before you mark the task completed.'
      : undefined,
    `Claim the task, run the tests with npm test, mark it completed, then tell ${DEMO_TESTER} (tests and docs), ${DEMO_REVIEWER} (review) and team-lead.`,
  ]
    .filter((line) => line !== undefined)
    .join('\n');
}

/** The spawn prompt of the plan-mode tester. */
export function testerPrompt(
  testsId: string,
  docsId: string,
  implementId: string,
  workingDirectory: string | undefined,
): string {
  return [
    `You are ${DEMO_TESTER}, on team ${DEMO_TEAM_NAME}, working in plan mode.`,
    `Your tasks: #${testsId} ${DEMO_TASKS[1].subject} and #${docsId} ${DEMO_TASKS[2].subject}.`,
    `Both are blocked by #${implementId}, which ${DEMO_IMPLEMENTER} is implementing.`,
    workingDirectory ? `The repository is at ${workingDirectory}.` : undefined,
    `First send me your plan for approval; start when ${DEMO_IMPLEMENTER} tells you slugify() is ready, and report to team-lead when both tasks are done.`,
  ]
    .filter((line) => line !== undefined)
    .join('\n');
}

/** The spawn prompt of the read-only reviewer. */
export function reviewerPrompt(
  reviewId: string,
  implementId: string,
  workingDirectory: string | undefined,
): string {
  return [
    `You are ${DEMO_REVIEWER}, the read-only reviewer on team ${DEMO_TEAM_NAME}.`,
    `Your task: #${reviewId} ${DEMO_TASKS[3].subject}: ${DEMO_TASKS[3].description}`,
    `It is blocked by #${implementId}, which ${DEMO_IMPLEMENTER} is implementing.`,
    workingDirectory ? `The repository is at ${workingDirectory}.` : undefined,
    `Wait until ${DEMO_IMPLEMENTER} tells you slugify() is ready; then claim the task, read src/slugify.js, mark the task completed and send team-lead your review. Change nothing.`,
  ]
    .filter((line) => line !== undefined)
    .join('\n');
}
