// Starts the built server (node dist/portal-mock.mjs) as a real child process on loopback. Every wait is on what the
// process prints or on its exit, never on a fixed time; the limits are generous guards against a hang.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { waitLimitMs } from './wait.js';

export const serverJs = fileURLToPath(new URL('../../dist/portal-mock.mjs', import.meta.url));

export type Exit = { code: number | null; signal: NodeJS.Signals | null };

export type Child = {
  proc: ChildProcess;
  base: string;
  /** stdout and stderr so far */
  out: () => string;
  /** the exit, once all of the output has been read ('close', not 'exit', which may come before the last output) */
  exited: Promise<Exit>;
  /** Resolves once the output satisfies `test`; rejects if the process ends first. */
  waitForOutput: (test: (out: string) => boolean) => Promise<void>;
};

/**
 * `command args` as a user's shell runs it. tap adds its process-tracking hook to NODE_OPTIONS of every process a test
 * starts, whatever `env` the test passes, and under it a process turns source maps on and sends every module it loads
 * through a loader thread: a start of the server took 1.75 s instead of 1.0 s and held 70 MB more (the CLI test file:
 * 31 s instead of 12). `env -u NODE_OPTIONS` runs the command, and whatever it starts in turn, without the hook.
 */
export function withoutTapHooks(command: string, args: readonly string[] = []): [string, string[]] {
  return ['/usr/bin/env', ['-u', 'NODE_OPTIONS', command, ...args]];
}

// Under setpriv (util-linux) the server gets SIGKILL when the test process dies, even when tap kills a test file
// that timed out before its teardown ran: an orphaned server would go on loading an already busy machine.
const orphanGuard = existsSync('/usr/bin/setpriv') ? ['/usr/bin/setpriv', '--pdeathsig', 'KILL', '--'] : [];

// the banner's address line; the port is whole only when a character follows it (output arrives in chunks)
const listening = /http:\/\/127\.0\.0\.1:(\d+)\D/;

export function start(args: string[], limitMs = waitLimitMs): Promise<Child> {
  const flags = ['--port', '0', '--host', '127.0.0.1', '--log-level', 'silent', ...args];
  // setpriv, then env without tap's hooks, then node: each replaces itself with the next (one process, one pid)
  const [plain, plainArgs] = withoutTapHooks(process.execPath, [serverJs, ...flags]);
  const [command, ...commandArgs] = [...orphanGuard, plain, ...plainArgs];
  const proc = spawn(command!, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const watchers = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const check of watchers) check();
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);
  const exited = new Promise<Exit>((resolve) => proc.on('close', (code, signal) => resolve({ code, signal })));
  const waitForOutput = (test: (out: string) => boolean) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (test(out)) {
          watchers.delete(check);
          resolve();
        }
      };
      watchers.add(check);
      check();
      void exited.then(({ code, signal }) => {
        if (!watchers.delete(check)) return;
        const err = new Error(`server exited (${code ?? signal}) before the awaited output: ${out}`);
        reject(Object.assign(err, { code, out }));
      });
    });
  let gaveUp = false;
  const timer = setTimeout(() => {
    gaveUp = true;
    proc.kill('SIGKILL');
  }, limitMs);
  return waitForOutput((text) => listening.test(text)).then(
    () => {
      clearTimeout(timer);
      return { proc, base: `http://127.0.0.1:${listening.exec(out)![1]}`, out: () => out, exited, waitForOutput };
    },
    (err: Error) => {
      clearTimeout(timer);
      if (!gaveUp) throw err;
      throw Object.assign(new Error(`server did not start within ${limitMs} ms: ${out}`), { code: null, out });
    },
  );
}

/** Runs the server expecting it to refuse to start: its exit code and all of its output. */
export function startFails(args: string[], limitMs = waitLimitMs): Promise<{ code: number | null; out: string }> {
  return start(args, limitMs).then(
    async (c) => {
      c.proc.kill('SIGKILL');
      await c.exited;
      throw new Error('the server started');
    },
    (err: { code?: number | null; out?: string }) => ({ code: err.code ?? null, out: err.out ?? String(err) }),
  );
}

/** The sign-in dance over HTTP: session headers of an account. */
export async function httpSignIn(
  base: string,
  email: string,
  deviceId: string,
  sandbox?: string,
): Promise<Record<string, string>> {
  const sb: Record<string, string> = sandbox ? { 'x-mock-sandbox': sandbox } : {};
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(base + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...sb, ...headers },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<any>;
  };
  const bind = await post('/mobile/manual-bind', { email, password: 'demo1234', device: { id: deviceId } });
  const a = bind.accountSecret;
  const auth = await post(
    '/mobile/auth',
    { secret: a.secret, userId: a.userId, deviceId: a.deviceId },
    { 'x-service-tenant-id': a.tenantId },
  );
  return {
    ...sb,
    'x-service-tenant-id': a.tenantId,
    'x-service-device-id': deviceId,
    'x-service-session-id': auth.sessionId,
    'x-service-session-code': auth.sessionSecret,
  };
}

/** A free loopback port (taken, then released): for a process that must be told its port, or its peers'. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Starts the CLI (ready once its banner names the port) and kills it when the test ends, whatever happens. */
export async function startedFor(t: Test, args: string[], limitMs = waitLimitMs): Promise<Child> {
  const c = await start(args, limitMs);
  t.teardown(() => {
    c.proc.kill('SIGKILL');
  });
  return c;
}
