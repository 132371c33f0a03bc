// Run by scripts/check-installable.mjs in an empty folder where only the packed
// @muster/protocol (and zod) were installed with npm: imports it by name and uses it.
import {
  formatJsonFile,
  parseJsonFile,
  parseProtocolMessage,
  PROTOCOL_VERSION,
  TeamConfigSchema,
} from '@muster/protocol';

const text = JSON.stringify(
  { name: 't', createdAt: 1, leadAgentId: 'team-lead@t', extra: true, members: [] },
  null,
  2,
);
const config = parseJsonFile(text, TeamConfigSchema, 'config.json');
if (formatJsonFile(config) !== text) throw new Error('round trip changed the file');
const message = parseProtocolMessage(
  '{"type":"mode_set_request","mode":"plan","from":"team-lead"}',
);
if (message?.type !== 'mode_set_request') throw new Error('protocol message not recognised');
if (TeamConfigSchema.safeParse({}).success) throw new Error('an empty config was accepted');
console.log(`imported @muster/protocol ${PROTOCOL_VERSION}`);
