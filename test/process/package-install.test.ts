// The package as a user gets it (it is not on a registry): `npm pack`, install the tarball into a scratch project
// (production dependencies only), start its bin, and start it in-process with startMock from a script and from
// TypeScript. One pack and one install for the whole file. Needs `npm run build` first (npm test does it).
import t from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withoutTapHooks } from '../support/process.js';

const root = new URL('../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'pm-pack-'));
const project = join(dir, 'scratch');
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// npm install fetches hundreds of packages and each step starts a server: far more than tap's default on a busy machine.
// The limits below only stop a run that hangs; every wait ends as soon as what it waits for happens.
t.setTimeout(30 * 60_000);
const minutes = (n: number) => n * 60_000;

/** Starts a server command on port 0 with --port-file; its base URL once it listens (undefined, after a failed assertion, when it does not). */
async function startServer(
  t: { ok: (v: unknown, m: string) => unknown; teardown: (fn: () => unknown) => void },
  command: string,
  args: string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv },
) {
  const portFile = join(mkdtempSync(join(dir, 'run-')), 'port');
  const child = spawn(
    ...withoutTapHooks(command, [
      ...args,
      ...['--port', '0', '--host', '127.0.0.1', '--port-file', portFile, '--no-banner', '--log-level', 'warn'],
    ]),
    { ...opts, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stderr.on('data', (d: Buffer) => {
    out += d.toString();
  });
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const until = Date.now() + minutes(3);
  while (!existsSync(portFile) && child.exitCode === null && Date.now() < until) await sleep(100);
  t.ok(existsSync(portFile), `started: ${out}`);
  if (!existsSync(portFile)) return undefined;
  const port = readFileSync(portFile, 'utf8').trim();
  return { child, port, base: `http://127.0.0.1:${port}` };
}

t.before(() => {
  // the build is already there (npm test builds first): pack it as it is instead of building again
  const pack = spawnSync(...withoutTapHooks('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir]), {
    cwd: root,
    encoding: 'utf8',
    timeout: minutes(5),
  });
  if (pack.status !== 0) throw new Error(`npm pack: ${pack.stderr}`);
  const [packed] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  writeFileSync(join(dir, 'files.json'), JSON.stringify(packed!.files.map((f) => f.path)));
  mkdirSync(project);
  // a project as a user has it: nothing added for portal-mock (no overrides), so npm's warnings are the package's own
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
  const install = spawnSync(
    ...withoutTapHooks('npm', ['install', join(dir, packed!.filename), '--no-audit', '--no-fund', '--prefer-offline']),
    { cwd: project, encoding: 'utf8', timeout: minutes(15) },
  );
  writeFileSync(join(dir, 'install.log'), `${install.status}\n${install.stderr}`);
});

t.test(
  'the tarball holds the build, not the sources; it installs without engine warnings or dev dependencies',
  async (t) => {
    const files = JSON.parse(readFileSync(join(dir, 'files.json'), 'utf8')) as string[];
    for (const f of [
      'bin/portal-mock.js',
      'dist/portal-mock.mjs',
      'dist/start-mock.mjs',
      'dist/start-mock.d.ts',
      'dist/mock-options.gen.d.ts',
      'dist/start-server.mjs',
      'dist/start-server.d.ts',
      'dist/client/control.js',
      'fixtures/tenants.json',
      'public/console.html',
      'scenarios/flaky.json',
      'openapi.json',
      'openapi.admin.json',
      'docs/findings.md', // the MCP resource portal-mock://findings reads each code's explanation from it
    ])
      t.ok(files.includes(f), `packed: ${f}`);
    t.notOk(
      files.some((f) => f.startsWith('src/') || f.startsWith('test/')),
      'no sources or tests',
    );
    // the bundle's source map alone was 6.8 MB, and the maps point at sources the package does not hold
    t.same(
      files.filter((f) => f.endsWith('.map') || f === 'dist/capture-examples.mjs'),
      [],
      'no source map, no build-time tool',
    );
    const [status, ...log] = readFileSync(join(dir, 'install.log'), 'utf8').split('\n');
    t.equal(status, '0', `npm install <tarball>: ${log.join('\n').slice(-800)}`);
    t.notMatch(log.join('\n'), /EBADENGINE/, 'no engine warning');
    t.notOk(existsSync(join(project, 'node_modules/typescript')), 'no dev dependency installed');
  },
);

t.test(
  'the installed bin starts on port 0 with --port-file, answers health and stops on SIGTERM',
  { timeout: minutes(5) },
  async (t) => {
    const started = await startServer(t, join(project, 'node_modules/.bin/portal-mock'), [], { cwd: project });
    if (!started) return;
    const { child, base } = started;
    const health = await fetch(`${base}/__admin/health`);
    t.equal(health.status, 200);
    const consolePage = await fetch(`${base}/__admin`);
    t.match(await consolePage.text(), /<title>portal-mock console<\/title>/, 'the console page ships in the package');
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    t.equal(await exited, 0, 'a clean stop');
  },
);

t.test(
  "the image's run stage on the installed package: the Dockerfile's CMD starts it, its HEALTHCHECK passes",
  { timeout: minutes(5) },
  async (t) => {
    // What the image holds is what the tarball holds, with production dependencies only: run the image's own commands
    // there instead of installing again (no Docker engine is needed).
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)?.[1] ?? '[]') as string[];
    t.equal(cmd[0], 'node', 'the image runs plain node');
    const installed = join(project, 'node_modules/portal-mock');
    const env = { ...process.env, NODE_ENV: 'production' };
    const started = await startServer(t, process.execPath, cmd.slice(1), { cwd: installed, env });
    if (!started) return;
    const { child, port } = started;
    const check = /HEALTHCHECK[^\n]*\\\n\s*CMD node --no-warnings -e "([^\n]*)"\n/.exec(dockerfile)?.[1];
    t.ok(check, 'the Dockerfile has a HEALTHCHECK running node -e');
    const health = spawnSync(
      ...withoutTapHooks(process.execPath, ['--no-warnings', '-e', check ?? 'process.exit(1)']),
      {
        env: { ...env, PORTAL_MOCK_PORT: port },
      },
    );
    t.equal(health.status, 0, 'the HEALTHCHECK command succeeds');
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    t.equal(await exited, 0, 'SIGTERM stops it cleanly');
  },
);

