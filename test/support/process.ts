// Starts the built server (node dist/portal-mock.mjs) as a real child process on loopback.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const serverJs = fileURLToPath(new URL('../../dist/portal-mock.mjs', import.meta.url));

export type Child = { proc: ChildProcess; base: string; out: () => string; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> };

export function start(args: string[], timeoutMs = 60_000): Promise<Child> {
  const proc = spawn(process.execPath, [serverJs, '--port', '0', '--host', '127.0.0.1', '--log-level', 'silent', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  proc.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { proc.kill('SIGKILL'); reject(new Error(`server did not start: ${out}`)); }, timeoutMs);
    const check = () => {
      const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) { clearTimeout(timer); resolve({ proc, base: `http://127.0.0.1:${m[1]}`, out: () => out, exited }); }
    };
    proc.stdout!.on('data', check);
    void exited.then(({ code }) => { clearTimeout(timer); reject(Object.assign(new Error(`server exited with ${code}: ${out}`), { code, out })); });
  });
}

/** Runs the server expecting it to refuse to start: its exit code and output. */
export function startFails(args: string[], timeoutMs = 60_000): Promise<{ code: number | null; out: string }> {
  return start(args, timeoutMs).then(
    async (c) => { c.proc.kill('SIGKILL'); await c.exited; throw new Error('the server started'); },
    (err: { code?: number | null; out?: string }) => ({ code: err.code ?? null, out: err.out ?? String(err) }),
  );
}

/** The sign-in dance over HTTP: session headers of an account. */
export async function httpSignIn(base: string, email: string, deviceId: string, sandbox?: string): Promise<Record<string, string>> {
  const sb: Record<string, string> = sandbox ? { 'x-mock-sandbox': sandbox } : {};
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...sb, ...headers }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<any>;
  };
  const bind = await post('/mobile/manual-bind', { email, password: 'demo1234', device: { id: deviceId } });
  const a = bind.accountSecret;
  const auth = await post('/mobile/auth', { secret: a.secret, userId: a.userId, deviceId: a.deviceId }, { 'x-service-tenant-id': a.tenantId });
  return { ...sb, 'x-service-tenant-id': a.tenantId, 'x-service-device-id': deviceId, 'x-service-session-id': auth.sessionId, 'x-service-session-code': auth.sessionSecret };
}
