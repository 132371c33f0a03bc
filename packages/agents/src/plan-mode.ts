// Plan mode for a teammate spawned with planModeRequired: the ExitPlanMode tool sends the plan
// file's text to the lead through the permissions package's plan gate, and the lead's verified
// answer comes back to the model as its next message (approval also switches the mode).
import { readFile } from 'node:fs/promises';
import type { PlanAnswer, PlanGate } from '@muster/permissions';
import { ToolError, type Tool } from '@muster/query';
import { z } from 'zod';

/** ExitPlanMode's input: Claude Code's fields, all optional (the plan is read from the plan file). */
export const ExitPlanModeInputSchema = z.looseObject({
  allowedPrompts: z
    .array(
      z.strictObject({
        tool: z.enum(['Bash']).describe('The tool the prompt is for.'),
        prompt: z.string().describe('A kind of command the plan needs to run.'),
      }),
    )
    .optional()
    .describe('Kinds of commands the plan needs permission for.'),
  pushToRemote: z.boolean().optional().describe('Not used by muster.'),
  remoteSessionId: z.string().optional().describe('Not used by muster.'),
  remoteSessionUrl: z.string().optional().describe('Not used by muster.'),
  remoteSessionTitle: z.string().optional().describe('Not used by muster.'),
});
/** ExitPlanMode's parsed input. */
export type ExitPlanModeInput = z.infer<typeof ExitPlanModeInputSchema>;

/** The JSON Schema the model gets: the same fields, types and openness as Claude Code's. */
const EXIT_PLAN_MODE_JSON_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    allowedPrompts: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          tool: { type: 'string', enum: ['Bash'] },
          prompt: { type: 'string' },
        },
        required: ['tool', 'prompt'],
        additionalProperties: false,
      },
    },
    pushToRemote: { type: 'boolean' },
    remoteSessionId: { type: 'string' },
    remoteSessionUrl: { type: 'string' },
    remoteSessionTitle: { type: 'string' },
  },
  additionalProperties: {},
};

const EXIT_PLAN_MODE_DESCRIPTION = `Hand your plan to the team lead for approval and leave plan mode once it is approved.

Write the whole plan to your plan file first (the path is in your instructions), then call this tool. The lead reads the file's text. While you wait you may only read; the lead's answer arrives as your next message: "[Plan Approved] …" means you may now make changes, "[Plan Rejected] …" carries what to change, after which you revise the plan file and call this tool again.`;

/** Options of {@link createExitPlanModeTool}. */
export interface ExitPlanModeToolOptions {
  /** The teammate's plan gate (`createPlanGate` over its permission client). */
  gate: PlanGate;
  /** The plan file the teammate writes (absolute). */
  planFilePath: string;
  /** Called with the promise of the lead's answer once the plan is submitted. */
  onSubmitted: (submission: { answer: Promise<PlanAnswer> }) => void;
}

/** Builds the ExitPlanMode tool of a plan-mode teammate. */
export function createExitPlanModeTool(options: ExitPlanModeToolOptions): Tool<ExitPlanModeInput> {
  if (typeof options.planFilePath !== 'string' || !options.planFilePath.startsWith('/')) {
    throw new TypeError(
      `createExitPlanModeTool: planFilePath must be an absolute path, got ${JSON.stringify(options.planFilePath)}.`,
    );
  }
  return {
    name: 'ExitPlanMode',
    description: EXIT_PLAN_MODE_DESCRIPTION,
    inputSchema: ExitPlanModeInputSchema,
    inputJsonSchema: EXIT_PLAN_MODE_JSON_SCHEMA,
    // It changes no file: it sends the plan to the lead.
    isReadOnly: () => true,
    isConcurrencySafe: () => false,
    async call() {
      const status = options.gate.status();
      if (status === 'awaiting_approval') {
        throw new ToolError(
          'Your plan is already with the team lead. Wait for the answer; it arrives as your next message.',
          'PLAN_PENDING',
        );
      }
      if (options.gate.isOpen()) {
        throw new ToolError(
          'You are not in plan mode (your plan was approved, or you never needed one): go ahead with the work.',
          'NOT_IN_PLAN_MODE',
        );
      }
      let planContent: string;
      try {
        planContent = await readFile(options.planFilePath, 'utf8');
      } catch {
        throw new ToolError(
          `No plan file found at ${options.planFilePath}. Please write your plan to this file before calling ExitPlanMode.`,
          'NO_PLAN_FILE',
        );
      }
      if (planContent.trim() === '') {
        throw new ToolError(
          `The plan file ${options.planFilePath} is empty. Write your plan into it, then call ExitPlanMode again.`,
          'EMPTY_PLAN',
        );
      }
      const answer = options.gate.submitPlan({ planFilePath: options.planFilePath, planContent });
      // The gate marks the plan as out at once; a send that fails rejects `answer`, and the
      // loop tells the model so as its next message.
      options.onSubmitted({ answer });
      return {
        content: `Your plan has been submitted to the team lead for approval. Wait for the answer, which arrives as your next message; until then only read. Plan file: ${options.planFilePath}`,
      };
    },
  };
}
