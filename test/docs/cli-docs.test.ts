// The option tables of docs/cli.md and docs/proxy.md against the options' schemas (src/config.ts), so neither drifts:
// every option has one row with its flag, its environment variable and (docs/cli.md) its default, and every row
// names an option. --help is built from the same schemas; each schema carries its help text.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { cliOptions, mcpCliOptions, type CliOption } from '../../src/config.js';

const doc = (name: string) => readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8');

type Row = { flag: string; env: string | undefined; cells: string[] };

/** The rows of the first table after the heading, one per flag (a cell may name two: `--tls-cert` / `--tls-key`). */
function tableAfter(text: string, heading: string): Row[] {
  const start = text.indexOf(`\n${heading}\n`);
  if (start === -1) throw new Error(`no heading "${heading}"`);
  const lines = text.slice(start).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const end = lines.findIndex((l, i) => i > first && !l.startsWith('|'));
  return lines.slice(first + 2, end).flatMap((line) => {
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    const flags = [...cells[0]!.matchAll(/`--([a-z][a-z-]*)/g)].map((m) => m[1]!);
    const envs = [...cells[1]!.matchAll(/PORTAL_MOCK_[A-Z_]+/g)].map((m) => m[0]);
    return flags.map((flag, i) => ({ flag, env: envs[i], cells }));
  });
}

/** The default column as the docs write it: the schema's default, the words for a null one, or a dash for none. */
function documentedDefault(o: CliOption): string[] {
  const value: unknown = o.schema.default;
  if (value === null && o.schema.defaultText) return [o.schema.defaultText];
  if (value === null || value === false || (Array.isArray(value) && value.length === 0)) return ['–', 'none', 'off'];
  return [String(value)];
}

const server = tableAfter(doc('cli.md'), '## Starting it');
const proxy = tableAfter(doc('proxy.md'), '## Flags');
const mcp = tableAfter(doc('cli.md'), '## `portal-mock mcp`: MCP over stdio, for editors');

t.test('every option has one row, with its flag and environment variable; every row is an option', async (t) => {
  const rows = [...server, ...proxy];
  for (const o of cliOptions) {
    const found = rows.filter((r) => r.flag === o.flag);
    t.equal(found.length, 1, `--${o.flag}: one row in docs/cli.md or docs/proxy.md`);
    t.equal(found[0]?.env, o.env, `--${o.flag}: ${o.env}`);
  }
  const flags = new Set(cliOptions.map((o) => o.flag));
  t.same(
    rows.filter((r) => r.flag !== 'help' && !flags.has(r.flag)).map((r) => r.flag),
    [],
    'no row for an option that does not exist',
  );
});

t.test("docs/cli.md's default column is the schema's default", async (t) => {
  for (const row of server) {
    const o = cliOptions.find((c) => c.flag === row.flag);
    if (!o) continue;
    const written = row.cells[2]!.replaceAll('`', '');
    t.ok(documentedDefault(o).includes(written), `--${o.flag}: "${written}", one of ${documentedDefault(o)}`);
  }
  for (const row of proxy) {
    const o = cliOptions.find((c) => c.flag === row.flag);
    if (o && typeof o.schema.default === 'number')
      t.match(row.cells[2], `default ${o.schema.default}`, `--${o.flag}: its default in docs/proxy.md`);
  }
});

t.test("portal-mock mcp's own options: the table in docs/cli.md", async (t) => {
  for (const o of mcpCliOptions) {
    const row = mcp.find((r) => r.flag === o.flag);
    t.equal(row?.env, o.env, `--${o.flag}: ${o.env}`);
    t.ok(row && documentedDefault(o).includes(row.cells[2]!), `--${o.flag}: its default`);
  }
});

t.test('each option carries its help text, and --help adds the default: the text does not restate it', async (t) => {
  for (const o of [...cliOptions, ...mcpCliOptions]) {
    t.match(o.schema.description, /\w/, `--${o.flag} has a description`);
    t.notMatch(o.schema.description, /\(default/, `--${o.flag}: no default written in its description`);
  }
});
