// R28: in-process members share the lead's process, so no library code may change what the whole
// process shares: no `process.chdir(…)` and no write to `process.env`. This scans every
// package's source (not its tests) with the TypeScript parser and fails on any.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** `process.env` (or `process['env']`). */
function isProcessEnvironment(node: ts.Node): boolean {
  return isMemberOf(node, 'process', 'env');
}

function isMemberOf(node: ts.Node, objectName: string, propertyName: string): boolean {
  if (ts.isPropertyAccessExpression(node)) {
    return (
      ts.isIdentifier(node.expression) &&
      node.expression.text === objectName &&
      node.name.text === propertyName
    );
  }
  if (ts.isElementAccessExpression(node)) {
    return (
      ts.isIdentifier(node.expression) &&
      node.expression.text === objectName &&
      ts.isStringLiteralLike(node.argumentExpression) &&
      node.argumentExpression.text === propertyName
    );
  }
  return false;
}

/** `process.env` itself or one of its variables (`process.env.X`, `process.env[name]`). */
function isEnvironmentTarget(node: ts.Node): boolean {
  const inner = ts.isParenthesizedExpression(node) ? node.expression : node;
  if (isProcessEnvironment(inner)) return true;
  return (
    (ts.isPropertyAccessExpression(inner) || ts.isElementAccessExpression(inner)) &&
    isProcessEnvironment(inner.expression)
  );
}

const ENVIRONMENT_WRITING_CALLS = [
  ['Object', 'assign'],
  ['Object', 'defineProperty'],
  ['Object', 'defineProperties'],
  ['Reflect', 'set'],
  ['Reflect', 'deleteProperty'],
  ['Reflect', 'defineProperty'],
] as const;

/** Every place in `sourceText` that changes the working directory or the environment of the whole process. */
function findSharedStateWrites(sourceText: string, fileName = 'source.ts'): string[] {
  const source = ts.createSourceFile(fileName, sourceText, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const report = (node: ts.Node, what: string) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push(`${fileName}:${String(line + 1)}: ${what}: ${node.getText(source)}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      if (isMemberOf(node.expression, 'process', 'chdir')) report(node, 'process.chdir');
      const [first] = node.arguments;
      if (
        first !== undefined &&
        isProcessEnvironment(first) &&
        ENVIRONMENT_WRITING_CALLS.some(([object, method]) =>
          isMemberOf(node.expression, object, method),
        )
      ) {
        report(node, 'writes process.env');
      }
    } else if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      node.operatorToken.kind <= ts.SyntaxKind.LastAssignment &&
      isEnvironmentTarget(node.left)
    ) {
      report(node, 'assigns process.env');
    } else if (ts.isDeleteExpression(node) && isEnvironmentTarget(node.expression)) {
      report(node, 'deletes from process.env');
    } else if (
      (ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) &&
      (node.operator === ts.SyntaxKind.PlusPlusToken ||
        node.operator === ts.SyntaxKind.MinusMinusToken) &&
      isEnvironmentTarget(node.operand)
    ) {
      report(node, 'assigns process.env');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourceFiles(folder: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (
      /\.tsx?$/.test(entry.name) &&
      !/\.test\.tsx?$/.test(entry.name) &&
      !entry.name.endsWith('.d.ts')
    ) {
      files.push(path);
    }
  }
  return files;
}

describe('no shared process state (R28)', () => {
  it('the detector finds every kind of write and ignores reads, comments and strings', () => {
    const writes = [
      "process.chdir('/tmp');",
      "process['chdir'](folder);",
      "process.env.HOME = '/x';",
      "process.env['PATH'] = '';",
      'process.env[name] ??= value;',
      'process.env.COUNT += 1;',
      'process.env = { ...process.env };',
      'delete process.env.TOKEN;',
      "delete process.env['TOKEN'];",
      'Object.assign(process.env, extra);',
      "Object.defineProperty(process.env, 'A', { value: 1 });",
      "Reflect.set(process.env, 'A', '1');",
      "Reflect.deleteProperty(process.env, 'A');",
      'process.env.COUNT++;',
    ];
    for (const write of writes) expect(findSharedStateWrites(write), write).toHaveLength(1);
    const harmless = [
      "const home = process.env.HOME ?? '/';",
      "if (process.env['CI'] === 'true') run();",
      'const copy = { ...process.env, EXTRA: "1" };',
      'Object.assign({}, process.env);',
      "// never process.chdir('/') or process.env.X = 1",
      '/** Never `process.chdir(folder)`; never `delete process.env.X`. */ const x = 1;',
      "const text = 'process.env.HOME = 1';",
      'const cwd = process.cwd();',
      'environment.PATH = process.env.PATH;',
    ];
    for (const line of harmless) expect(findSharedStateWrites(line), line).toEqual([]);
  });

  it('no package source (tests excepted) calls process.chdir or writes process.env', () => {
    const packagesFolder = join(repositoryRoot, 'packages');
    const scanned: string[] = [];
    const found: string[] = [];
    for (const entry of readdirSync(packagesFolder, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const sourceFolder = join(packagesFolder, entry.name, 'src');
      let files: string[];
      try {
        files = sourceFiles(sourceFolder);
      } catch {
        continue; // a package without src/
      }
      for (const file of files) {
        scanned.push(file);
        found.push(
          ...findSharedStateWrites(readFileSync(file, 'utf8'), relative(repositoryRoot, file)),
        );
      }
    }
    expect(scanned.length).toBeGreaterThan(50);
    expect(
      scanned.some((file) => file.endsWith(join('backends', 'src', 'in-process-backend.ts'))),
    ).toBe(true);
    expect(
      found,
      'process.chdir and process.env writes change every in-process member at once: pass a cwd and an environment object instead',
    ).toEqual([]);
  });
});