t.test(
  'the pipeline snippet of docs/testing-with-portal-mock.md runs as written in the project: starts, waits for health, stops',
  { timeout: minutes(8) },
  async (t) => {
    const page = 'docs/testing-with-portal-mock.md';
    const block = /<!-- pipeline[^\n]*\n```sh\n([\s\S]*?)```/.exec(readFileSync(join(root, page), 'utf8'))?.[1];
    t.ok(block, `${page} has the pipeline block`);
    if (!block) return;
    t.notMatch(block, /\$PORT\b/, 'no unset $PORT');
    const bash = spawnSync(...withoutTapHooks('bash', ['-eo', 'pipefail', '-c', `${block}\necho "$MOCK"`]), {
      cwd: project,
      encoding: 'utf8',
      timeout: minutes(3),
    });
    t.equal(bash.status, 0, `the snippet succeeds: ${bash.stderr.slice(-800)}`);
    const mock = bash.stdout.trim().split('\n').at(-1) ?? '';
    t.match(mock, /^http:\/\/127\.0\.0\.1:\d+$/);
    let answering = true;
    const until = Date.now() + minutes(2);
    while (answering && Date.now() < until) {
      answering = await fetch(`${mock}/__admin/health`, { signal: AbortSignal.timeout(5000) }).then(
        () => true,
        () => false,
      );
      if (answering) await sleep(100);
    }
    t.notOk(answering, 'kill $MOCK_PID stopped the server');
  },
);

t.test(
  'startMock from the installed package: a script and a type-checked TypeScript file',
  { timeout: minutes(8) },
  async (t) => {
    const script = `import { startMock } from 'portal-mock';
const mock = await startMock({ seed: 7, scenario: 'two-factor-required', now: '2026-03-02T09:00:00Z' });
const health = await mock.admin.health();
const suite = mock.admin.sandbox('suite-1');
const asked = await fetch(mock.url + '/mobile/request-two-factor', { method: 'POST', headers: { 'content-type': 'application/json', 'x-mock-sandbox': 'suite-1' }, body: JSON.stringify({ email: 'olga.smirnova@romashka.test', password: 'demo1234' }) });
const code = await suite.outbox.lastTwoFactorCode('olga.smirnova@romashka.test');
const sandboxes = (await mock.admin.sandboxes.list()).map((s) => s.name).sort();
await suite.sandboxes.delete('suite-1');
await mock.close();
const server = await (await import('portal-mock/server')).startMock({ seed: 8 });
const injected = (await server.app.inject({ url: '/__admin/health' })).json().seed;
await server.close();
console.log(JSON.stringify({ url: mock.url, seed: health.seed, scenario: health.scenario, status: asked.status, code, sandboxes, injected, keys: Object.keys(mock).sort() }));
`;
    writeFileSync(join(project, 'use.mjs'), script);
    const run = spawnSync(...withoutTapHooks(process.execPath, ['use.mjs']), {
      cwd: project,
      encoding: 'utf8',
      timeout: minutes(3),
    });
    t.equal(run.status, 0, `node use.mjs exits 0: ${run.stderr.slice(-800)}`);
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    t.match(result, {
      url: /^http:\/\/127\.0\.0\.1:\d+$/,
      seed: 7,
      scenario: 'two-factor-required',
      status: 200,
      code: /^\d{6}$/,
      sandboxes: ['default', 'suite-1'],
      injected: 8, // portal-mock/server's startMock, with the Fastify instance
      keys: ['admin', 'close', 'url'],
    });

    // the shipped types: the same calls in TypeScript, checked with this repository's compiler against the installed package
    writeFileSync(
      join(project, 'use.ts'),
      `import { startMock, type RunningMock } from 'portal-mock';
import { adminClient } from 'portal-mock/admin';
import { buildApp, startMock as startServer } from 'portal-mock/server';
const mock: RunningMock = await startMock({ port: 0, seed: 7, scenario: 'flaky', now: '2026-03-02T09:00:00Z' });
const seed: number = (await mock.admin.health()).seed;
const code: string | null = await adminClient({ baseUrl: mock.url, sandbox: 'x' }).outbox.lastTwoFactorCode('a@b.test');
await mock.close();
const server = await startServer({ seed: 7 });
const status: number = (await server.app.inject({ url: '/__admin/health' })).statusCode;
await server.close();
const app = await buildApp({ seed: 8 });
await app.close();
export { seed, code, status };
`,
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        files: ['use.ts'],
      }),
    );
    const tsc = spawnSync(
      ...withoutTapHooks(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', project]),
      {
        cwd: project,
        encoding: 'utf8',
        timeout: minutes(3),
      },
    );
    t.equal(tsc.status, 0, `tsc: ${tsc.stdout.slice(-1500)}`);
  },
);
