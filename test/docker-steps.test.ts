// The Dockerfile's run stage without a Docker engine: in a clean directory, install the production dependencies
// only (npm ci --omit=dev), copy dist/ fixtures/ scenarios/ bin/, start the server and ask /__admin/health.
// Proves the image's contents run without dev dependencies. Needs `npm run build` first (npm test does it).
import t from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

t.test('the image contents start and answer health without dev dependencies', { timeout: 180_000 }, async (t) => {
  if (!existsSync(join(root, 'dist/portal-mock.mjs'))) return t.fail('dist/ is missing: run npm run build');
  const dir = mkdtempSync(join(tmpdir(), 'pm-image-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  copyFileSync(join(root, 'package.json'), join(dir, 'package.json'));
  copyFileSync(join(root, 'package-lock.json'), join(dir, 'package-lock.json'));
  const ci = spawnSync('npm', ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: dir, encoding: 'utf8', env: { ...process.env, NODE_ENV: 'production' }, timeout: 150_000,
  });
  t.equal(ci.status, 0, `npm ci --omit=dev: ${ci.stderr.slice(-800)}`);
  if (ci.status !== 0) return;
  for (const d of ['dist', 'fixtures', 'public', 'scenarios', 'bin']) cpSync(join(root, d), join(dir, d), { recursive: true });
  t.notOk(existsSync(join(dir, 'node_modules/typescript')), 'no dev dependencies installed');
  t.notOk(existsSync(join(dir, 'node_modules/tap')), 'no test runner installed');

  const portFile = join(dir, 'port');
  // the image's own command (CMD ["node", ...flags, script])
  const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'))?.[1] ?? '[]') as string[];
  t.equal(cmd[0], 'node', 'the image runs node');
  const child = spawn(process.execPath, [...cmd.slice(1), '--port', '0', '--host', '127.0.0.1', '--port-file', portFile, '--no-banner', '--log-level', 'warn'], {
    cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_ENV: 'production' },
  });
  let err = '';
  child.stderr.on('data', (c: Buffer) => { err += c.toString(); });
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL'); });
  const until = Date.now() + 30_000;
  while (!existsSync(portFile) && child.exitCode === null && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  t.ok(existsSync(portFile), `the server started: ${err.slice(-800)}`);
  if (!existsSync(portFile)) return;
  const port = Number(readFileSync(portFile, 'utf8'));
  const res = await fetch(`http://127.0.0.1:${port}/__admin/health`);
  t.equal(res.status, 200);
  t.match(await res.json(), { status: 'ok' });
  // the Dockerfile's own HEALTHCHECK command
  const check = /HEALTHCHECK[^\n]*\\\n\s*CMD node --no-warnings -e "([^\n]*)"\n/.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'))?.[1];
  t.ok(check, 'the Dockerfile has a HEALTHCHECK running node -e');
  const health = spawnSync(process.execPath, ['--no-warnings', '-e', check ?? 'process.exit(1)'], { env: { ...process.env, PORTAL_MOCK_PORT: String(port) } });
  t.equal(health.status, 0, 'the HEALTHCHECK command succeeds');
  const exit = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  t.equal(await exit, 0, 'SIGTERM stops it cleanly');
});
