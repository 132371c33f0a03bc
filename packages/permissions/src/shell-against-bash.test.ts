// The classifier against the real shell: lines built by nesting wrappers, compound
// commands, substitutions and embedded scripts around a spelling of `rm` are run by
// /bin/bash in a temporary folder (with a logging `rm` first on PATH). Every line that
// really ran rm must be refused or asked about, never allowed by the allow rules, and with
// `Bash(rm:*)` it should be denied wherever the parser can see rm (the count is printed).
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { makeTempDirectory } from '@muster/test-utils';
import { describe, expect, it } from 'vitest';
import { decidePermission } from './decide-permission.js';

const strip = (text: string, characters: RegExp) => text.replace(characters, '');
// prettier-ignore
const TEMPLATES: Array<(command: string) => string> = [
  (c) => c, (c) => `env ${c}`, (c) => `command ${c}`, (c) => `X=1 ${c}`, (c) => `nice ${c}`,
  (c) => `time ${c}`, (c) => `timeout 5 ${c}`, (c) => `{ ${c}; }`, (c) => `(${c})`,
  (c) => `if true; then ${c}; fi`, (c) => `echo $(${c})`, (c) => `echo \`${c}\``,
  (c) => `bash -c ${JSON.stringify(c)}`, (c) => `sh -c '${c.replace(/'/g, `'\\''`)}'`,
  (c) => `eval ${JSON.stringify(c)}`, (c) => `true && ${c}`, (c) => `false || ${c}`,
  (c) => `echo a | ${c}`, (c) => `ls; ${c}`, (c) => `for i in 1; do ${c}; done`,
  (c) => `f() { ${c}; }; f`, (c) => `case a in a) ${c};; esac`, (c) => `git status && ${c}`,
  (c) => `cat <(${c})`, (c) => `echo "$(${c})"`, (c) => `nohup ${c}`,
  (c) => `find . -maxdepth 0 -exec ${c} \\;`, (c) => `echo x | xargs ${c}`, (c) => `stdbuf -oL ${c}`,
  (c) => `exec ${c}`, (c) => `while true; do ${c}; break; done`, (c) => `! ${c}`, (c) => `${c} 2>/dev/null`,
  (c) => `cat <<EOF\n$(${c})\nEOF`, (c) => `bash <<'EOF'\n${c}\nEOF`,
  (c) => `awk 'BEGIN{system("${strip(c, /["\\']/g)}")}'`, (c) => `sed -n '1e ${strip(c, /['\n]/g)}' list`,
  (c) => `git -c alias.z='!${strip(c, /'/g)}' z`, (c) => `env sh -c '${strip(c, /'/g)}'`,
];
const SPELLINGS = ['rm x', '/bin/rm x', '\\rm x', "'rm' x", 'rm${IFS}x', '{rm,x}', "$'rm' x"];
// prettier-ignore
const ALLOW = ['Bash(echo:*)', 'Bash(git:*)', 'Bash(ls:*)', 'Bash(cat:*)', 'Bash(true)', 'Bash(false)', 'Bash(sed:*)', 'Bash(awk:*)', 'Bash(find:*)', 'Bash(env:*)', 'Bash(xargs:*)', 'Bash(timeout:*)', 'Bash(nice:*)', 'Bash(bash:*)', 'Bash(sh:*)', 'Bash(nohup:*)', 'Bash(stdbuf:*)', 'Bash(command:*)', 'Bash(f)', 'Bash(exec:*)'];

describe('classification against /bin/bash', () => {
  it.skipIf(!existsSync('/bin/bash'))(
    'never allows a line that really runs rm; denies it with Bash(rm:*) where rm is visible',
    async () => {
      const root = await makeTempDirectory('muster-permissions-bash-');
      const fakeBin = path.join(root, 'bin');
      await mkdir(fakeBin);
      await writeFile(path.join(fakeBin, 'rm'), '#!/bin/sh\ntouch "$MARK"\nexec /bin/rm "$@"\n');
      await chmod(path.join(fakeBin, 'rm'), 0o755);
      let seed = 7;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
      const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
      let ran = 0;
      let denied = 0;
      const allowed: string[] = [];
      for (let index = 0; index < 120; index += 1) {
        let line = pick(SPELLINGS);
        const layers = 1 + Math.floor(random() * 3);
        for (let layer = 0; layer < layers; layer += 1) line = pick(TEMPLATES)(line);
        const folder = path.join(root, `line-${index}`);
        await mkdir(folder);
        await writeFile(path.join(folder, 'x'), '');
        await writeFile(path.join(folder, 'list'), 'x\n');
        const mark = path.join(folder, 'rm-ran');
        spawnSync('/bin/bash', ['-c', line], {
          cwd: folder,
          timeout: 10_000,
          env: { PATH: `${fakeBin}:/usr/bin:/bin`, MARK: mark, HOME: folder },
          stdio: 'ignore',
        });
        if (!existsSync(mark) && existsSync(path.join(folder, 'x'))) continue;
        ran += 1;
        const decide = (deny: string[]) =>
          decidePermission({
            mode: 'default',
            rules: { allow: ALLOW, deny },
            workingDirectories: [folder],
            homeDirectory: folder,
            call: { toolName: 'Bash', input: { command: line }, readOnly: false },
          }).behavior;
        if (decide([]) === 'allow') allowed.push(line);
        if (decide(['Bash(rm:*)']) === 'deny') denied += 1;
      }
      console.log(
        `bash ran rm in ${ran} of 120 lines; Bash(rm:*) denied ${denied}, the rest asked`,
      );
      expect(ran).toBeGreaterThan(50);
      expect(allowed).toEqual([]);
    },
    300_000,
  );
});
