// The three file tools of an agent, created together with shared limits.
import type { Tool } from '@muster/query';
import { createEditTool } from './edit-tool.js';
import type { EditInput } from './edit-tool.js';
import { createReadTool } from './read-tool.js';
import type { ReadInput, ReadToolOptions } from './read-tool.js';
import { createWriteTool } from './write-tool.js';
import type { FileChangeToolOptions, WriteInput } from './write-tool.js';

/** Read, Write and Edit. They share the agent's file read state through `ToolContext.state`. */
export interface FileTools {
  /** The Read tool. */
  read: Tool<ReadInput>;
  /** The Write tool. */
  write: Tool<WriteInput>;
  /** The Edit tool. */
  edit: Tool<EditInput>;
}

/** Creates Read, Write and Edit (`[tools.read, tools.write, tools.edit]` goes into an agent's tool list). */
export function createFileTools(
  options: { read?: ReadToolOptions; change?: FileChangeToolOptions } = {},
): FileTools {
  return {
    read: createReadTool(options.read),
    write: createWriteTool(options.change),
    edit: createEditTool(options.change),
  };
}
