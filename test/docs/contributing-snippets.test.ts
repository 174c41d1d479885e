// The code of docs/contributing.md compiles against today's src/: every ```ts block is written to its own file in
// test/.snippets/ (so its imports '../../src/…' and '../helper.js' resolve as the page says) and type-checked with
// the options of tsconfig.json, together with src/ (whose declarations, e.g. Fastify's request fields, the blocks
// rely on). A block that names something src/ no longer has fails here, listing the diagnostics of each block.
// src/ itself is checked again with the blocks only when a block can change its types (a script's globals, `declare
// global`, `declare module`): `tsc --noEmit` checks it without them, and checking it all took most of this file's
// 13 s of CPU.
import t from 'tap';
import { mkdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const page = 'docs/contributing.md';
const dir = join(root, 'test', '.snippets');

/** Every ```ts block of a Markdown text, with the line its code starts on. */
function tsBlocks(markdown: string): Array<{ line: number; code: string }> {
  const blocks: Array<{ line: number; code: string }> = [];
  const re = /^[ \t]*```ts[ \t]*\n([\s\S]*?)^[ \t]*```[ \t]*$/gm;
  for (let m = re.exec(markdown); m; m = re.exec(markdown)) {
    blocks.push({ line: markdown.slice(0, m.index).split('\n').length + 1, code: m[1] ?? '' });
  }
  return blocks;
}

/** A block that can change the types of the files beside it: a script (no import or export) or an augmentation. */
const reachesOtherFiles = (code: string) =>
  !/^\s*(import|export)\b/m.test(code) || /\bdeclare\s+(global|module)\b/.test(code);

/**
 * Type-checks `files` with src/ under tsconfig.json's options (noEmit): the diagnostics by file name, of `files`
 * only, or of every file when `everyFile`.
 */
function typeCheck(files: string[], everyFile: boolean): Map<string, string[]> {
  const configPath = join(root, 'tsconfig.json');
  const read = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, root, { noEmit: true }, configPath);
  if (parsed.errors.length) throw new Error(ts.formatDiagnostics(parsed.errors, ts.createCompilerHost({})));
  const src = parsed.fileNames.filter((f) => relative(root, f).startsWith(`src${'/'}`));
  const program = ts.createProgram({ rootNames: [...src, ...files], options: { ...parsed.options, noEmit: true } });
  const found = new Map<string, string[]>();
  const diagnostics = everyFile
    ? ts.getPreEmitDiagnostics(program)
    : [
        ...program.getOptionsDiagnostics(),
        ...program.getGlobalDiagnostics(),
        ...files.flatMap((f) => ts.getPreEmitDiagnostics(program, program.getSourceFile(f))),
      ];
  for (const d of diagnostics) {
    const file = d.file ? relative(root, d.file.fileName) : '(no file)';
    const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    const text = `${at ? `${at.line + 1}:${at.character + 1} ` : ''}TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    found.set(file, [...(found.get(file) ?? []), text]);
  }
  return found;
}

t.test(`every ts block of ${page} type-checks against src/`, async (t) => {
  const blocks = tsBlocks(readFileSync(join(root, page), 'utf8'));
  t.ok(blocks.length >= 5, `the page has its code blocks (${blocks.length})`);
  mkdirSync(dir, { recursive: true });
  const name = (label: string) => join(dir, `${process.pid}-${label}.ts`);
  const files = blocks.map((b) => name(`line-${b.line}`));
  // a control block naming what src/ does not have: it must fail, or this test would pass on anything
  const broken = name('broken');
  t.teardown(() => {
    for (const f of [...files, broken]) rmSync(f, { force: true });
    try {
      rmdirSync(dir); // only when no other run left files in it
    } catch {}
  });
  for (const [i, b] of blocks.entries()) writeFileSync(files[i]!, b.code);
  writeFileSync(
    broken,
    "import { callerArgs, noSuchHelper } from '../../src/routes/handler.js';\nexport const x = [callerArgs, noSuchHelper];\n",
  );

  const everyFile = blocks.some((b) => reachesOtherFiles(b.code));
  const found = typeCheck([...files, broken], everyFile);
  blocks.forEach((b, i) => {
    const problems = found.get(relative(root, files[i]!)) ?? [];
    t.same(
      problems,
      [],
      `the block at ${page}:${b.line} compiles${problems.length ? `:\n${problems.join('\n')}` : ''}`,
    );
  });
  const brokenProblems = found.get(relative(root, broken)) ?? [];
  t.match(brokenProblems.join('\n'), /TS2305.*noSuchHelper/, 'a block naming what src/ lacks fails, naming it');
  const elsewhere = [...found].filter(([f]) => !f.startsWith(`test${'/'}.snippets`));
  t.same(elsewhere, [], `and nothing else fails to compile with the blocks (${everyFile ? 'src/ checked' : 'global'})`);
});

t.test('a block that can change the types of other files is told apart', async (t) => {
  t.notOk(reachesOtherFiles("import { x } from '../../src/a.js';\nexport const y = x;"), 'a module');
  t.ok(reachesOtherFiles('const y = 1;'), 'a script: its declarations are global');
  t.ok(reachesOtherFiles("import 'fastify';\ndeclare module 'fastify' { interface FastifyRequest { x: 1 } }"));
  t.ok(reachesOtherFiles('export {};\ndeclare global { var x: number }'));
});
