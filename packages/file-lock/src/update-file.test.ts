import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDirectory, runNodeProcesses, startNodeProcess } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import {
  FileLockError,
  acquireFileLock,
  skipWrite,
  updateFile,
  type UpdateFileOptions,
} from './index.js';

const fixture = (name: string) =>
  fileURLToPath(new URL(`./test-fixtures/${name}`, import.meta.url));

interface Entries {
  entries: string[];
}

const jsonOptions = {
  parse: (text: string) => JSON.parse(text) as Entries,
  serialize: (value: Entries) => JSON.stringify(value, null, 2),
} satisfies Partial<UpdateFileOptions<Entries>>;

/** Waits until /proc says the process is stopped (state T). */
async function waitUntilStopped(pid: number): Promise<void> {
  for (let waited = 0; waited < 20_000; waited += 20) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('T')) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`process ${pid} did not stop`);
}

function append(entry: string) {
  return (current: Entries | undefined): Entries => ({
    entries: [...(current?.entries ?? []), entry],
  });
}

describe('updateFile', () => {
  it('loses no update when 16 processes each make 50 locked updates', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'counter.json');
    await runNodeProcesses(fixture('increment.mjs'), 16, (index) => [file, '50', `p${index}`]);
    const final = JSON.parse(await readFile(file, 'utf8')) as { count: number; entries: string[] };
    expect(final.count).toBe(800);
    expect(new Set(final.entries).size).toBe(800);
    expect((await readdir(folder)).sort()).toEqual(['counter.json']);
  }, 180_000); // 16 Node processes: slow to start on a busy 2-core machine

  it('never overtakes a stopped holder, so nothing acknowledged is lost when it resumes', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'tasks.json');
    await writeFile(file, JSON.stringify({ entries: [] }));
    // Stopped (SIGSTOP) between its last check and its rename, holding the lock, with a
    // stale period of 300 ms that it cannot refresh while stopped.
    const paused = startNodeProcess(fixture('pause-before-rename.mjs'), [file, 'paused', '300']);
    await paused.waitForLine((line) => line === 'checked');
    await waitUntilStopped(paused.child.pid!);
    const acknowledged: string[] = [];
    let refusal: string | undefined;
    try {
      // Another process writes meanwhile, long after the holder's mtime went stale.
      const other = await startNodeProcess(fixture('append-entry.mjs'), [
        file,
        'other',
        '300',
        '2000',
      ]).exited;
      if (other.stdout.startsWith('written')) acknowledged.push('other');
      refusal = other.stdout;
    } finally {
      paused.child.kill('SIGCONT');
    }
    const pausedResult = await paused.exited;
    expect(pausedResult.code, pausedResult.stderr).toBe(0);
    if (pausedResult.stdout.includes('written')) acknowledged.push('paused');
    const after = await startNodeProcess(fixture('append-entry.mjs'), [
      file,
      'after',
      '300',
      '10000',
    ]).exited;
    if (after.stdout.startsWith('written')) acknowledged.push('after');
    const final = JSON.parse(await readFile(file, 'utf8')) as Entries;
    // Every write that was acknowledged is on disk; the refused one is not.
    for (const entry of acknowledged) expect(final.entries).toContain(entry);
    expect(acknowledged).toEqual(['paused', 'after']);
    expect(final.entries).toEqual(['paused', 'after']);
    expect(refusal ?? '').toContain('failed LOCK_TIMEOUT');
    expect(refusal ?? '').toContain('stopped');
    expect(refusal ?? '').toContain(`kill -CONT ${paused.child.pid}`);
  }, 60_000);

  it('starts over on fresh data when the file changed under it before the replace', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'inbox.json');
    await writeFile(file, JSON.stringify({ entries: ['first'] }));
    const seen: Array<string[] | undefined> = [];
    const result = await updateFile<Entries>(file, {
      ...jsonOptions,
      update: async (current) => {
        seen.push(current?.entries);
        // A writer that ignores the lock (the only way to change the file meanwhile).
        if (seen.length === 1)
          await writeFile(file, JSON.stringify({ entries: ['first', 'rogue'] }));
        return append('mine')(current);
      },
    });
    expect(seen).toEqual([['first'], ['first', 'rogue']]);
    expect(result).toEqual({ value: { entries: ['first', 'rogue', 'mine'] }, written: true });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(result.value);
  });

  it('starts over when its lock was taken before the replace, and leaves the new holder alone', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'inbox.json');
    await writeFile(file, JSON.stringify({ entries: [] }));
    let calls = 0;
    let otherRelease: Promise<void> | undefined;
    const result = await updateFile<Entries>(file, {
      ...jsonOptions,
      update: async (current) => {
        calls += 1;
        if (calls === 1) {
          // What a waiter does to a holder paused past staleMs: remove its lock, take its own.
          await rm(`${file}.lock.owner`);
          await rm(`${file}.lock`, { recursive: true });
          const other = await acquireFileLock(file, { deadlineMs: 1_000 });
          otherRelease = new Promise((resolve) => setTimeout(resolve, 100)).then(() =>
            other.release(),
          );
        }
        return append(`call ${calls}`)(current);
      },
    });
    await otherRelease; // would throw LOCK_LOST had updateFile removed the other lock
    expect(calls).toBe(2);
    expect(result.value).toEqual({ entries: ['call 2'] });
    expect(await readdir(folder)).toEqual(['inbox.json']);
  });

  it('moves a corrupt file aside, keeps its bytes, writes nothing and throws CORRUPT_FILE', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'inbox.json');
    const corrupt = '[{"from": "team-lead", "text": "hel';
    await writeFile(file, corrupt);
    let updateCalls = 0;
    const error = await updateFile<Entries>(file, {
      ...jsonOptions,
      update: (current) => {
        updateCalls += 1;
        return append('lost?')(current);
      },
    }).catch((caught: unknown) => caught);
    expect(FileLockError.hasCode(error, 'CORRUPT_FILE')).toBe(true);
    const details = (error as FileLockError).details;
    expect(details.file).toBe(file);
    const quarantinedTo = details.quarantinedTo as string;
    expect(path.basename(quarantinedTo)).toMatch(/^inbox\.json\.corrupt-\d{4}-\d\d-\d\dT/);
    expect(await readFile(quarantinedTo, 'utf8')).toBe(corrupt);
    expect((error as Error).message).toContain(quarantinedTo);
    expect(updateCalls).toBe(0);
    expect(await readdir(folder)).toEqual([path.basename(quarantinedTo)]);
  });

  it('re-reads once before calling a file corrupt (a torn read of an in-place rewrite)', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'inbox.json');
    await writeFile(file, JSON.stringify({ entries: ['kept'] }));
    let parses = 0;
    const result = await updateFile<Entries>(file, {
      ...jsonOptions,
      parse: (text) => {
        parses += 1;
        if (parses === 1) throw new Error('Unexpected end of JSON input');
        return JSON.parse(text) as Entries;
      },
      update: append('new'),
    });
    expect(parses).toBe(2);
    expect(result.value).toEqual({ entries: ['kept', 'new'] });
    expect(await readdir(folder)).toEqual(['inbox.json']);
  });

  it('creates a missing file and folder, and keeps the file untouched on skipWrite', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'inboxes', 'worker.json');
    const created = await updateFile<Entries>(file, { ...jsonOptions, update: append('hello') });
    expect(created).toEqual({ value: { entries: ['hello'] }, written: true });
    expect(await readFile(file, 'utf8')).toBe('{\n  "entries": [\n    "hello"\n  ]\n}');
    const skipped = await updateFile<Entries>(file, { ...jsonOptions, update: () => skipWrite });
    expect(skipped).toEqual({ value: { entries: ['hello'] }, written: false });
  });

  it('creates nothing, not even the folder, when the update skips a missing file', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'inboxes', 'worker.json');
    const seen: unknown[] = [];
    const result = await updateFile<Entries>(file, {
      ...jsonOptions,
      update: (current) => {
        seen.push(current);
        return skipWrite;
      },
    });
    expect(result).toEqual({ value: undefined, written: false });
    expect(seen).toEqual([undefined]);
    expect(await readdir(folder)).toEqual([]);
  });

  it('does not create a missing file when createIfMissing is false', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'worker.json');
    const result = await updateFile<Entries>(file, {
      ...jsonOptions,
      createIfMissing: false,
      update: append('nobody home'),
    });
    expect(result).toEqual({ value: undefined, written: false });
    expect(await readdir(folder)).toEqual([]);
  });

  it('passes errors from update through and leaves the file and lock clean', async () => {
    const folder = await makeTempDirectory();
    const file = path.join(folder, 'inbox.json');
    await writeFile(file, JSON.stringify({ entries: [] }));
    await expect(
      updateFile<Entries>(file, {
        ...jsonOptions,
        update: () => {
          throw new Error('no such task');
        },
      }),
    ).rejects.toThrow('no such task');
    expect(await readdir(folder)).toEqual(['inbox.json']);
    expect(await readFile(file, 'utf8')).toBe('{"entries":[]}');
  });
});
