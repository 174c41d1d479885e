// No line of src/ is over 140 characters (issue 32, part 6). Biome formats at 120 but does not split string literals
// or comments, so this checks what it leaves: wrap a comment onto more lines, split a long string into '…' + '…' at
// a word boundary. The one exception is a line that is nothing but one string literal, which cannot be split without
// changing the code's shape. Characters are code points: a line of Cyrillic text counts its letters, not its bytes.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..', '..');
const src = join(root, 'src');
const maxLength = 140;

/**
 * Files of src/ whose long lines are not wrapped yet, by their owners' work in progress. This list must only shrink:
 * remove a file once it has no line over the limit (the test says so), never add one. Done when it is empty.
 */
const NOT_YET_WRAPPED = new Set<string>([]);

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? listFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

// One '…' or "…" string, or a `…` template without ${}, alone on its line but for its indent and one of , ; + ).
const singleLiteral = /^\s*(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\$\n]|\\.|\$(?!\{))*`)\s*(?:[,;)]|\+)?$/;

const length = (line: string) => [...line].length;
const rel = (file: string) => relative(root, file).split('\\').join('/');

/** file:line: length of each line over the limit that is not a single string literal */
function longLines(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .flatMap((line, i) =>
      length(line) > maxLength && !singleLiteral.test(line)
        ? [`${rel(file)}:${i + 1}: ${length(line)} characters`]
        : [],
    );
}

t.test('the single-literal exception is narrow', async (t) => {
  for (const line of [
    "    'a long description',",
    '  "it\'s a description" +',
    "  'the last part of a message')",
    '  `a template without substitutions`;',
    "'escaped \\' quote'",
  ])
    t.ok(singleLiteral.test(line), `exempt: ${line}`);
  for (const line of [
    "    description: 'a long description',",
    "  return 'a message';",
    "  f('a message')",
    "  'one' + 'two',",
    "  'a', 'b',",
    '  `with ${a} substitution`,',
    "  'a message'), x",
    "  // 'a comment'",
    "  'unterminated",
  ])
    t.notOk(singleLiteral.test(line), `not exempt: ${line}`);
});

t.test(`no line of src/ is over ${maxLength} characters`, async (t) => {
  const files = listFiles(src);
  const rels = new Set(files.map(rel));
  const over = files.filter((f) => !NOT_YET_WRAPPED.has(rel(f))).flatMap(longLines);
  t.same(over, [], 'wrap the comment or split the string at a word boundary (the value must stay the same)');

  for (const file of NOT_YET_WRAPPED) {
    t.ok(rels.has(file), `${file} of NOT_YET_WRAPPED exists (remove it from the list if it was moved or deleted)`);
    if (rels.has(file))
      t.not(
        longLines(join(root, file)).length,
        0,
        `${file} has long lines still: once wrapped, remove it from NOT_YET_WRAPPED`,
      );
  }
});
