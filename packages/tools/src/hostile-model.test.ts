// End to end: model output is hostile input. A real agent (the @muster/query loop, the real
// @anthropic-ai/sdk, muster's built-in tools and @muster/permissions) is driven by
// @muster/scripted-model — a TEST DOUBLE playing a model that tries what a steered or broken
// model would. Each attempt must come back to the model as a clear error result, and nothing
// may be written or left running that should not be.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { fault, sequence, text, toolResults, toolUse } from '@muster/scripted-model';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import {
  eventually,
  killProcessesWith,
  processesWith,
  uniqueSleepSeconds,
} from './bash-tool-test-processes.js';
import { openScriptedToolAgent, toolCallEnds } from './scripted-agent-test-support.js';

/** A working directory two levels below a scratch folder, and that folder. */
async function nestedWorkspace() {
  const scratch = await makeTempDirectory('muster-hostile-');
  const cwd = path.join(scratch, 'team', 'repository');
  mkdirSync(cwd, { recursive: true });
  return { scratch, cwd, transcripts: path.join(scratch, 'transcripts') };
}

/** A script that makes one call and then repeats, as text, what the tool answered. */
function oneCall(name: string, input: Record<string, unknown>) {
  return sequence([
    toolUse(name, input),
    (request) => {
      const [result] = toolResults(request);
      return text(`${result?.isError ? 'ERROR' : 'OK'}: ${result?.content ?? '(no result)'}`);
    },
  ]);
}

