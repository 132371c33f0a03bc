// Read, Edit and Write in a real agent loop of @muster/query, answered by @muster/scripted-model
// (a TEST DOUBLE of the Messages API) through the real SDK: hostile calls come back to the model
// as is_error results and change nothing; the loop goes on.
import { mkdir, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import { createAgent, createModelClient } from '@muster/query';
import { createScriptedFetch, reply, sequence, text, toolUse } from '@muster/scripted-model';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { createFileTools } from './file-tools.js';

describe('file tools in an agent loop (scripted model)', () => {
  it('reads and edits a file; a write outside the roots and a write of an unread file come back as errors', async () => {
    const base = await realpath(await makeTempDirectory('muster-file-tools-agent-'));
    const project = path.join(base, 'project');
    await mkdir(path.join(project, 'src'), { recursive: true });
    await mkdir(path.join(base, 'outside'));
    await writeFile(path.join(project, 'src', 'app.ts'), 'export const answer = 1;\n');
    await writeFile(path.join(project, 'config.json'), '{ "keep": true }\n');

    const script = sequence([
      toolUse('Read', { file_path: 'app.ts' }, 'toolu_read'),
      reply({
        content: [
          {
            type: 'tool_use',
            id: 'toolu_edit',
            name: 'Edit',
            input: { file_path: 'app.ts', old_string: 'answer = 1', new_string: 'answer = 42' },
          },
          {
            type: 'tool_use',
            id: 'toolu_escape',
            name: 'Write',
            input: { file_path: '../../outside/pwned.txt', content: 'pwned' },
          },
          {
            type: 'tool_use',
            id: 'toolu_unread',
            name: 'Write',
            input: { file_path: '../config.json', content: '{}' },
          },
        ],
      }),
      text('Done.'),
    ]);
    const files = createFileTools();
    const agent = createAgent({
      client: createModelClient({
        apiKey: 'sk-test-file-tools-0123456789',
        baseURL: 'http://scripted-model.invalid',
        fetch: createScriptedFetch({ script }),
        retryBaseMs: 1,
      }),
      model: 'claude-test-model',
      identity: { name: 'editor', id: 'editor@test' },
      system: 'Scripted test agent.',
      tools: [files.read, files.write, files.edit],
      cwd: path.join(project, 'src'),
      roots: () => ({ read: [project], write: [project] }),
      authorize: async () => ({ behavior: 'allow' }),
      environment: {},
    });
    try {
      const result = await agent.send('Change the answer to 42.').result;
      expect(result.reason).toBe('completed');

      const results = new Map<string, Anthropic.ToolResultBlockParam>();
      for (const message of agent.messages()) {
        if (message.role !== 'user' || typeof message.content === 'string') continue;
        for (const block of message.content)
          if (block.type === 'tool_result') results.set(block.tool_use_id, block);
      }
      const textOf = (id: string) => JSON.stringify(results.get(id)?.content);
      expect(results.get('toolu_read')?.is_error).toBeFalsy();
      expect(textOf('toolu_read')).toContain('export const answer = 1;');
      expect(results.get('toolu_edit')?.is_error).toBeFalsy();
      expect(textOf('toolu_edit')).toContain('has been updated successfully');
      expect(results.get('toolu_escape')?.is_error).toBe(true);
      expect(textOf('toolu_escape')).toContain('outside the directories this agent may write');
      expect(results.get('toolu_unread')?.is_error).toBe(true);
      expect(textOf('toolu_unread')).toContain('has not read it');

      expect(await readFile(path.join(project, 'src', 'app.ts'), 'utf8')).toBe(
        'export const answer = 42;\n',
      );
      expect(await readFile(path.join(project, 'config.json'), 'utf8')).toBe('{ "keep": true }\n');
      expect(await readdir(path.join(base, 'outside'))).toEqual([]);
    } finally {
      await agent.close();
    }
  });
});
