// A mixed team: TypeScript (@muster/mailbox), Python and Go processes write into one inbox
// at the same time; every message arrives exactly once, and every side agrees.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createMailbox } from '@muster/mailbox';
import { ProtocolMessageSchema } from '@muster/protocol';
import { makeTempDirectory } from '@muster/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildGoClient,
  fixturesDirectory,
  pythonClientDirectory,
  runProcess,
  startProcess,
  startPython,
} from './support/clients.js';

const team = 'mixed-team';
const perWriter = 50;
let goBinary: string;
let buildFolder: string;

beforeAll(async () => {
  buildFolder = await mkdtemp(path.join(tmpdir(), 'muster-go-client-'));
  goBinary = await buildGoClient(buildFolder);
});

afterAll(async () => {
  await rm(buildFolder, { recursive: true, force: true });
});

const python = (args: string[]) => startPython(args).exited;

function expectSuccess(result: { code: number | null; stderr: string }, what: string) {
  expect(result.code, `${what}: ${result.stderr}`).toBe(0);
}

describe('a mixed team sharing one inbox', () => {
  it('receives every message of 4 TypeScript, 3 Python and 1 Go writers exactly once', async () => {
    const root = await makeTempDirectory();
    const writers = {
      typescript: ['ts0', 'ts1', 'ts2', 'ts3'],
      python: ['py0', 'py1', 'py2'],
      go: ['go0'],
    };
    const everyone = [...writers.typescript, ...writers.python, ...writers.go];
    const expected = everyone.flatMap((sender) =>
      Array.from({ length: perWriter }, (_, number) => `${sender}-${number}`),
    );

    const reader = startProcess('node', [
      path.join(fixturesDirectory, 'mailbox-reader.mjs'),
      root,
      team,
      'lead',
      String(expected.length),
    ]);
    await reader.waitForLine((line) => line.includes('"watching"'));

    const common = ['--root', root, '--team', team, '--to', 'lead', '--count', String(perWriter)];
    const running = [
      ...writers.typescript.map((sender) =>
        startProcess('node', [
          path.join(fixturesDirectory, 'mailbox-writer.mjs'),
          root,
          team,
          'lead',
          sender,
          String(perWriter),
        ]),
      ),
      ...writers.python.map((sender) =>
        startPython(['send', ...common, '--from', sender, '--text', `${sender}-`]),
      ),
      ...writers.go.map((sender) =>
        startProcess(goBinary, ['send', ...common, '--from', sender, '--text', `${sender}-`]),
      ),
    ];
    expect(running.length).toBeGreaterThanOrEqual(8);
    const results = await Promise.all(running.map((process) => process.exited));
    results.forEach((result, position) => expectSuccess(result, `writer ${everyone[position]}`));

    // The TypeScript reader got each message exactly once.
    const readerResult = await reader.exited;
    expectSuccess(readerResult, 'reader');
    const { received } = JSON.parse(readerResult.stdout.trim().split('\n').pop()!) as {
      received: Array<{ from: string; text: string }>;
    };
    const receivedTexts = received.map((message) => message.text);
    expect(receivedTexts).toHaveLength(expected.length);
    expect([...receivedTexts].sort()).toEqual([...expected].sort());
    for (const message of received) expect(message.text.startsWith(`${message.from}-`)).toBe(true);
    // Each writer's messages arrive in the order it sent them.
    for (const sender of everyone) {
      const own = receivedTexts.filter((text) => text.startsWith(`${sender}-`));
      const inboxOrder = own.map((text) => Number(text.slice(sender.length + 1)));
      expect(inboxOrder).toEqual([...inboxOrder].sort((left, right) => left - right));
    }

    // A Python reader of the same inbox agrees: the same messages, once each, all read.
    const history = await python(['history', '--root', root, '--team', team, '--agent', 'lead']);
    expectSuccess(history, 'python history');
    const entries = JSON.parse(history.stdout) as Array<{
      from: string;
      text: string;
      read: boolean;
    }>;
    expect(entries.map((entry) => entry.text).sort()).toEqual([...expected].sort());
    expect(entries.every((entry) => entry.read)).toBe(true);

    // So does Go, and so does the TypeScript mailbox's own view.
    const goHistory = await runProcess(goBinary, [
      'history',
      '--root',
      root,
      '--team',
      team,
      '--agent',
      'lead',
    ]);
    expect(
      (JSON.parse(goHistory.stdout) as Array<{ text: string }>).map((entry) => entry.text).sort(),
    ).toEqual([...expected].sort());
    const mailbox = createMailbox({ root, team, recipientCheck: 'none' });
    expect(await mailbox.readUnread('lead')).toEqual([]);
  });

  it('sees protocol messages written from Python and Go as typed protocol messages', async () => {
    const root = await makeTempDirectory();
    const common = ['--root', root, '--team', team, '--to', 'alpha', '--from', 'team-lead'];
    for (const args of [
      [
        'send',
        ...common,
        '--text',
        'Please look at the failing test first.',
        '--summary',
        'look at the test',
      ],
      ['shutdown-request', ...common, '--reason', 'All tasks are done.'],
      [
        'permission-response',
        ...common,
        '--request-id',
        'perm-1795350959263-ku6x9i9',
        '--updated-input',
        '{"command":"npm test"}',
      ],
      [
        'permission-response',
        ...common,
        '--request-id',
        'perm-1795350959815-uns7cfj',
        '--error',
        'Not in this repository.',
      ],
    ]) {
      expectSuccess(await python(args), args[0]!);
    }
    await runProcess(goBinary, ['shutdown-request', ...common, '--reason', 'From Go.']);

    const mailbox = createMailbox({ root, team, recipientCheck: 'none' });
    const unread = await mailbox.readUnread('alpha');
    // Shutdown requests first (delivery order), then the lead's other messages in order.
    expect(
      unread.map((item) => (item.content.kind === 'protocol' ? item.content.message.type : 'text')),
    ).toEqual([
      'shutdown_request',
      'shutdown_request',
      'text',
      'permission_response',
      'permission_response',
    ]);
    const [fromPython, fromGo, , approval, denial] = unread;
    for (const item of unread.filter((entry) => entry.content.kind === 'protocol')) {
      expect(ProtocolMessageSchema.safeParse(JSON.parse(item.message.text)).success).toBe(true);
    }
    expect(fromPython!.content).toMatchObject({
      kind: 'protocol',
      message: { type: 'shutdown_request', from: 'team-lead', reason: 'All tasks are done.' },
    });
    expect(fromGo!.content).toMatchObject({ kind: 'protocol', message: { reason: 'From Go.' } });
    expect(approval!.content).toMatchObject({
      kind: 'protocol',
      message: {
        type: 'permission_response',
        request_id: 'perm-1795350959263-ku6x9i9',
        subtype: 'success',
        response: { updated_input: { command: 'npm test' }, permission_updates: [] },
      },
    });
    expect(denial!.content).toMatchObject({
      kind: 'protocol',
      message: { subtype: 'error', error: 'Not in this repository.' },
    });
    // Key order and spacing exactly as Claude Code writes them.
    expect(approval!.message.text).toBe(
      '{"type":"permission_response","request_id":"perm-1795350959263-ku6x9i9","subtype":"success","response":{"updated_input":{"command":"npm test"},"permission_updates":[]}}',
    );
    expect(fromPython!.message.text).toMatch(
      /^\{"type":"shutdown_request","requestId":"shutdown-\d+@alpha","from":"team-lead","reason":"All tasks are done\.","timestamp":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"\}$/,
    );
  });

  it('lets Python and Go recognise what TypeScript sends', async () => {
    const root = await makeTempDirectory();
    const mailbox = createMailbox({ root, team, recipientCheck: 'none' });
    await mailbox.sendProtocolMessage('beta', 'team-lead', {
      type: 'plan_approval_response',
      requestId: 'plan_approval-1795350960135@beta@mixed-team',
      approved: false,
      feedback: 'Split the migration into two steps.',
      timestamp: new Date().toISOString(),
    });
    await mailbox.send('beta', { from: 'team-lead', text: '{"type":"shutdown_request"}' });
    const readArgs = ['read', '--root', root, '--team', team, '--agent', 'beta'];
    const views = [
      JSON.parse(
        (
          await runProcess('python3', ['-m', 'muster_client', ...readArgs], {
            cwd: pythonClientDirectory,
          })
        ).stdout,
      ),
      JSON.parse((await runProcess(goBinary, readArgs)).stdout),
    ];
    for (const view of views) {
      expect(
        view.map((entry: { kind: string; type?: string }) => [entry.kind, entry.type]),
      ).toEqual([
        ['protocol', 'plan_approval_response'],
        ['text', undefined], // a known type with missing fields is free text
      ]);
    }
  });
});
