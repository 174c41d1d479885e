// A/B of one read between two builds in the same sitting: node bench/ab.mjs A_ROOT B_ROOT [PATH] [ROUNDS] [SECONDS]
// (each root a checkout with dist/ built). Both mocks run at once, signed in alike; their rounds alternate
// (A, B, B, A, …) so drift of a shared, noisy machine falls on both. Prints the median req/s and p99 of each, the
// server's CPU per request (user + sys from /proc, Linux only: steadier than req/s on a shared machine) and the
// ratio B/A. Used for "a change must not slow the light read" (docs/performance.md).
// Options: --header='name: value' (repeatable; e.g. 'accept-encoding: gzip'), --a-args='…' and --b-args='…' (extra
// flags for one mock, e.g. --b-args='--journal-limit 0' to compare one build with and without its journal).
import autocannon from 'autocannon';
import { call, cpuMs, demoSession, median, startBin } from './http.mjs';

const option = (name) => process.argv.filter((a) => a.startsWith(`--${name}=`)).map((a) => a.slice(name.length + 3));
const extraHeaders = Object.fromEntries(
  option('header').map((h) => [h.slice(0, h.indexOf(':')).trim().toLowerCase(), h.slice(h.indexOf(':') + 1).trim()]),
);
const extraArgs = { a: option('a-args')[0]?.split(' ') ?? [], b: option('b-args')[0]?.split(' ') ?? [] };
const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const [aRoot, bRoot, path = '/mobile/tenant-info', roundsArg = '6', secondsArg = '5'] = positional;
if (!aRoot || !bRoot) {
  process.stderr.write('usage: node bench/ab.mjs A_ROOT B_ROOT [PATH] [ROUNDS] [SECONDS]\n');
  process.exit(2);
}

async function startMock(root, extra) {
  const mock = await startBin(root, extra);
  return { ...mock, headers: { ...(await demoSession(mock.port)), ...extraHeaders } };
}

const load = (mock, seconds) =>
  autocannon({
    url: `http://127.0.0.1:${mock.port}${path}`,
    headers: mock.headers,
    connections: 50,
    duration: seconds,
  });

const a = await startMock(aRoot, extraArgs.a);
const b = await startMock(bRoot, extraArgs.b);
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
      const cpuBefore = cpuMs(mock.proc.pid);
      const r = await load(mock, Number(secondsArg));
      const cpuUs = ((cpuMs(mock.proc.pid) - cpuBefore) * 1e3) / r.requests.total;
      seen.get(mock).push({ rps: r.requests.average, p99: r.latency.p99, cpuUs, errors: r.errors + r.non2xx });
    }
  }
  const summary = [a, b].map((mock) => {
    const runs = seen.get(mock);
    return {
      root: mock.root,
      medianRps: Math.round(median(runs.map((r) => r.rps))),
      medianP99Ms: median(runs.map((r) => r.p99)),
      medianCpuUsPerRequest: Math.round(median(runs.map((r) => r.cpuUs)) * 10) / 10,
      errors: runs.reduce((n, r) => n + r.errors, 0),
      rps: runs.map((r) => Math.round(r.rps)),
      cpuUs: runs.map((r) => Math.round(r.cpuUs)),
    };
  });
  console.log(JSON.stringify({ path, rounds, seconds: Number(secondsArg), summary }, null, 2));
  console.log(
    `B/A = ${(summary[1].medianRps / summary[0].medianRps).toFixed(3)} (req/s); CPU per request B/A = ${(summary[1].medianCpuUsPerRequest / summary[0].medianCpuUsPerRequest).toFixed(3)}`,
  );
} finally {
  a.proc.kill('SIGTERM');
  b.proc.kill('SIGTERM');
}
