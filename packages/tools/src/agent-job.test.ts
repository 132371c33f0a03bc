// End to end: one real agent (the @muster/query loop, the real @anthropic-ai/sdk, muster's
// built-in tools, @muster/permissions) does a small job in a real git repository. The model is
// @muster/scripted-model, a TEST DOUBLE: the script below plays the model, reading the tool
// results it gets back to decide what to say.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readTranscript } from '@muster/query';
import { reply, sequence, text, toolResults, toolUse } from '@muster/scripted-model';
import { makeGitRepository, makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import {
  openScriptedToolAgent,
  SCRIPTED_API_KEY,
  toolCallEnds,
} from './scripted-agent-test-support.js';

const project = {
  'package.json': `${JSON.stringify({ name: 'calc', type: 'module', scripts: { test: 'node --test' } }, null, 2)}\n`,
  'src/math.js':
    'export function add(a, b) {\n  return a - b;\n}\n\nexport function multiply(a, b) {\n  return a * b;\n}\n',
  'test/math.test.js': [
    "import { test } from 'node:test';",
    "import assert from 'node:assert/strict';",
    "import { add, multiply } from '../src/math.js';",
    '',
    "test('add', () => assert.equal(add(2, 3), 5));",
    "test('multiply', () => assert.equal(multiply(2, 3), 6));",
    '',
  ].join('\n'),
  'README.md': '# calc\n\n## Functions\n\n- `multiply(a, b)`: the product of a and b\n',
};

/** What the scripted model does, step by step; each step reads what the tools answered. */
function jobScript(repository: string) {
  const file = (relative: string) => path.join(repository, relative);
  return sequence([
    reply({
      content: ['I will look at the project first.', toolUse('Glob', { pattern: '**/*.js' })],
    }),
    (request) => {
      const listing = toolResults(request)[0]?.content ?? '';
      if (!listing.includes('src/math.js'))
        return text(`Glob did not list src/math.js: ${listing}`);
      return reply({
        content: [
          toolUse('Read', { file_path: file('src/math.js') }),
          toolUse('Read', { file_path: file('test/math.test.js') }),
          toolUse('Read', { file_path: file('README.md') }),
        ],
      });
    },
    (request) => {
      const source = toolResults(request)[0]?.content ?? '';
      if (!source.includes('return a - b;')) return text(`Unexpected source: ${source}`);
      return reply({
        content: [
          'add() subtracts; fixing it and documenting it.',
          toolUse('Edit', {
            file_path: file('src/math.js'),
            old_string: 'return a - b;',
            new_string: 'return a + b;',
          }),
          toolUse('Edit', {
            file_path: file('README.md'),
            old_string: '- `multiply(a, b)`',
            new_string: '- `add(a, b)`: the sum of a and b\n- `multiply(a, b)`',
          }),
        ],
      });
    },
    toolUse('Bash', { command: 'node --test', description: 'Run the tests' }),
    (request) => {
      const output = toolResults(request)[0]?.content ?? '';
      const passed = /# pass (\d+)/.exec(output)?.[1] ?? '?';
      const failed = /# fail (\d+)/.exec(output)?.[1] ?? '?';
      return text(`Fixed add() and documented it. Tests: ${passed} passed, ${failed} failed.`);
    },
  ]);
}

describe('a single agent does a small job end to end (scripted model, real tools)', () => {
  it('reads the repository, edits two files, runs the tests with Bash and answers', async () => {
    const repository = await makeGitRepository(project);
    const transcriptDirectory = await makeTempDirectory('muster-transcript-');
    const solo = openScriptedToolAgent(jobScript(repository.path), {
      cwd: repository.path,
      transcriptDirectory,
      permissions: { rules: { allow: ['Bash(node --test)'] } },
    });
    try {
      const { result, events } = await solo.run(
        'Fix add() in src/math.js so the tests pass, document add() in README.md, run the tests and report.',
      );

      expect(result.error).toBeUndefined();
      expect(result.reason).toBe('completed');
      expect(result.text).toBe('Fixed add() and documented it. Tests: 2 passed, 0 failed.');
      expect(result.requests).toBe(5);
      expect(result.toolCalls).toBe(7);

      const calls = toolCallEnds(events);
      expect(calls.map((call) => call.name)).toEqual([
        'Glob',
        'Read',
        'Read',
        'Read',
        'Edit',
        'Edit',
        'Bash',
      ]);
      expect(calls.filter((call) => !call.allowed || call.isError)).toEqual([]);

      // The files on disk are what was asked, and nothing else changed.
      expect(readFileSync(path.join(repository.path, 'src/math.js'), 'utf8')).toBe(
        project['src/math.js'].replace('return a - b;', 'return a + b;'),
      );
      expect(readFileSync(path.join(repository.path, 'README.md'), 'utf8')).toBe(
        '# calc\n\n## Functions\n\n- `add(a, b)`: the sum of a and b\n- `multiply(a, b)`: the product of a and b\n',
      );
      const changed = await repository.git('status', '--porcelain', '--untracked-files=all');
      expect(
        changed
          .split('\n')
          .map((line) => line.trim())
          .sort(),
      ).toEqual(['M README.md', 'M src/math.js']);
      execFileSync(process.execPath, ['--test'], { cwd: repository.path, stdio: 'pipe' });

      // The transcript holds the whole conversation, in order, and no API key.
      const transcriptText = readFileSync(solo.transcriptPath, 'utf8');
      expect(transcriptText).not.toContain(SCRIPTED_API_KEY);
      const transcript = readTranscript(solo.transcriptPath);
      expect(transcript.skipped).toEqual([]);
      expect(transcript.messages.map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'user',
        'assistant',
        'user',
        'assistant',
        'user',
        'assistant',
        'user',
        'assistant',
      ]);
      const toolUses = transcript.messages.flatMap((message) =>
        Array.isArray(message.content)
          ? message.content.flatMap((block) => (block.type === 'tool_use' ? [block.name] : []))
          : [],
      );
      expect(toolUses).toEqual(calls.map((call) => call.name));
      const last = transcript.messages.at(-1)!;
      expect(JSON.stringify(last.content)).toContain(result.text);
      expect(transcript.messages).toEqual(solo.agent.messages());
    } finally {
      await solo.agent.close();
    }
  });
});
