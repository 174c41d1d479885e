// The typed client keeps its types (issue 34, part 5): snippets importing the built declarations of
// `portal-mock/admin` (dist/client/control.d.ts, what users get) are type-checked with the options of tsconfig.json,
// as test/docs/contributing-snippets.test.ts does for the docs. A misspelt method after `sandbox(name)` must be an
// error: if `sandbox` answered `any` again, the broken snippet would compile and this test would fail.
import t from 'tap';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { shippedScenarioNames } from '../../src/schemas/scenario-names.js';
import { JournalCleared, JournalCount } from '../../src/schemas/control-answers.js';
import { generateClientTypes, generatedFile } from '../../scripts/client-types.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = join(root, 'test', '.client-types');

/**
 * Source files parsed once for every program of this file (TypeScript's lib files, @types/node, dist's declarations
 * and the snippets, none of which change while it runs): each program parsed them again, lib.dom.d.ts among them. A
 * parse depends on the file and on the parse options TypeScript passes, so both are the key.
 */
const parsed = new Map<string, ts.SourceFile | undefined>();
function cachingHost(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersionOrOptions, onError, shouldCreate) => {
    const how =
      typeof languageVersionOrOptions === 'object'
        ? [
            languageVersionOrOptions.languageVersion,
            languageVersionOrOptions.impliedNodeFormat,
            languageVersionOrOptions.jsDocParsingMode,
          ]
        : [languageVersionOrOptions];
    const key = `${fileName}\0${how.join()}`;
    if (!parsed.has(key)) parsed.set(key, getSourceFile(fileName, languageVersionOrOptions, onError, shouldCreate));
    return parsed.get(key);
  };
  return host;
}

