// alice in a git worktree of her own (her working directory is not the repository her spawn
// prompt names): after the tests she commits on her branch, asks team-lead to merge it, and
// completes her task once the lead says it is merged.
import { describe, expect, it } from 'vitest';
import { DEMO_MERGED, DEMO_MERGE_REQUEST, implementerPrompt } from './demo-team-content.js';
import { DEMO_COMMIT_COMMAND } from './demo-team-implementer.js';
import { teammateMessage, toolUsesOf, type Message } from './demo-team-test-support.js';
import {
  after as afterLead,
  ask as askLead,
  spawnedTeam,
  withMessages,
} from './demo-team-lead-test-support.js';
import { after, ask, message, repository } from './demo-team-teammate-test-support.js';

const MAIN = '/tmp/demo/main-checkout';
const BRANCH = 'muster-wt-1-agents+teammate-alice-x1';

describe('alice in a worktree of her own', () => {
  it('works in her worktree, commits, asks the lead to merge, and completes once merged', () => {
    const start: Message[] = [
      { role: 'user', content: teammateMessage('team-lead', implementerPrompt('1', MAIN, true)) },
    ];
    const claim = ask('teammate', start);
    let messages = after(start, claim, 'Updated task #1 owner, status');
    const read = ask('teammate', messages);
    // Her paths are the worktree's (her working directory), not the main checkout's.
    expect(toolUsesOf(read)).toEqual([
      { name: 'Read', input: { file_path: `${repository}/src/index.js` } },
    ]);
    messages = after(messages, read, "     1→export { capitalize } from './capitalize.js';");
    const write = ask('teammate', messages);
    expect(toolUsesOf(write)[0]?.input.file_path).toBe(`${repository}/src/slugify.js`);
    messages = after(messages, write, 'File created successfully.');
    const edit = ask('teammate', messages);
    messages = after(messages, edit, 'The file has been updated.');
    const test = ask('teammate', messages);
    expect(toolUsesOf(test)[0]?.input.command).toBe('npm test');
    messages = after(messages, test, '# pass 1\n# fail 0');
    const commit = ask('teammate', messages);
    expect(toolUsesOf(commit)).toEqual([
      {
        name: 'Bash',
        input: {
          command: DEMO_COMMIT_COMMAND,
          description: "Commit slugify() on the worktree's branch",
        },
      },
    ]);
    messages = after(
      messages,
      commit,
      `[${BRANCH} 1a2b3c4] Add slugify(text)\n 2 files changed, 12 insertions(+)`,
    );
    const askToMerge = toolUsesOf(ask('teammate', messages));
    expect(askToMerge.map((use) => [use.name, use.input.recipient])).toEqual([
      ['SendMessage', 'team-lead'],
    ]);
    const request = String(askToMerge[0]?.input.content);
    expect(request.startsWith(`${DEMO_MERGE_REQUEST} ${BRANCH} into the main checkout`)).toBe(true);
    expect(request).toContain(`in my worktree ${repository}`);
    expect(request).toContain('npm test passes.');
    const sent = ask('teammate', messages);
    messages = after(messages, sent, 'Message sent.');
    expect(ask('teammate', messages).content).toEqual([
      { type: 'text', text: 'Waiting for team-lead to merge my branch.' },
    ]);
    // The lead's word is no person's message: alice completes the task and reports.
    const merged = message(
      messages,
      ask('teammate', messages),
      teammateMessage(
        'team-lead',
        `${DEMO_MERGED} ${BRANCH} into the main checkout (fast-forward).`,
      ),
    );
    const complete = ask('teammate', merged);
    expect(toolUsesOf(complete)).toEqual([
      { name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } },
    ]);
    expect(JSON.stringify(complete.content)).not.toContain('I read your message');
  });

  it('in the repository itself (no worktree) she completes after the tests, as before', () => {
    const start: Message[] = [
      { role: 'user', content: teammateMessage('team-lead', implementerPrompt('1', repository)) },
    ];
    let messages = after(start, ask('teammate', start), 'Updated task #1 owner, status');
    messages = after(
      messages,
      ask('teammate', messages),
      "export { capitalize } from './capitalize.js';",
    );
    messages = after(messages, ask('teammate', messages), 'File created successfully.');
    messages = after(messages, ask('teammate', messages), 'The file has been updated.');
    messages = after(messages, ask('teammate', messages), '# pass 1\n# fail 0');
    expect(toolUsesOf(ask('teammate', messages))).toEqual([
      { name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } },
    ]);
  });

  it('the lead merges the branch alice names into the main checkout, then tells her', () => {
    const { messages } = spawnedTeam();
    const asked = withMessages(
      messages,
      askLead(messages),
      teammateMessage(
        'alice',
        `${DEMO_MERGE_REQUEST} ${BRANCH} into the main checkout: it holds slugify(text).`,
        { color: 'blue', summary: `Merge ${BRANCH}` },
      ),
    );
    const merge = askLead(asked);
    // No task list check for a merge request: the merge alone.
    expect(toolUsesOf(merge)).toEqual([
      {
        name: 'Bash',
        input: {
          command: `git merge --ff-only ${BRANCH}`,
          description: "Merge alice's branch into the main checkout",
        },
      },
    ]);
    const told = toolUsesOf(
      askLead(afterLead(asked, merge, ['Updating 1a2b3c4..5d6e7f8\nFast-forward'])),
    );
    expect(told).toEqual([
      {
        name: 'SendMessage',
        input: expect.objectContaining({ type: 'message', recipient: 'alice' }),
      },
    ]);
    expect(
      String(told[0]?.input.content).startsWith(`${DEMO_MERGED} ${BRANCH} into the main checkout`),
    ).toBe(true);
  });
});
