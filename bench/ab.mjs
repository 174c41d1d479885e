// A/B of one read between two builds in the same sitting: node bench/ab.mjs A_ROOT B_ROOT [PATH] [ROUNDS] [SECONDS]
// (each root a checkout with dist/ built). Both mocks run at once, signed in alike; their rounds alternate
// (A, B, B, A, …) so drift of a shared, noisy machine falls on both. Prints the median req/s and p99 of each and
// the ratio B/A. Used for "a change must not slow the light read" (docs/performance.md).
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';

const [aRoot, bRoot, path = '/mobile/tenant-info', roundsArg = '6', secondsArg = '5'] = process.argv.slice(2);
if (!aRoot || !bRoot) {
  process.stderr.write('usage: node bench/ab.mjs A_ROOT B_ROOT [PATH] [ROUNDS] [SECONDS]\n');
  process.exit(2);
}
const tenant = '7d3f9a2e-5b1c-4e8a-9f60-2c4b8d1e0a01';
const signInBody = {
  secret: 'demo-device-secret-1',
  userId: 'a1000000-0000-4000-8000-000000000001',
  deviceId: 'demo-device-romashka',
};

const freePort = () =>
  new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => done(port));
    });
  });

function call(port, method, path, headers = {}, body) {
  return new Promise((done, fail) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => done({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', fail);
    if (payload) req.setHeader('content-type', 'application/json');
    req.end(payload);
  });
}

/** Starts the bin of `root` and waits for its health route: the readiness signal, no fixed sleep. */
async function startMock(root) {
  const port = await freePort();
  const args = ['--port', String(port), '--host', '127.0.0.1', '--log-level', 'warn', '--no-banner'];
  const proc = spawn(join(resolve(root), 'bin', 'portal-mock.js'), args, { stdio: 'ignore' });
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${root}: the mock exited with ${proc.exitCode}`);
    const up = await call(port, 'GET', '/__admin/health').catch(() => null);
    if (up?.status === 200) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const auth = await call(port, 'POST', '/mobile/auth', { 'x-service-tenant-id': tenant }, signInBody);
  const session = JSON.parse(auth.body);
  const headers = {
    'x-service-tenant-id': tenant,
    'x-service-device-id': signInBody.deviceId,
    'x-service-session-id': session.sessionId,
    'x-service-session-code': session.sessionSecret,
  };
  return { root, port, proc, headers };
}

const load = (mock, seconds) =>
  autocannon({
    url: `http://127.0.0.1:${mock.port}${path}`,
    headers: mock.headers,
    connections: 50,
    duration: seconds,
  });

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const a = await startMock(aRoot);
const b = await startMock(bRoot);
try {
  for (const mock of [a, b]) {
    const probe = await call(mock.port, 'GET', path, mock.headers);
    if (probe.status !== 200) throw new Error(`${mock.root}: GET ${path} answered ${probe.status}: ${probe.body}`);
    await load(mock, 2); // warm-up
  }
  const seen = new Map([
    [a, []],
    [b, []],
  ]);
  const rounds = Number(roundsArg);
  for (let i = 0; i < rounds; i++) {
    for (const mock of i % 2 ? [b, a] : [a, b]) {
      const r = await load(mock, Number(secondsArg));
      seen.get(mock).push({ rps: r.requests.average, p99: r.latency.p99, errors: r.errors + r.non2xx });
    }
  }
  const summary = [a, b].map((mock) => {
    const runs = seen.get(mock);
    return {
      root: mock.root,
      medianRps: Math.round(median(runs.map((r) => r.rps))),
      medianP99Ms: median(runs.map((r) => r.p99)),
      errors: runs.reduce((n, r) => n + r.errors, 0),
      rps: runs.map((r) => Math.round(r.rps)),
    };
  });
  console.log(JSON.stringify({ path, rounds, seconds: Number(secondsArg), summary }, null, 2));
  console.log(`B/A = ${(summary[1].medianRps / summary[0].medianRps).toFixed(3)}`);
} finally {
  a.proc.kill('SIGTERM');
  b.proc.kill('SIGTERM');
}
