import { TaskCreateInputSchema, type Task, type TaskCreateInput } from '@muster/protocol';
import { readHighWatermark } from './high-watermark.js';
import { ensureTaskFolder, taskFile, withTeamLock, type TaskContext } from './task-context.js';
import { TaskError } from './task-error.js';
import { highestTaskIdOnDisk, readTaskFolder, writeTaskFile } from './task-file.js';

/** What describes a teammate's internal tracking task. */
export interface InternalTaskInput {
  /** The teammate's name; becomes the task's subject. */
  name: string;
  /** The teammate's spawn prompt; its first 100 characters become the description. */
  prompt: string;
}

/** How many characters of a spawn prompt Claude Code keeps in an internal task. */
const INTERNAL_DESCRIPTION_LENGTH = 100;

/** Validates TaskCreate input with the protocol's tool schema; `INVALID_INPUT` otherwise. */
export function parseCreateInput(input: unknown, team: string): TaskCreateInput {
  const result = TaskCreateInputSchema.safeParse(input);
  if (!result.success) {
    const problems = result.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`)
      .join('; ');
    throw new TaskError({
      code: 'INVALID_INPUT',
      message: `Cannot create a task in team ${team}: ${problems}. Pass subject and description (activeForm and metadata are optional).`,
      details: { issues: result.error.issues, team },
    });
  }
  return result.data;
}

/**
 * Creates a task under the team lock. The id is max(highest `{id}.json`, `.highwatermark`)
 * + 1, so an id is never handed out twice, even after deletions. Keys are written in Claude
 * Code's order: `id, subject, description, activeForm?, status, blocks, blockedBy, metadata?`.
 */
export async function createTask(context: TaskContext, input: TaskCreateInput): Promise<Task> {
  const parsed = parseCreateInput(input, context.team);
  return createWithNextId(context, (id) => ({
    id,
    subject: parsed.subject,
    description: parsed.description,
    ...(parsed.activeForm === undefined ? {} : { activeForm: parsed.activeForm }),
    status: 'pending',
    blocks: [],
    blockedBy: [],
    ...(parsed.metadata === undefined ? {} : { metadata: parsed.metadata }),
  }));
}

/**
 * Creates the internal tracking task Claude Code writes when it spawns a teammate: subject =
 * name, description = first 100 characters of the prompt, `in_progress`,
 * `metadata: {"_internal": true}`. Listings hide it unless asked.
 */
export async function createInternalTask(
  context: TaskContext,
  input: InternalTaskInput,
): Promise<Task> {
  if (
    typeof input?.name !== 'string' ||
    input.name.trim() === '' ||
    typeof input.prompt !== 'string'
  ) {
    throw new TaskError({
      code: 'INVALID_INPUT',
      message: `An internal task needs the teammate's name and prompt (strings) in team ${context.team}.`,
      details: { team: context.team },
    });
  }
  return createWithNextId(context, (id) => ({
    id,
    subject: input.name,
    description: input.prompt.slice(0, INTERNAL_DESCRIPTION_LENGTH),
    status: 'in_progress',
    blocks: [],
    blockedBy: [],
    metadata: { _internal: true },
  }));
}

async function createWithNextId(context: TaskContext, build: (id: string) => Task): Promise<Task> {
  await ensureTaskFolder(context);
  return withTeamLock(context, async (lock) => {
    const highestOnDisk = highestTaskIdOnDisk(await readTaskFolder(context.directory));
    const watermark = await readHighWatermark(context.highWatermarkFile);
    const id = String(Math.max(highestOnDisk, watermark) + 1);
    const task = build(id);
    await writeTaskFile(taskFile(context, id), task, undefined, lock, context.layout.root);
    return task;
  });
}
