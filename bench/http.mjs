// What every benchmark script needs to talk to a mock over loopback: a free port, one HTTP call, waiting for a server
// to answer, the sign-in sequence autocannon drives, and the median they all report.
import { spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { setPriority } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A port nothing listens on now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** One HTTP call; resolves { status, headers, bytes, body }. `agent`: a keep-alive agent, as a test client holds. */
export function call(port, method, path, headers = {}, body = undefined, agent = undefined) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: {
          ...headers,
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          resolve({ status: res.statusCode, headers: res.headers, bytes, body: bytes.toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The demo tenant of the fixtures, and its admin, as every benchmark signs in. */
export const romashka = {
  tenantId: '7d3f9a2e-5b1c-4e8a-9f60-2c4b8d1e0a01',
  demo: { email: 'ivan.petrov@romashka.test', password: 'demo1234', userId: 'a1000000-0000-4000-8000-000000000001' },
  /** the admin's bound demo device: POST /mobile/auth with it opens a session without binding */
  device: {
    secret: 'demo-device-secret-1',
    userId: 'a1000000-0000-4000-8000-000000000001',
    deviceId: 'demo-device-romashka',
  },
  apiKey: { 'x-service-client-id': 'romashka-integration', 'x-service-client-secret': 'romashka-secret-0001' },
};

let devicesMade = 0;
/**
 * The sign-in pair (manual-bind, then auth) as autocannon requests for one demo account. autocannon gives each
 * sequence a fresh context, so a device id kept there would bind a new device every sequence and the tenant's devices
 * and sessions would grow by the thousand: a sequence borrows an id from a pool and gives it back after its auth (at
 * most one per connection; a rebind replaces the device's sessions). `newDevices`: a new device every time, as a
 * pipeline that binds one per job.
 */
export function signInRequests({ email, password, userId, tenantId }, { newDevices = false } = {}) {
  const free = [];
  return [
    {
      method: 'POST',
      path: '/mobile/manual-bind',
      headers: { 'content-type': 'application/json' },
      setupRequest: (req, ctx) => {
        ctx.deviceId = (newDevices ? undefined : free.pop()) ?? `bench-device-${devicesMade++}`;
        const device = { id: ctx.deviceId, platform: 'ios' };
        return { ...req, body: JSON.stringify({ email, password, device }) };
      },
      onResponse: (status, body, ctx) => {
        if (status === 200) ctx.accountSecret = JSON.parse(body).accountSecret;
      },
    },
    {
      method: 'POST',
      path: '/mobile/auth',
      headers: { 'content-type': 'application/json', 'x-service-tenant-id': tenantId },
      setupRequest: (req, ctx) => ({
        ...req,
        body: JSON.stringify({ secret: ctx.accountSecret?.secret ?? 'x', userId, deviceId: ctx.deviceId }),
      }),
      onResponse: (_status, _body, ctx) => free.push(ctx.deviceId),
    },
  ];
}

/** The headers of a session of the demo admin on its bound device (POST /mobile/auth, no binding). */
export async function demoSession(port) {
  const { tenantId, device } = romashka;
  const res = await call(port, 'POST', '/mobile/auth', { 'x-service-tenant-id': tenantId }, device);
  if (res.status !== 200) throw new Error(`auth: ${res.status} ${res.body}`);
  const { sessionId, sessionSecret } = JSON.parse(res.body);
  return {
    'x-service-tenant-id': tenantId,
    'x-service-device-id': device.deviceId,
    'x-service-session-id': sessionId,
    'x-service-session-code': sessionSecret,
  };
}

/**
 * Starts the bin of the checkout at `root` on a free port, with `extra` flags, and waits for its health route: the
 * readiness signal, no fixed sleep. `stderr()` is the last 4,000 characters the process wrote there.
 */
export async function startBin(root, extra = []) {
  const port = await freePort();
  const args = ['--port', String(port), '--host', '127.0.0.1', '--log-level', 'warn', '--no-banner', ...extra];
  // BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/p': node flags for the mock, to profile what a bench runs
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const bin = join(resolve(root), 'bin', 'portal-mock.js');
  const proc = spawn(process.execPath, [...nodeArgs, bin, ...args], {
    cwd: resolve(root),
    // BENCH_MOCK_STDOUT=FILE keeps what the mock writes there (with BENCH_NODE_ARGS='--trace-gc': its collections)
    stdio: ['ignore', process.env.BENCH_MOCK_STDOUT ? openSync(process.env.BENCH_MOCK_STDOUT, 'w') : 'ignore', 'pipe'],
  });
  // BENCH_MOCK_PRIORITY=0 under `nice -n 19 node bench/…`: the mock at normal priority, the client that loads it
  // below, so that on a machine of two cores the mock's delays are its own, not the client's CPU (needs root)
  if (process.env.BENCH_MOCK_PRIORITY !== undefined) setPriority(proc.pid, Number(process.env.BENCH_MOCK_PRIORITY));
  let tail = '';
  proc.stderr.on('data', (c) => {
    tail = (tail + c).slice(-4000);
  });
  const stderr = () => tail;
  await waitUntilUp(port, proc, `${root}: the mock`, stderr);
  return { root, port, proc, stderr };
}

/** Polls GET /__admin/health on `port` until it answers 200: the readiness signal, no fixed sleep. */
export async function waitUntilUp(port, proc, what, stderr = () => '') {
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null)
      throw new Error(`${what} exited with ${proc.exitCode ?? proc.signalCode} before answering: ${stderr()}`);
    const up = await call(port, 'GET', '/__admin/health').catch(() => null);
    if (up?.status === 200) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The median of some numbers (the mean of the middle two for an even count). */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** CPU time (user + system) a process has used, in ms, from /proc (clock ticks of 10 ms); NaN where /proc is not there. */
export function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime (fields 14, 15)
  } catch {
    return Number.NaN;
  }
}

/**
 * A probe sandbox read while an abuser runs: its demo session asks GET /mobile/tenant-info every `everyMs` and
 * compares each answer with the first. `stop()` answers { reads, wrong, failed, first failure }.
 */
export async function startProbe(port, { sandbox = 'probe', everyMs = 250 } = {}) {
  const session = await demoSession(port);
  const headers = { ...session, 'x-mock-sandbox': sandbox };
  // the session was opened in default; a probe of its own sandbox signs in there
  const auth = await call(port, 'POST', '/mobile/auth', { ...headers }, romashka.device);
  if (auth.status !== 200) throw new Error(`probe auth: ${auth.status} ${auth.body}`);
  const { sessionId, sessionSecret } = JSON.parse(auth.body);
  Object.assign(headers, { 'x-service-session-id': sessionId, 'x-service-session-code': sessionSecret });
  // a connection per read: the client that runs the probe is the loaded one, and a kept-alive connection it left
  // idle past the mock's 5 s (a read every 250 ms, on a starved client) met the mock's close as ECONNRESET
  const fresh = new Agent({ keepAlive: false });
  const read = () => call(port, 'GET', '/mobile/tenant-info', headers, undefined, fresh);
  const first = await read();
  if (first.status !== 200) throw new Error(`probe: ${first.status} ${first.body}`);
  const seen = { reads: 0, wrong: 0, failed: 0, failure: null };
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const res = await read().catch((err) => ({ status: err.code, body: '' }));
      seen.reads++;
      if (res.status !== 200) {
        seen.failed++;
        seen.failure ??= `${res.status} ${res.body.slice(0, 200)}`;
      } else if (res.body !== first.body) seen.wrong++;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return seen;
    },
  };
}

