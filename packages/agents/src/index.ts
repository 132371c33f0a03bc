// @muster/agents — the team runtime a program embeds. The public API is exactly what this file
// exports, by name. One block per part; add exports only in your part's block.

// --- contract (agent-definition.ts, team-event.ts) ---
export type {
  AgentDefinition,
  AgentDefinitionProblem,
  AgentDefinitionSource,
} from './agent-definition.js';
export type { MemberState, SpawnPath, TeamEvent, TeamEventSink } from './team-event.js';

// --- definitions, tool pool, prompt and model chains, hooks (A1) ---

// --- teammate loop (A3) ---

// --- Task / Agent tool, the four spawn paths, background agents (A4) ---
