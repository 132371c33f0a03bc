// Path rules and the working-directory check follow symbolic links: real links in a real
// temporary folder, decided by decidePermission.
import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import type { PermissionMode } from '@muster/protocol';
import { describe, expect, it } from 'vitest';
import { decidePermission } from './decide-permission.js';

/**
 * base/work (the working directory) with src/a.ts, and base/outside/secret.txt. Links:
 * work/link-out → ../outside, work/file-link → ../outside/secret.txt,
 * work/dangling → ../outside/new.txt (missing), work/src/escape → ../../outside,
 * work/inner-link → src, base/work-alias → work.
 */
async function makeLayout() {
  const base = await realpath(await makeTempDirectory('muster-permissions-links-'));
  const work = path.join(base, 'work');
  const outside = path.join(base, 'outside');
  await mkdir(path.join(work, 'src'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(work, 'src', 'a.ts'), 'export {};\n');
  await writeFile(path.join(outside, 'secret.txt'), 'secret\n');
  await writeFile(path.join(base, 'x'), 'beside the working directory\n');
  await symlink('../outside', path.join(work, 'link-out'));
  await symlink('../outside/secret.txt', path.join(work, 'file-link'));
  await symlink('../outside/new.txt', path.join(work, 'dangling'));
  await symlink('../../outside', path.join(work, 'src', 'escape'));
  await symlink('src', path.join(work, 'inner-link'));
  await symlink('work', path.join(base, 'work-alias'));
  return { base, work, outside };
}

type Rules = { allow?: string[]; deny?: string[] };

function decide(
  work: string,
  toolName: string,
  input: Record<string, unknown>,
  options: { mode?: PermissionMode; rules?: Rules; readOnly?: boolean; directory?: string } = {},
) {
  return decidePermission({
    mode: options.mode ?? 'default',
    rules: options.rules ?? {},
    workingDirectories: [options.directory ?? work],
    homeDirectory: '/home/nobody',
    call: { toolName, input, readOnly: options.readOnly ?? false },
  });
}

describe('symbolic links are resolved before path rules and directories are checked', () => {
  it('a link inside the working directory that leads outside is outside', async () => {
    const { work } = await makeLayout();
    const readThroughDirectoryLink = decide(
      work,
      'Read',
      { file_path: 'link-out/secret.txt' },
      { readOnly: true },
    );
    expect(readThroughDirectoryLink.behavior).toBe('ask');
    expect(readThroughDirectoryLink.reason.kind).toBe('outsideWorkingDirectories');
    expect(decide(work, 'Read', { file_path: 'file-link' }, { readOnly: true }).behavior).toBe(
      'ask',
    );
    // `..` after a link goes to the parent of the link's target, as the kernel does.
    expect(
      decide(work, 'Read', { file_path: 'src/escape/../x' }, { readOnly: true }).behavior,
    ).toBe('ask');
    expect(decide(work, 'Bash', { command: 'cat link-out/secret.txt' }).behavior).toBe('ask');
  }, 60_000);

  it('an allow rule on a folder does not cover a link in it that leads outside', async () => {
    const { work } = await makeLayout();
    const rules = { allow: ['Edit(src/**)'] };
    expect(decide(work, 'Edit', { file_path: 'src/a.ts' }, { rules }).behavior).toBe('allow');
    expect(decide(work, 'Edit', { file_path: 'src/escape/secret.txt' }, { rules }).behavior).toBe(
      'ask',
    );
    // acceptEdits: a dangling link would create a file outside.
    const dangling = decide(work, 'Write', { file_path: 'dangling' }, { mode: 'acceptEdits' });
    expect(dangling.behavior).toBe('ask');
    expect(dangling.reason.detail).toContain('outside/new.txt');
  }, 60_000);

  it('a deny rule on the real path catches an access through a link, and the reverse', async () => {
    const { work, outside } = await makeLayout();
    const denyReal = { deny: [`Read(/${outside}/**)`], allow: ['Read'] };
    expect(decide(work, 'Read', { file_path: 'file-link' }, { rules: denyReal }).behavior).toBe(
      'deny',
    );
    expect(
      decide(work, 'Read', { file_path: 'link-out/secret.txt' }, { rules: denyReal }).behavior,
    ).toBe('deny');
    const denyLink = { deny: ['Edit(link-out/**)'], allow: ['Edit'] };
    expect(
      decide(work, 'Edit', { file_path: path.join(outside, 'secret.txt') }, { rules: denyLink })
        .behavior,
    ).toBe('deny');
    expect(
      decide(work, 'Edit', { file_path: 'link-out/secret.txt' }, { rules: denyLink }).behavior,
    ).toBe('deny');
  }, 60_000);

  it('links that stay inside, and a working directory given through a link, still work', async () => {
    const { work, base } = await makeLayout();
    expect(
      decide(work, 'Read', { file_path: 'inner-link/a.ts' }, { readOnly: true }).behavior,
    ).toBe('allow');
    const alias = path.join(base, 'work-alias');
    expect(
      decide(
        work,
        'Read',
        { file_path: path.join(work, 'src/a.ts') },
        { readOnly: true, directory: alias },
      ).behavior,
    ).toBe('allow');
    expect(
      decide(work, 'Edit', { file_path: path.join(alias, 'src/a.ts') }, { mode: 'acceptEdits' })
        .behavior,
    ).toBe('allow');
  }, 60_000);
});