/**
 * The health probe (bench/probe.mjs): GET /__admin/health every 50 ms over its own keep-alive connection, from a
 * process of its own, while an abuser runs. `stop()` answers each answer's latency in ms (a failed one: Infinity; one
 * still waiting counts with the time it had waited).
 */
export function healthProbe(port) {
  const child = spawn(process.execPath, [join(dirname(fileURLToPath(import.meta.url)), 'probe.mjs'), String(port)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  // the probe is the health checker, not the load: at the mock's priority (see startBin)
  if (process.env.BENCH_MOCK_PRIORITY !== undefined) setPriority(child.pid, Number(process.env.BENCH_MOCK_PRIORITY));
  let out = '';
  child.stdout.on('data', (c) => {
    out += c;
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    async stop() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
      const latencies = out.trim() ? JSON.parse(out) : [];
      return latencies.map((x) => x ?? Number.POSITIVE_INFINITY);
    },
  };
}

/** What a bench reports of the mock's memory (MB, procMemory's) and of the health probe's latencies (ms). */
export function memoryAndHealth(peakRss, end, latencies) {
  const ms = (q) => Math.round(quantile(latencies, q) ?? Number.NaN);
  return {
    peakRssMB: Math.max(peakRss, end.rss),
    hwmMB: end.hwm,
    endRssMB: end.rss,
    healthP50Ms: ms(0.5),
    healthP90Ms: ms(0.9),
    healthP99Ms: ms(0.99),
    healthProbes: latencies.length,
  };
}

/** The value at quantile `q` of some numbers (null for none). */
export function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : null;
}

/**
 * A benchmark's own options and the mock's flags: `script --name=N … [-- mock flags]`. `flag(name, fallback)` reads
 * a number.
 */
export function benchArgs(argv = process.argv.slice(2)) {
  const dash = argv.indexOf('--');
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const mockFlags = dash < 0 ? [] : argv.slice(dash + 1);
  const flag = (name, fallback) => {
    const given = own.find((a) => a.startsWith(`--${name}=`));
    return given === undefined ? fallback : Number(given.slice(name.length + 3));
  };
  return { flag, mockFlags };
}

/** A process's resident memory now and at its highest (MB, /proc/PID/status). */
export function procMemory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
  return { rss: Math.round(kb('VmRSS') / 1024), hwm: Math.round(kb('VmHWM') / 1024) };
}
