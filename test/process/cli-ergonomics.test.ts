// Phones and pipelines from the terminal: the start banner with a bind QR code (on a terminal only), JSON logs when
// stdout is not a terminal, --port 0 with --port-file, --no-banner, and --https from the CLI.
import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bannerText, cliLogger, firstBindLink, writePortFile } from '../../src/cli/start.js';
import { defaultFixturesPath, loadFixtures } from '../../src/store/fixtures.js';
import { withoutTapHooks } from '../support/process.js';

const server = new URL('../../dist/portal-mock.mjs', import.meta.url).pathname;
const fixtures = loadFixtures(defaultFixturesPath);
const qrBlock = /[▄▀█]{3}/;
const options = { scenario: 'default', seed: 42, data: null, now: null };

t.test('the banner: every address, and a bind QR code of the first demo account at the LAN address', async (t) => {
  const text = await bannerText({
    protocol: 'http',
    port: 4010,
    host: '0.0.0.0',
    options,
    fixtures,
    qr: true,
    lan: ['192.168.1.20'],
  });
  t.match(text, 'http://localhost:4010');
  t.match(text, 'http://192.168.1.20:4010');
  t.match(text, qrBlock, 'a QR code drawn with block characters');
  t.match(text, 'service://bind/?url=http%3A%2F%2F192.168.1.20%3A4010%2Fmobile%2Fbind%2F');
  t.match(text, 'bind as ivan.petrov@romashka.test');
  const plain = await bannerText({
    protocol: 'https',
    port: 4010,
    host: '0.0.0.0',
    options,
    fixtures,
    qr: false,
    lan: ['192.168.1.20'],
    caDir: '/x/ca',
  });
  t.notMatch(plain, qrBlock, 'no QR code when not asked (stdout is not a terminal)');
  t.match(plain, 'https://192.168.1.20:4010');
  t.match(plain, 'local CA:       /x/ca');
  t.match(firstBindLink(fixtures, 'https://h:1'), {
    email: 'ivan.petrov@romashka.test',
    link: /^service:\/\/bind\/\?url=https%3A%2F%2Fh%3A1%2Fmobile%2Fbind%2F/,
  });
});

t.test('logs: readable lines without the per-request ones by default, JSON lines with --log-format json', async (t) => {
  t.same(await cliLogger('info', 'json', false), { level: 'info' }, 'json: pino as it is');
  t.same(await cliLogger('info', 'json', true), { level: 'info' }, 'on a terminal too');
  t.equal(await cliLogger('silent', 'text', true), false);
  const text = await cliLogger('debug', 'text', false);
  t.match(text, { level: 'debug', stream: Object, hooks: { logMethod: Function } });
  // the hook: what is said elsewhere (the journal, the banner) is dropped, the rest goes on
  const kept: unknown[][] = [];
  const method = (...args: unknown[]) => kept.push(args);
  const hook = (text as { hooks: { logMethod: (args: unknown[], m: typeof method) => void } }).hooks.logMethod;
  hook([{ req: {} }, 'incoming request'], method);
  hook([{ res: {} }, 'request completed'], method);
  hook(['Server listening at http://127.0.0.1:3000'], method);
  hook([{ signal: 'SIGTERM' }, 'stopping'], method);
  hook(['scenarios reloaded'], method);
  t.same(kept, [[{ signal: 'SIGTERM' }, 'stopping'], ['scenarios reloaded']]);
  // with --no-banner, the listen line is the one that says the address
  const noBanner = (await cliLogger('info', 'text', false, false)) as typeof text;
  const said: unknown[][] = [];
  const noBannerHook = (noBanner as { hooks: { logMethod: (args: unknown[], m: typeof method) => void } }).hooks;
  noBannerHook.logMethod(['Server listening at http://127.0.0.1:3000'], (...args) => said.push(args));
  noBannerHook.logMethod([{ req: {} }, 'incoming request'], (...args) => said.push(args));
  t.same(said, [['Server listening at http://127.0.0.1:3000']]);
});

