import { createHash } from 'node:crypto';
import { chmod, mkdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertTarballIntegrity, privateCacheFolder, userCacheRoot } from './claude-code-cache.js';
import { CLAUDE_CODE_CACHE_FOLDER } from './claude-code-peer.js';
import { makeTempDirectory } from './temp-directory.js';

const uid = process.getuid?.() ?? -1;

describe('the per-user Claude Code cache folder', () => {
  it('is under <tmpdir>/muster-<uid>, never the old shared /tmp/muster-claude-code-<version>', () => {
    expect(CLAUDE_CODE_CACHE_FOLDER).toBe(join(userCacheRoot(), 'claude-code-2.1.45'));
    expect(CLAUDE_CODE_CACHE_FOLDER).toContain(`muster-${uid}`);
  });

  it('is created 0700 and owned by this user', async () => {
    const base = await makeTempDirectory('muster-cache-');
    const folder = await privateCacheFolder('claude-code-9.9.9', base);
    expect(folder).toBe(join(base, `muster-${uid}`, 'claude-code-9.9.9'));
    for (const path of [folder, join(base, `muster-${uid}`)]) {
      const stats = await stat(path);
      expect({ mode: stats.mode & 0o777, uid: stats.uid }).toEqual({ mode: 0o700, uid });
    }
  });

  it('is refused when planted writable by others, or as a link to someone else’s folder', async () => {
    const base = await makeTempDirectory('muster-cache-');
    const planted = join(base, `muster-${uid}`, 'claude-code-9.9.9');
    await mkdir(planted, { recursive: true });
    await chmod(planted, 0o777);
    await expect(privateCacheFolder('claude-code-9.9.9', base)).rejects.toThrow(
      /is writable by group or others \(mode 777\).*not run/,
    );

    const other = await makeTempDirectory('muster-cache-');
    const elsewhere = join(other, 'elsewhere');
    await mkdir(elsewhere, { mode: 0o700 });
    await mkdir(join(other, `muster-${uid}`), { mode: 0o700 });
    await symlink(elsewhere, join(other, `muster-${uid}`, 'claude-code-9.9.9'));
    await expect(privateCacheFolder('claude-code-9.9.9', other)).rejects.toThrow(
      /is not a directory \(a symbolic link or a file\)/,
    );
  });
});

describe('assertTarballIntegrity', () => {
  it('accepts the sha512 of the file and refuses another or a missing one', async () => {
    const folder = await makeTempDirectory('muster-cache-');
    const file = join(folder, 'package.tgz');
    await writeFile(file, 'tarball bytes');
    const good = `sha512-${createHash('sha512').update('tarball bytes').digest('base64')}`;
    expect(() => assertTarballIntegrity(file, good)).not.toThrow();
    const bad = `sha512-${createHash('sha512').update('planted bytes').digest('base64')}`;
    expect(() => assertTarballIntegrity(file, bad)).toThrow(/but the registry says/);
    expect(() => assertTarballIntegrity(file, '')).toThrow(/no sha512 integrity/);
  });
});