/** Type-checks `files` alone (what they import is followed) under tsconfig.json's options: diagnostics by file. */
function typeCheck(files: string[]): Map<string, string[]> {
  const configPath = join(root, 'tsconfig.json');
  const read = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const config = ts.parseJsonConfigFileContent(read.config, ts.sys, root, { noEmit: true }, configPath);
  const options = { ...config.options, noEmit: true };
  const program = ts.createProgram({ rootNames: files, options, host: cachingHost(options) });
  const found = new Map<string, string[]>();
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const file = d.file ? relative(root, d.file.fileName) : '(no file)';
    const text = `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    found.set(file, [...(found.get(file) ?? []), text]);
  }
  return found;
}

const header = "import { adminClient, type AdminClient } from '../../dist/client/control.js';\n";
const snippets = {
  good: `${header}
const admin: AdminClient = adminClient({ baseUrl: 'http://127.0.0.1:3000' });
export async function use() {
  const other: AdminClient = admin.sandbox('y');
  await other.scenario.set('expired-session');
  await other.scenario.set('my-own-scenario'); // a custom scenario's name compiles too
  await admin.sandboxes.create('z', { scenario: 'offline' });
  const entries = await other.requests.assert({ operationId: 'mobileAuth', status: 200, times: 1 });
  const status: number | undefined = entries[0]?.status;
  const n: number = await other.requests.count({ path: '/mobile/*' });
  const expired: number = await other.sessions.expire();
  const { deleted }: { deleted: string[] } = await admin.sandboxes.deleteAll({ prefix: 'ci-' });
  const pushes: number = (await admin.notifications.send({ email: 'a@b.test', title: 'hi' })).pushes;
  const users = admin.records('tenant-id', 'users');
  const boss: boolean | undefined = (await users.list({ isBoss: true, limit: 5 })).records[0]?.isBoss;
  const text: string = (await users.patch('user-id', { statusText: 'On leave' })).statusText;
  const made = await other.data.users.create({ twoFactor: true });
  const twoFactor: boolean | undefined = made.records[0]?.twoFactor;
  const jobs = made.dependents.employments?.map((e) => e.position);
  const ideas = await admin.data.tenant('another-tenant').ideas.createMany(3);
  return [status, n, expired, deleted, pushes, boss, text, twoFactor, jobs, ideas];
}
`,
  misspelt: `${header}
export const x = adminClient({ baseUrl: 'http://x' }).sandbox('y').scenario.sett('x');
`,
  nested: `${header}
export const x = adminClient({ baseUrl: 'http://x' }).sandbox('a').sandbox('b').requests.asert({ times: 1 });
`,
  answer: `${header}
export const f = async () => {
  const s: string = (await adminClient({ baseUrl: 'http://x' }).sandbox('y').sessions.expire());
  return s;
};
`,
  filter: `${header}
export const x = adminClient({ baseUrl: 'http://x' }).requests.assert({ operationID: 'mobileAuth', times: 1 });
`,
  collection: `${header}
export const x = adminClient({ baseUrl: 'http://x' }).records('t', 'userz');
`,
  dataCollection: `${header}
export const x = adminClient({ baseUrl: 'http://x' }).data.userz.list();
`,
  dataField: `${header}
export const x = adminClient({ baseUrl: 'http://x' }).sandbox('y').data.users.create({ twoFactr: true });
`,
  record: `${header}
export const x = adminClient({ baseUrl: 'http://x' }).records('t', 'users').patch('id', { isBoss: 'yes' });
`,
};

const start = "import { startMock, type MockOptions, type RunningMock } from '../../dist/start-mock.js';\n";
const server = "import { startMock as startServer } from '../../dist/start-server.js';\n";
const startSnippets = {
  good: `${start}${server}
const options: MockOptions = { seed: 7, now: '2026-03-02T09:00:00Z', logLevel: 'warn', logger: false, users: 50 };
export async function use() {
  const mock: RunningMock = await startMock(options);
  const seed: number = (await mock.admin.health()).seed;
  const url: string = mock.url;
  await mock.close();
  const withApp = await startServer({ seed: 7 });
  const status: number = (await withApp.app.inject({ url: '/__admin/health' })).statusCode;
  await withApp.close();
  return [seed, url, status];
}
`,
  option: `${start}export const m = startMock({ sed: 7 });\n`,
  level: `${start}export const m = startMock({ logLevel: 'loud' });\n`,
  app: `${start}export const f = async () => (await startMock()).app;\n`,
};

/**
 * The snippets of the two tests below that compile against dist's declarations (the client's, startMock's), written
 * and type-checked together, once: one program instead of two, each of which loaded and checked the lib files,
 * @types/node and the declarations. Every snippet is a module of its own, so one cannot change another's diagnostics.
 */
type SnippetName = keyof typeof snippets | `start-${keyof typeof startSnippets}`;
let snippetsChecked: { files: Record<SnippetName, string>; found: Map<string, string[]> } | undefined;
function checked() {
  if (snippetsChecked) return snippetsChecked;
  mkdirSync(dir, { recursive: true });
  const all = {
    ...snippets,
    ...Object.fromEntries(Object.entries(startSnippets).map(([name, code]) => [`start-${name}`, code])),
  };
  const files = Object.fromEntries(
    Object.entries(all).map(([name, code]) => {
      const file = join(dir, `${process.pid}-${name}.ts`);
      writeFileSync(file, code);
      return [name, file];
    }),
  ) as Record<SnippetName, string>;
  t.teardown(() => {
    for (const f of Object.values(files)) rmSync(f, { force: true });
    try {
      rmdirSync(dir); // only when no other run left files in it
    } catch {}
  });
  snippetsChecked = { files, found: typeCheck(Object.values(files)) };
  return snippetsChecked;
}

t.test('dist/client/control.d.ts: sandbox(name) keeps the client type; answers are typed', async (t) => {
  if (!existsSync(join(root, 'dist/client/control.d.ts'))) {
    t.fail('dist/client/control.d.ts is missing: run npm run build first');
    return;
  }
  const declarations = readFileSync(join(root, 'dist/client/control.d.ts'), 'utf8');
  const code = declarations.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  t.notMatch(code, /\bany\b/, 'the emitted declarations name no `any`');
  t.match(declarations, /sandbox\(name: string\): AdminClient;/, 'sandbox(name) answers AdminClient');

  const { files, found } = checked();
  const of = (name: keyof typeof snippets) => (found.get(relative(root, files[name])) ?? []).join('\n');
  t.equal(of('good'), '', 'correct use compiles');
  t.match(of('misspelt'), /TS2551: Property 'sett' does not exist/, "admin.sandbox('y').scenario.sett() fails");
  t.match(of('nested'), /TS2551: Property 'asert' does not exist/, 'so does a misspelt call two sandboxes down');
  t.match(of('answer'), /TS2322: Type 'number' is not assignable to type 'string'/, 'answers have their types');
  t.match(of('filter'), /TS2561.*operationID/, 'the journal filter is checked');
  t.match(of('collection'), /TS2345.*"userz"/, 'records(): the collection is one of the records API');
  t.match(
    of('record'),
    /TS2322: Type 'string' is not assignable to type 'boolean( \| undefined)?'/,
    "a record's fields are typed",
  );
  t.match(of('dataCollection'), /TS2551: Property 'userz' does not exist/, 'data.<collection> is checked');
  t.match(of('dataField'), /TS2561.*twoFactr/, "and a factory's fields are the record's");
  const elsewhere = [...found].filter(([f]) => !f.startsWith(`test${'/'}.client-types`));
  t.same(elsewhere, [], 'and nothing else fails to compile');
});

t.test('the scenario names of the client are the files of scenarios/', async (t) => {
  const onDisk = readdirSync(join(root, 'scenarios'))
    .filter((f) => f.endsWith('.json') && f !== 'scenario.schema.json') // the files' JSON Schema is no scenario
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
  t.same([...shippedScenarioNames].sort(), onDisk, 'src/schemas/scenario-names.ts lists every shipped scenario');
});

t.test('the journal answers the client types are taken from are what the routes declare', async (t) => {
  // the journal routes declare these inline (another change owns them): the API document must show the same record
  const doc = JSON.parse(readFileSync(join(root, 'openapi.admin.json'), 'utf8'));
  const schema = (path: string, method: string) =>
    doc.paths[path][method].responses['200'].content['application/json'].schema;
  const plain = (x: unknown) => JSON.parse(JSON.stringify(x));
  t.same(schema('/__admin/requests/count', 'get'), plain(JournalCount));
  t.same(schema('/__admin/requests', 'delete'), plain(JournalCleared));
});

t.test('src/client/types.gen.ts is what `npm run client-types` makes of the schemas now', async (t) => {
  t.ok(readFileSync(generatedFile, 'utf8') === generateClientTypes(), 'the generated types are current');
});

/**
 * The declaration files a program rooted at `entry` loads (TypeScript's own lib files left out), and its problems;
 * once an entry (two tests read the client's).
 */
const declarations = new Map<string, { all: string[]; ours: string[]; problems: string[] }>();
function declarationsOf(entry: string) {
  const known = declarations.get(entry);
  if (known) return known;
  const options = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
    noEmit: true,
  };
  const program = ts.createProgram({ rootNames: [join(root, entry)], options, host: cachingHost(options) });
  const all = program.getSourceFiles().map((f) => relative(root, f.fileName));
  const found = {
    all,
    ours: all.filter((f) => !f.includes('node_modules/typescript/lib/')).sort(),
    problems: ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' ')),
  };
  declarations.set(entry, found);
  return found;
}

t.test("the client's declarations load nothing of the server, TypeBox or Fastify", async (t) => {
  const client = declarationsOf('dist/client/control.d.ts');
  t.same(client.ours, ['dist/client/control.d.ts', 'dist/client/types.gen.d.ts'], 'two declaration files');
  t.same(client.problems, []);
});

t.test(
  "startMock's declarations (the package's main entry) load the client's rule: no server, TypeBox or Fastify",
  async (t) => {
    // issue 56, part 5: the entry re-exported src/app.ts, so a test importing startMock read 464 files (Fastify, pino,
    // TypeBox, ajv and the server's own) where one importing the client read 165
    const main = declarationsOf('dist/start-mock.d.ts');
    const client = declarationsOf('dist/client/control.d.ts');
    t.same(main.problems, []);
    t.same(
      main.ours,
      [
        'dist/client/control.d.ts',
        'dist/client/types.gen.d.ts',
        'dist/mock-options.gen.d.ts',
        'dist/start-mock.d.ts',
        'dist/version.d.ts',
      ],
      "five declaration files: the entry, its options, the version and the client's two",
    );
    t.same(
      main.all.filter((f) => /node_modules\/(fastify|@fastify|pino|@sinclair|ajv)\//.test(f)),
      [],
      'nothing of Fastify, pino, TypeBox or ajv',
    );
    t.ok(
      main.all.length <= client.all.length * 1.1,
      `as many files as the client's, within 10%: ${main.all.length} against ${client.all.length}`,
    );
  },
);

t.test(
  'startMock is typed by MockOptions and RunningMock: a misspelt option or mock.app does not compile',
  async (t) => {
    const { files, found } = checked();
    const of = (name: keyof typeof startSnippets) =>
      (found.get(relative(root, files[`start-${name}`])) ?? []).join('\n');
    t.equal(of('good'), '', 'correct use compiles, portal-mock/server with its app too');
    t.match(of('option'), /TS2561.*'sed'.*Did you mean to write 'seed'\?/, 'a misspelt option names the closest one');
    t.match(of('level'), /TS2322.*"loud"/, 'an option has the type of its schema');
    t.match(of('app'), /TS2339: Property 'app' does not exist/, 'RunningMock has no app (portal-mock/server has)');
    const elsewhere = [...found].filter(([f]) => !f.startsWith(`test${'/'}.client-types`));
    t.same(elsewhere, [], 'and nothing else fails to compile');
  },
);