t.test('the port file is written whole', async (t) => {
  const file = join(mkdtempSync(join(tmpdir(), 'pm-port-')), 'port');
  writePortFile(file, 41234);
  t.equal(readFileSync(file, 'utf8'), '41234\n');
  // a file where its directory should be: the write's own error, not the clean-up's (which failed the same way)
  t.throws(() => writePortFile(join(file, 'port'), 41234), { code: 'ENOTDIR', syscall: 'open' });
});

// a guard against a hang, not a speed check: with --https the CA's keys are made first, which a busy machine slows
async function waitFor(check: () => boolean, what: () => string, ms = 180_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting: ${what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function collect(child: ChildProcess): { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    err += c.toString();
  });
  return { out: () => out, err: () => err };
}

t.test('a pipeline run: --port 0 --port-file, --https with a CA directory, JSON logs, no QR code', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pm-pipe-'));
  const portFile = join(dir, 'port');
  const caDir = join(dir, 'ca');
  const child = spawn(
    ...withoutTapHooks(process.execPath, [
      server,
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--port-file',
      portFile,
      '--https',
      '--ca-dir',
      caDir,
      '--log-level',
      'info',
      '--log-format',
      'json',
    ]),
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const io = collect(child);
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  await waitFor(
    () => existsSync(portFile),
    () => io.out() + io.err(),
  );
  const port = Number(readFileSync(portFile, 'utf8'));
  t.ok(port > 0, `the chosen port is in the file: ${port}`);
  await waitFor(
    () => io.out().includes('/__admin/fixtures'),
    () => io.out(),
  );
  t.match(io.out(), `https://127.0.0.1:${port}`);
  t.notMatch(io.out(), qrBlock, 'no QR code when stdout is not a terminal');
  const logLine = io
    .out()
    .split('\n')
    .find((l) => l.startsWith('{'));
  t.ok(logLine, 'logs are JSON lines');
  t.match(JSON.parse(logLine ?? '{}'), { level: 30, msg: String });

  const ca = readFileSync(join(caDir, 'portal-mock-ca.pem'), 'utf8');
  const health = await new Promise<number>((resolve, reject) => {
    request(`https://localhost:${port}/__admin/health`, { ca }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .on('error', reject)
      .end();
  });
  t.equal(health, 200, 'answers over TLS to a client trusting the CA created in --ca-dir');
  const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  t.equal(await exit, 0);
});

const script = '/usr/bin/script';
t.test(
  'on a terminal: the bind QR code; --no-banner turns the banner off',
  { skip: existsSync(script) ? false : 'util-linux script is not installed' },
  async (t) => {
    const run = async (extra: string) => {
      const dir = mkdtempSync(join(tmpdir(), 'pm-tty-'));
      const portFile = join(dir, 'port');
      const command = `"${process.execPath}" "${server}" --port 0 --host 0.0.0.0 --port-file "${portFile}" ${extra}`;
      const child = spawn(...withoutTapHooks(script, ['-qfec', command, '/dev/null']), {
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      const io = collect(child);
      const stop = () => {
        if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGTERM');
      };
      t.teardown(stop);
      await waitFor(
        () => existsSync(portFile),
        () => io.out() + io.err(),
      );
      // with the banner, it says the address (its QR code module is loaded on demand); without, the listen line does
      if (extra.includes('--no-banner'))
        await waitFor(
          () => /Server listening/.test(io.out()),
          () => io.out(),
        );
      else
        await waitFor(
          () => /service:\/\/bind\/\?url=\S+\r?\n/.test(io.out()),
          () => io.out(),
        );
      const out = io.out();
      const exit = new Promise((resolve) => child.on('exit', resolve));
      stop();
      await exit;
      return out;
    };
    const withBanner = await run('');
    t.match(withBanner, qrBlock, 'a QR code on a terminal');
    t.match(withBanner, /service:\/\/bind\/\?url=http%3A%2F%2F.*%2Fmobile%2Fbind%2Fbind-/);
    t.notMatch(withBanner, /^\{"level"/m, 'readable logs on a terminal, not JSON');
    t.notMatch(withBanner, /Server listening/, 'the banner says the addresses: no listen line');
    const quiet = await run('--no-banner');
    t.notMatch(quiet, qrBlock);
    t.notMatch(quiet, 'portal-mock is running');
  },
);
