// Where a teammate's work comes from besides plain messages: an unclaimed task it takes while
// idle, a lead's message delivered mid-turn at the next tool-result boundary, and its state in
// the runtime sidecar. The model is @muster/scripted-model, a TEST DOUBLE of the Messages API.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { COMPACTION_INSTRUCTION, type Tool } from '@muster/query';
import type { Script } from '@muster/scripted-model';
import { createTaskStore } from '@muster/tasks';
import { readMemberRuntime } from '@muster/teams';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadHooks } from './hooks.js';
import { MAXIMUM_STOP_HOOK_CONTINUATIONS } from './subagent.js';
import {
  createTeammateFixture,
  eventually,
  lastUserText,
  startTeammate,
  waitForLeadMessages,
  stopTeammatesAfterEach,
} from './teammate-test-support.js';

const track = stopTeammatesAfterEach();

describe('runTeammate work sources', () => {
  it('takes an unclaimed task from the list while idle and keeps its state in the sidecar', async () => {
    const fixture = await createTeammateFixture();
    const tasks = createTaskStore({ root: fixture.root, team: fixture.teamName });
    const task = await tasks.create({
      subject: 'Write the docs',
      description: 'Document the greeting module.',
    });
    const seen: string[] = [];
    const teammate = startTeammate(fixture, (request) => {
      seen.push(lastUserText(request));
      return { content: [{ type: 'text', text: 'On it.' }] };
    });
    track(teammate);
    await waitForLeadMessages(fixture, 'idle_notification');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain(`You took task #${task.id}`);
    expect(seen[0]).toContain('Document the greeting module.');
    const claimed = await tasks.get(task.id);
    expect(claimed).toMatchObject({ owner: 'alice', status: 'in_progress' });
    const record = await eventually('the idle state in the sidecar', async () => {
      const runtime = (await readMemberRuntime(fixture.root, fixture.teamName)).alice;
      return runtime?.details?.state === 'idle' ? runtime : undefined;
    });
    expect(record).toMatchObject({ backend: 'in-process', details: { state: 'idle' } });
    // It holds an unfinished task, so it claims no other one.
    await tasks.create({ subject: 'Second task', description: 'More.' });
    await fixture.peer.send('alice', { from: 'bob', text: 'ping' });
    await waitForLeadMessages(fixture, 'idle_notification', 2);
    expect(seen).toHaveLength(2);
    expect(seen[1]).not.toContain('You took task');
  });

  it('reads what already waits in its inbox (its spawn prompt) before taking a task from the list', async () => {
    const fixture = await createTeammateFixture();
    const tasks = createTaskStore({ root: fixture.root, team: fixture.teamName });
    await tasks.create({ subject: 'Write the docs', description: 'Document it.' });
    await fixture.lead.send('alice', {
      from: 'team-lead',
      text: 'Your spawn prompt: review the API.',
    });
    const seen: string[] = [];
    const teammate = startTeammate(fixture, (request) => {
      seen.push(lastUserText(request));
      return { content: [{ type: 'text', text: 'On it.' }] };
    });
    track(teammate);
    await waitForLeadMessages(fixture, 'idle_notification');
    expect(seen[0]).toContain('Your spawn prompt: review the API.');
    expect(seen[0]).not.toContain('You took task');
  });

  it('delivers a lead message at the next tool-result boundary of a running turn', async () => {
    const fixture = await createTeammateFixture();
    const inboxFile = fixture.lead.inboxLocation('alice');
    const slow: Tool<{ step: string }> = {
      name: 'Slow',
      description: 'Takes a while (test tool).',
      inputSchema: z.strictObject({ step: z.string().describe('Which step.') }),
      isReadOnly: () => true,
      isConcurrencySafe: () => false,
      async call() {
        // Runs until the lead's message is in the inbox and the watch had time to see it.
        await eventually('the lead message in the inbox', async () => {
          const text = await readFile(inboxFile, 'utf8').catch(() => '');
          return text.includes('Change of plan') ? true : undefined;
        });
        await new Promise((resolve) => setTimeout(resolve, 300));
        return { content: 'step done' };
      },
    };
    const seen: string[] = [];
    const script: Script = (request) => {
      seen.push(lastUserText(request));
      const messages = (request.body as { messages: unknown[] }).messages;
      return messages.length === 1
        ? { content: [{ type: 'tool_use', name: 'Slow', input: { step: 'one' } }] }
        : { content: [{ type: 'text', text: 'Switched.' }] };
    };
    const teammate = startTeammate(fixture, script, { prompt: 'Start.', tools: [slow] });
    track(teammate);
    await eventually('turn 1 started', () => (seen.length > 0 ? true : undefined));
    await fixture.lead.send('alice', { from: 'team-lead', text: 'Change of plan: stop.' });
    const [idle] = await waitForLeadMessages(fixture, 'idle_notification');
    expect(idle).toBeDefined();
    // Both requests belong to turn 1; the second carries the lead's message.
    expect(seen).toHaveLength(2);
    expect(seen[1]).toContain('<teammate-message teammate_id="team-lead">\nChange of plan: stop.');
    const turnStarts = fixture.events.filter(
      (event) => event.type === 'agent' && event.event.type === 'turn_start',
    );
    expect(turnStarts).toHaveLength(1);
  });

  it('compacts a long conversation keeping its identity, team, lead and task', async () => {
    const fixture = await createTeammateFixture();
    const tasks = createTaskStore({ root: fixture.root, team: fixture.teamName });
    const task = await tasks.create({ subject: 'Write the docs', description: 'All of them.' });
    const seen: string[] = [];
    const script: Script = (request) => {
      const user = lastUserText(request);
      seen.push(user);
      if (user.includes(COMPACTION_INSTRUCTION.slice(0, 40))) {
        return { content: [{ type: 'text', text: 'Summary: alice wrote a long draft.' }] };
      }
      // The first answer is long enough (~10 000 tokens) to push the next request over the threshold.
      return {
        content: [{ type: 'text', text: seen.length === 1 ? 'draft '.repeat(7_000) : 'Done.' }],
      };
    };
    const teammate = startTeammate(fixture, script, { compaction: { thresholdTokens: 6_000 } });
    track(teammate);
    await waitForLeadMessages(fixture, 'idle_notification');
    await fixture.lead.send('alice', { from: 'team-lead', text: 'How far are you?' });
    await waitForLeadMessages(fixture, 'idle_notification', 2);
    const compactions = fixture.events.filter(
      (event) => event.type === 'agent' && event.event.type === 'compaction',
    );
    expect(compactions).toHaveLength(1);
    const after = teammate.scriptedFetch.requests().at(-1)!;
    const firstUser = (after.body as { messages: Array<{ content: unknown }> }).messages[0]!;
    const preserved = JSON.stringify(firstUser.content);
    expect(preserved).toContain(`You are alice (alice@${fixture.teamName})`);
    expect(preserved).toContain('Your lead is team-lead');
    expect(preserved).toContain(`Your current task is #${task.id}: Write the docs`);
  });

  it('keeps working when a TeammateIdle hook blocks, with the hook output as its next message', async () => {
    const fixture = await createTeammateFixture();
    const marker = path.join(fixture.cwd, 'hook-ran-once');
    const settingsFile = path.join(fixture.cwd, '.muster', 'settings.json');
    await mkdir(path.dirname(settingsFile), { recursive: true });
    // Blocks the first time (exit 2, stderr fed back), lets the teammate idle the second time.
    const line = `if [ -e '${marker}' ]; then exit 0; fi; touch '${marker}'; echo 'Run the tests before you stop.' >&2; exit 2`;
    await writeFile(
      settingsFile,
      JSON.stringify({
        hooks: { TeammateIdle: [{ hooks: [{ type: 'command', command: line }] }] },
      }),
    );
    const hooks = await loadHooks({ cwd: fixture.cwd, home: fixture.cwd });
    const seen: string[] = [];
    const teammate = startTeammate(
      fixture,
      (request) => {
        seen.push(lastUserText(request));
        return { content: [{ type: 'text', text: 'Done.' }] };
      },
      { prompt: 'Write it.', hooks },
    );
    track(teammate);
    const idles = await waitForLeadMessages(fixture, 'idle_notification');
    expect(idles).toHaveLength(1);
    expect(seen).toHaveLength(2);
    expect(seen[1]).toBe('Run the tests before you stop.');
  });

  it('goes idle anyway, with a notice, when a TeammateIdle hook blocks every time', async () => {
    const fixture = await createTeammateFixture();
    const settingsFile = path.join(fixture.cwd, '.muster', 'settings.json');
    await mkdir(path.dirname(settingsFile), { recursive: true });
    await writeFile(
      settingsFile,
      JSON.stringify({
        hooks: {
          TeammateIdle: [
            { hooks: [{ type: 'command', command: "echo 'Never stop.' >&2; exit 2" }] },
          ],
        },
      }),
    );
    const hooks = await loadHooks({ cwd: fixture.cwd, home: fixture.cwd });
    let requests = 0;
    const teammate = startTeammate(
      fixture,
      () => {
        requests += 1;
        return { content: [{ type: 'text', text: 'Done.' }] };
      },
      { prompt: 'Write it.', hooks },
    );
    track(teammate);
    const idles = await waitForLeadMessages(fixture, 'idle_notification');
    expect(idles).toHaveLength(1);
    expect(requests).toBe(MAXIMUM_STOP_HOOK_CONTINUATIONS + 1);
    const notices = fixture.events.flatMap((event) =>
      event.type === 'notice' ? [event.text] : [],
    );
    expect(notices.some((text) => text.includes('blocked alice'))).toBe(true);
  });
});
