import { escapeTerminalText } from '../terminal-text.js';
import type { DashboardModel, FeedEntry, MemberRow, TaskRow } from './dashboard-model.js';
import { capLine } from './text-layout.js';

/** One line of text from disk, cut to what a row can show and made safe to draw. */
export function safeLine(text: string): string {
  return capLine(escapeTerminalText(capLine(text)));
}

function safeOptionalLine(text: string | undefined): string | undefined {
  return text === undefined ? undefined : safeLine(text);
}

function safeMember(member: MemberRow): MemberRow {
  return {
    ...member,
    name: safeLine(member.name),
    backend: safeLine(member.backend),
    model: safeOptionalLine(member.model),
    agentType: safeOptionalLine(member.agentType),
    ...(member.look === undefined ? {} : { look: safeLine(member.look) }),
  };
}

function safeTask(task: TaskRow): TaskRow {
  return {
    ...task,
    id: safeLine(task.id),
    subject: safeLine(task.subject),
    owner: safeOptionalLine(task.owner),
    activeForm: safeOptionalLine(task.activeForm),
    openBlockers: task.openBlockers.map(safeLine),
    blocks: task.blocks.map(safeLine),
  };
}

function safeEntry(entry: FeedEntry): FeedEntry {
  return {
    ...entry,
    from: safeLine(entry.from),
    recipients: entry.recipients.map(safeLine),
    kind: safeLine(entry.kind),
    sentence: safeLine(entry.sentence),
  };
}

/**
 * The model with every one-line value (names, subjects, sentences, the description,
 * problems) escaped with `escapeTerminalText` and cut to {@link capLine}'s limit, ready to
 * draw. The long texts, a task's `description` and a message's `detail`, stay as they are:
 * the detail view escapes and wraps them itself, only when one is opened, so a reload never
 * pays for every long message in the feed.
 */
export function terminalSafeModel(model: DashboardModel): DashboardModel {
  return {
    ...model,
    teamName: safeLine(model.teamName),
    description: safeOptionalLine(model.description),
    members: model.members.map(safeMember),
    tasks: model.tasks.map(safeTask),
    feed: model.feed.map(safeEntry),
    problems: model.problems.map(safeLine),
    ...(model.session
      ? { session: { ...model.session, reason: safeLine(model.session.reason) } }
      : {}),
    ...(model.attachHint === undefined ? {} : { attachHint: safeLine(model.attachHint) }),
  };
}
