// The structure of src/ as docs/architecture.md states it: every file belongs to a part, every import is one the
// table allows, no two files import each other in a loop, and the admin client imports types only.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..', '..');
const src = join(root, 'src');

type Part = { name: string; prefix: string; mayImport: Set<string> };

/** The table of docs/architecture.md: | part | `src/…` | what | may import |. */
function readParts(): Part[] {
  const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const parts: Part[] = [];
  for (const line of doc.slice(doc.indexOf('## Parts')).split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const path = /^`(src\/[^`]+)`$/.exec(cells[2] ?? '')?.[1];
    if (!path) continue;
    const mayImport = new Set(
      (cells[4] ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter((s) => /^[a-z]+$/.test(s)),
    );
    parts.push({ name: cells[1]!, prefix: path, mayImport });
  }
  return parts;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? listFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

type Import = { from: string; to: string; typeOnly: boolean };

/** Relative imports of a file: static, re-exports, side-effect and literal dynamic imports. */
function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const found: Import[] = [];
  const patterns = [
    /^\s*(import|export)\s+(type\s+)?[^'"]*?\sfrom\s+['"](\.[^'"]+)['"]/gm,
    /^\s*import\s+()()['"](\.[^'"]+)['"]/gm,
    /import\(\s*()()['"](\.[^'"]+)['"]\s*\)/g,
  ];
  for (const re of patterns) {
    for (const m of text.matchAll(re)) {
      const target = resolve(dirname(file), m[3]!).replace(/\.js$/, '.ts');
      found.push({ from: relative(root, file), to: relative(root, target), typeOnly: Boolean(m[2]) });
    }
  }
  return found;
}

const partOf = (parts: Part[], file: string) =>
  parts.find((p) => (p.prefix.endsWith('/') ? file.startsWith(p.prefix) : file === p.prefix));

/** Imports that the table forbids, as "a.ts (part) -> b.ts (part)". */
function forbidden(parts: Part[], imports: Import[]): string[] {
  const bad: string[] = [];
  for (const i of imports) {
    const a = partOf(parts, i.from);
    const b = partOf(parts, i.to);
    if (!a || !b || a === b) continue;
    if (!a.mayImport.has(b.name)) bad.push(`${i.from} (${a.name}) -> ${i.to} (${b.name})`);
  }
  return bad;
}

/** File-level import cycles (strongly connected components with more than one file, or a self-import). */
function cycles(imports: Import[]): string[][] {
  const next = new Map<string, string[]>();
  for (const i of imports) next.set(i.from, [...(next.get(i.from) ?? []), i.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (next.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return found;
}

const parts = readParts();
const files = listFiles(src).map((f) => relative(root, f));
const imports = files.flatMap((f) => importsOf(join(root, f)));

t.test('docs/architecture.md names the parts, and every part it allows exists', async (t) => {
  t.ok(parts.length >= 15, `${parts.length} parts read from the table`);
  const names = new Set(parts.map((p) => p.name));
  for (const p of parts)
    for (const m of p.mayImport) t.ok(names.has(m), `${p.name} may import "${m}", a part of the table`);
});

t.test('every file of src/ belongs to a documented part', async (t) => {
  const orphans = files.filter((f) => !partOf(parts, f));
  t.same(orphans, [], 'files outside every part: add a row to docs/architecture.md');
});

t.test('every import between parts is one the table allows', async (t) => {
  t.ok(imports.length > 300, `${imports.length} imports read`);
  t.same(forbidden(parts, imports), [], 'imports that break the structure');
});

t.test('the checker itself: it reports a route reaching the store and a schema importing the store', async (t) => {
  const planted: Import[] = [
    { from: 'src/routes/people.ts', to: 'src/store/store.ts', typeOnly: true },
    { from: 'src/schemas/common.ts', to: 'src/store/clock.ts', typeOnly: false },
    { from: 'src/domain/people.ts', to: 'src/store/store.ts', typeOnly: false },
  ];
  t.same(forbidden(parts, planted), [
    'src/routes/people.ts (routes) -> src/store/store.ts (store)',
    'src/schemas/common.ts (schemas) -> src/store/clock.ts (store)',
  ]);
  t.same(
    cycles([
      { from: 'a', to: 'b', typeOnly: false },
      { from: 'b', to: 'a', typeOnly: false },
    ]),
    [['a', 'b']],
  );
});

t.test('no import cycle between files of src/', async (t) => {
  t.same(cycles(imports), []);
});

t.test('the admin client imports nothing of the server, so it loads (and type-checks) without it', async (t) => {
  t.ok(
    imports.some((i) => i.from === 'src/client/control.ts'),
    'the client is among the files read',
  );
  // its types are the generated src/client/types.gen.ts (npm run client-types), not the schemas themselves
  t.same(
    imports.filter((i) => i.from.startsWith('src/client/') && !i.to.startsWith('src/client/')).map((i) => i.to),
    [],
  );
});

/**
 * The request-state table of docs/architecture.md: field → the files that write it (one, but for the sandbox, which
 * the first hook of each context that needs one picks).
 */
function readWriters(): Map<string, string[]> {
  const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## The request state'), doc.indexOf('## Parts'));
  const writers = new Map<string, string[]>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const files = [...(cells[2] ?? '').matchAll(/`(src\/[^`]+\.ts)`/g)].map((m) => m[1]!);
    if (files.length === 0) continue;
    for (const m of (cells[1] ?? '').matchAll(/`(\w+)`/g)) writers.set(m[1]!, files);
  }
  return writers;
}

/** Assignments to a field of req.mock in a source text: `req.mock.f = …`, `req.mock.f.x = …`, `req.mock.f++`. */
const writesIn = (text: string) =>
  [...text.matchAll(/\breq\.mock\.(\w+)(?:\.\w+)*\s*(?:=(?![=>])|\+\+|--|[+\-*]=)/g)].map((m) => m[1]!);

t.test('each field of the request state is written only by the file docs/architecture.md names', async (t) => {
  const writers = readWriters();
  t.ok(writers.size >= 10, 'the table lists the fields');
  const bad: string[] = [];
  for (const file of listFiles(src)) {
    const rel = relative(root, file);
    for (const field of writesIn(readFileSync(file, 'utf8'))) {
      if (!writers.get(field)?.includes(rel))
        bad.push(`${rel} writes req.mock.${field} (writers: ${writers.get(field)?.join(', ')})`);
    }
  }
  t.same(bad, []);
  t.same(writesIn('req.mock.auth = x; req.mock.journal.id = 1; if (req.mock.fault === y) {}'), ['auth', 'journal']);
});