describe('hostile model output', () => {
  it.each([
    ['the permission rules', false],
    ["the tool's own guard (everything allowed)", true],
  ])('a Write to ../../outside is refused by %s and writes nothing', async (_, allowEverything) => {
    const { scratch, cwd, transcripts } = await nestedWorkspace();
    const target = path.join(scratch, 'outside', 'pwned.txt');
    const solo = openScriptedToolAgent(
      oneCall('Write', { file_path: '../../outside/pwned.txt', content: 'owned' }),
      { cwd, transcriptDirectory: transcripts, allowEverything },
    );
    try {
      const { result, events } = await solo.run('Write the file.');
      expect(result.reason).toBe('completed');
      const [call] = toolCallEnds(events);
      expect(call).toMatchObject({ name: 'Write', isError: true, allowed: allowEverything });
      expect(result.text).toMatch(/^ERROR: /);
      expect(result.text).toMatch(allowEverything ? /outside/i : /outside|working director/i);
      expect(existsSync(target)).toBe(false);
      expect(existsSync(path.dirname(target))).toBe(false);
    } finally {
      await solo.agent.close();
    }
  });

  it('a Write through a symbolic link that leaves the working directory writes nothing', async () => {
    const { scratch, cwd, transcripts } = await nestedWorkspace();
    const outside = path.join(scratch, 'elsewhere');
    mkdirSync(outside);
    symlinkSync(outside, path.join(cwd, 'docs'));
    const solo = openScriptedToolAgent(
      oneCall('Write', { file_path: path.join(cwd, 'docs', 'notes.md'), content: 'owned' }),
      { cwd, transcriptDirectory: transcripts, allowEverything: true },
    );
    try {
      const { result, events } = await solo.run('Write the notes.');
      expect(toolCallEnds(events)[0]).toMatchObject({ name: 'Write', isError: true });
      expect(result.text).toMatch(/^ERROR: .*(link|outside)/is);
      expect(existsSync(path.join(outside, 'notes.md'))).toBe(false);
    } finally {
      await solo.agent.close();
    }
  });

  it('a Bash command that starts background processes and exits leaves nothing running', async () => {
    const { cwd, transcripts } = await nestedWorkspace();
    const plain = uniqueSleepSeconds();
    const nohup = uniqueSleepSeconds();
    const setsid = uniqueSleepSeconds();
    const command = `sleep ${plain} & nohup sleep ${nohup} >/dev/null 2>&1 & setsid sleep ${setsid} & echo started`;
    const solo = openScriptedToolAgent(oneCall('Bash', { command }), {
      cwd,
      transcriptDirectory: transcripts,
      allowEverything: true,
    });
    try {
      const { result, events } = await solo.run('Start the server.');
      expect(result.reason).toBe('completed');
      expect(toolCallEnds(events)[0]).toMatchObject({ name: 'Bash', allowed: true });
      expect(result.text).toContain('started');
      for (const token of [plain, nohup, setsid]) {
        expect(
          await eventually(() => processesWith(token).length === 0),
          `sleep ${token} is still running`,
        ).toBe(true);
      }
    } finally {
      await solo.agent.close();
      for (const token of [plain, nohup, setsid]) killProcessesWith(token);
    }
  });

  it('a tool input that fails its schema comes back as an error naming the field, and the turn goes on', async () => {
    const { cwd, transcripts } = await nestedWorkspace();
    const solo = openScriptedToolAgent(oneCall('Read', { file_path: 42, everything: true }), {
      cwd,
      transcriptDirectory: transcripts,
    });
    try {
      const { result, events } = await solo.run('Read it.');
      expect(result.reason).toBe('completed');
      expect(toolCallEnds(events)[0]).toMatchObject({
        name: 'Read',
        isError: true,
        allowed: false,
      });
      expect(result.text).toMatch(/^ERROR: /);
      expect(result.text).toContain('file_path');
      expect(result.text).toContain('everything');
    } finally {
      await solo.agent.close();
    }
  });

  it('a Read of a 50 MB file is refused with a short answer that says how to read it in parts', async () => {
    const { cwd, transcripts } = await nestedWorkspace();
    const big = path.join(cwd, 'big.log');
    const handle = await open(big, 'w');
    const line = `${'x'.repeat(99)}\n`.repeat(10_000); // 1 MB
    for (let megabyte = 0; megabyte < 50; megabyte += 1) await handle.write(line);
    await handle.close();
    const solo = openScriptedToolAgent(oneCall('Read', { file_path: big }), {
      cwd,
      transcriptDirectory: transcripts,
    });
    try {
      const { result, events } = await solo.run('Read the log.');
      expect(toolCallEnds(events)[0]).toMatchObject({ name: 'Read', isError: true, allowed: true });
      expect(result.text).toMatch(/^ERROR: /);
      expect(result.text).toMatch(/offset/);
      expect(result.text).toMatch(/limit/);
      expect(result.text.length).toBeLessThan(2_000);
    } finally {
      await solo.agent.close();
    }
  });

  it('an Edit of a file changed since it was read is refused and the other change is kept', async () => {
    const { cwd, transcripts } = await nestedWorkspace();
    const file = path.join(cwd, 'config.txt');
    writeFileSync(file, 'mode = safe\n');
    const solo = openScriptedToolAgent(
      sequence([
        toolUse('Read', { file_path: file }),
        () => {
          // Someone else changes the file between the model's Read and its Edit.
          writeFileSync(file, 'mode = safe\nowner = someone else\n');
          return toolUse('Edit', {
            file_path: file,
            old_string: 'mode = safe',
            new_string: 'mode = unsafe',
          });
        },
        (request) => {
          const [result] = toolResults(request);
          return text(`${result?.isError ? 'ERROR' : 'OK'}: ${result?.content}`);
        },
      ]),
      { cwd, transcriptDirectory: transcripts },
    );
    try {
      const { result, events } = await solo.run('Make it unsafe.');
      expect(toolCallEnds(events).map((call) => [call.name, call.isError])).toEqual([
        ['Read', false],
        ['Edit', true],
      ]);
      expect(result.text).toMatch(/^ERROR: .*(changed|modified)/is);
      expect(result.text).toMatch(/read/i);
      expect(readFileSync(file, 'utf8')).toBe('mode = safe\nowner = someone else\n');
    } finally {
      await solo.agent.close();
    }
  });

  it('a Write cut off at max_tokens is never run, and the next turn goes on', async () => {
    const { cwd, transcripts } = await nestedWorkspace();
    const file = path.join(cwd, 'deploy.sh');
    const solo = openScriptedToolAgent(
      sequence([
        fault(
          'max-tokens-in-tool-use',
          { keepInputBytes: 40 },
          toolUse('Write', { file_path: file, content: 'echo deploy\nrm -rf ./build\n' }),
        ),
        (request) => {
          const [result] = toolResults(request);
          return text(`${result?.isError ? 'ERROR' : 'OK'}: ${result?.content}`);
        },
      ]),
      { cwd, transcriptDirectory: transcripts, allowEverything: true },
    );
    try {
      const first = await solo.run('Write the deploy script.');
      expect(first.result.reason).toBe('max_tokens');
      expect(first.events.filter((event) => event.type === 'truncated_tool_call')).toHaveLength(1);
      expect(toolCallEnds(first.events)).toEqual([]);
      expect(existsSync(file)).toBe(false);

      const second = await solo.run('Go on.');
      expect(second.result.reason).toBe('completed');
      expect(second.result.text).toMatch(/^ERROR: /);
      expect(existsSync(file)).toBe(false);
    } finally {
      await solo.agent.close();
    }
  });
});
