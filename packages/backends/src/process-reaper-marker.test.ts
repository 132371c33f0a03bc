// Process members (pty, tmux) start with the lead's MUSTER_LEAD_RUN marker, so that the process
// reaper finds the tool processes a member started when the lead is SIGKILLed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LEAD_RUN_VARIABLE } from '@muster/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import type { Backend } from './backend-types.js';
import { processReaperAvailability, sharedProcessReaper } from './process-reaper.js';
import { createPtyBackend } from './pty-backend.js';
import { createTmuxBackend } from './tmux-backend.js';
import {
  killTestServer,
  makeTeamRoot,
  pollUntil,
  scriptMember,
  testSocketName,
} from './tmux-test-support.js';

const backends: Backend[] = [];
const sockets: string[] = [];
const teams: ReturnType<typeof makeTeamRoot>[] = [];

afterEach(async () => {
  await Promise.allSettled(backends.splice(0).map((backend) => backend.close()));
  for (const socket of sockets.splice(0)) killTestServer(socket);
  for (const team of teams.splice(0)) team.remove();
});

function readMarker(file: string): string | undefined {
  try {
    const text = readFileSync(file, 'utf8');
    return text.endsWith('\n') ? text.trim() : undefined;
  } catch {
    return undefined;
  }
}

describe.skipIf(!processReaperAvailability().available)(
  'the lead-run marker of process members',
  () => {
    const cases: [string, () => Backend][] = [
      ['pty', () => createPtyBackend()],
      [
        'tmux',
        () => {
          const socketName = testSocketName();
          sockets.push(socketName);
          return createTmuxBackend({ socketName, pollIntervalMs: 100 });
        },
      ],
    ];
    for (const [name, create] of cases) {
      it(`a ${name} member's environment carries this lead's ${LEAD_RUN_VARIABLE}`, async () => {
        const backend = create();
        backends.push(backend);
        const availability = await backend.availability();
        if (!availability.available) {
          console.warn(`skipped: ${name} is unavailable here (${availability.reason})`);
          return;
        }
        const team = makeTeamRoot('marked');
        teams.push(team);
        const file = join(team.root, `${name}-marker.txt`);
        const member = await backend.spawn(
          scriptMember(
            team.root,
            'marked',
            `${name}-member`,
            `printf '%s\\n' "$${LEAD_RUN_VARIABLE}" > '${file}'; exec sleep 1000`,
          ),
        );
        member.markReady();
        const marker = await pollUntil(`the ${name} member to write its marker`, () =>
          readMarker(file),
        );
        const expected = (await sharedProcessReaper()).environment[LEAD_RUN_VARIABLE];
        expect(expected).toMatch(/\S/);
        expect(marker).toBe(expected);
        await member.kill({ graceful: false, deadlineMs: 2000 });
      });
    }
  },
);

describe('the environment of pty members', () => {
  it('holds none of the model credentials protocol lists, whatever their name', async () => {
    const backend = createPtyBackend({
      environment: {
        ...process.env,
        AWS_BEARER_TOKEN_BEDROCK: 'bedrock-secret',
        ANTHROPIC_VERTEX_PROJECT_ID: 'vertex-secret',
        ANTHROPIC_FOUNDRY_API_KEY: 'foundry-secret',
        MUSTER_PLAIN_VARIABLE: 'kept',
      },
    });
    backends.push(backend);
    const availability = await backend.availability();
    if (!availability.available) {
      console.warn(`skipped: pty is unavailable here (${availability.reason})`);
      return;
    }
    const team = makeTeamRoot('scrubbed');
    teams.push(team);
    const file = join(team.root, 'environment.txt');
    const member = await backend.spawn(
      scriptMember(
        team.root,
        'scrubbed',
        'pty-member',
        `env > '${file}.part'; mv '${file}.part' '${file}'; exec sleep 1000`,
      ),
    );
    member.markReady();
    const environment = await pollUntil('the member to write its environment', () => {
      try {
        return readFileSync(file, 'utf8');
      } catch {
        return undefined;
      }
    });
    expect(environment).toContain('MUSTER_PLAIN_VARIABLE=kept');
    expect(environment).not.toMatch(/bedrock-secret|vertex-secret|foundry-secret/);
    await member.kill({ graceful: false, deadlineMs: 2000 });
  });
});
