// The cluster benchmark (docs/performance.md, "Many instances behind HAProxy"): node bench/cluster.mjs [SECONDS]
// 1. spread: 1,000 sandbox names through the shipped deploy/haproxy.cfg, rewritten for 2, 4 and 8 instances (the
//    instances are stand-ins that only say their name: the balancer's choice is what is measured);
// 2. the light read (GET /mobile/tenant-info) on one real instance, direct and through the balancer: p50, p99;
// 3. throughput of the light read through the balancer with 1 and 2 real instances (40 sandboxes, spread by key).
// Needs Debian's haproxy and a built dist/ (npm run build). Writes bench/results/cluster.json and .md.
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { createServer as createNet } from 'node:net';
import { createServer, request, Agent } from 'node:http';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const seconds = Number(process.argv[2] ?? 5);
const shipped = readFileSync(join(root, 'deploy', 'haproxy.cfg'), 'utf8');
const freePort = () =>
  new Promise((resolve) => {
    const s = createNet().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The shipped config for n instances: the ring's server line and the guard of m1, repeated for m1..mn, with the
 * shipped weight (256) or HAProxy's default (1); `hashType` replaces the shipped hash-type line.
 */
export function configFor(n, hashType = null, weights = 'shipped') {
  const at = shipped.indexOf('    server m1 abns@');
  const head = shipped.slice(0, at).replace(/hash-type consistent.*/, (m) => hashType ?? m);
  const line = shipped.slice(at, shipped.indexOf('\n', at)).replace(/ weight \d+.*/, '');
  const guard = shipped.slice(shipped.indexOf('listen m1'), shipped.indexOf('listen m2'));
  const ids = Array.from({ length: n }, (_, i) => `m${i + 1}`);
  return (
    head +
    ids.map((m) => `${line.replaceAll('m1', m)}${weights === 'default' ? '' : ' weight 256'}\n`).join('') +
    '\n' +
    ids.map((m) => guard.replaceAll('m1', m).replaceAll('PM_M1', `PM_${m.toUpperCase()}`)).join('')
  );
}

async function haproxy(cfgText, addresses) {
  const dir = mkdtempSync(join(tmpdir(), 'pm-bench-lb-'));
  writeFileSync(join(dir, 'haproxy.cfg'), cfgText);
  const port = await freePort();
  const env = {
    ...process.env,
    PM_BIND: `127.0.0.1:${port}`,
    ...Object.fromEntries(addresses.map((a, i) => [`PM_M${i + 1}`, a])),
  };
  const proc = spawn('/usr/sbin/haproxy', ['-f', join(dir, 'haproxy.cfg')], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/__admin/health`)).status < 500) break;
    } catch {
      /* not yet */
    }
    await sleep(100);
  }
  return {
    port,
    pid: proc.pid,
    stop: () => {
      proc.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function spread(n, hashType, weight) {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      (_, i) =>
        new Promise((resolve) => {
          const s = createServer((_req, res) => {
            res.setHeader('x-mock-instance', `m${i + 1}`);
            res.end('{}');
          }).listen(0, '127.0.0.1', () => resolve(s));
        }),
    ),
  );
  const lb = await haproxy(
    configFor(n, hashType, weight),
    servers.map((s) => `127.0.0.1:${s.address().port}`),
  );
  const counts = {};
  for (let i = 0; i < 1000; i++) {
    const res = await fetch(`http://127.0.0.1:${lb.port}/mobile/tenant-info`, {
      headers: { 'x-mock-sandbox': `pipeline-${i}` },
    });
    await res.arrayBuffer();
    const who = res.headers.get('x-mock-instance');
    counts[who] = (counts[who] ?? 0) + 1;
  }
  lb.stop();
  for (const s of servers) s.close();
  const values = Object.values(counts);
  return {
    instances: n,
    hashType: `${hashType ?? 'shipped hash'}, ${weight} weights`,
    counts,
    maxOverMean: Math.max(...values) / (1000 / n),
  };
}

async function startMock(name) {
  const port = await freePort();
  const proc = spawn(
    process.execPath,
    [
      join(root, 'bin', 'portal-mock.js'),
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--log-level',
      'silent',
      '--no-banner',
      '--instance-name',
      name,
    ],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/__admin/health`)).ok) break;
    } catch {
      /* not yet */
    }
    await sleep(100);
  }
  return { port, pid: proc.pid, address: `127.0.0.1:${port}`, stop: () => proc.kill('SIGTERM') };
}

/** Signs in the demo device of each sandbox through `port`: the session headers of each. */
async function sessions(port, names) {
  const T = '7d3f9a2e-5b1c-4e8a-9f60-2c4b8d1e0a01';
  return Promise.all(
    names.map(async (sandbox) => {
      const res = await fetch(`http://127.0.0.1:${port}/mobile/auth`, {
        method: 'POST',
        headers: { 'x-mock-sandbox': sandbox, 'x-service-tenant-id': T, 'content-type': 'application/json' },
        body: JSON.stringify({
          secret: 'demo-device-secret-1',
          userId: 'a1000000-0000-4000-8000-000000000001',
          deviceId: 'demo-device-romashka',
        }),
      });
      const s = await res.json();
      return {
        'x-mock-sandbox': sandbox,
        'x-service-tenant-id': T,
        'x-service-device-id': 'demo-device-romashka',
        'x-service-session-id': s.sessionId,
        'x-service-session-code': s.sessionSecret,
      };
    }),
  );
}

/** CPU seconds (user + system) a process has used: /proc/PID/stat, in clock ticks of 1/100 s. */
const cpu = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};

/** The load, with the CPU microseconds each process spent per request (the capacity model's inputs). */
async function measured(port, headerSets, connections, pids) {
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpu(pid)]));
  const r = await load(port, headerSets, connections);
  const total = r.rps * seconds;
  r.cpuMicrosPerRequest = Object.fromEntries(
    Object.entries(pids).map(([k, pid]) => [k, Math.round(((cpu(pid) - before[k]) / total) * 1e6)]),
  );
  return r;
}

async function load(port, headerSets, connections) {
  const r = await autocannon({
    url: `http://127.0.0.1:${port}/mobile/tenant-info`,
    connections,
    duration: seconds,
    requests: headerSets.map((headers) => ({ method: 'GET', path: '/mobile/tenant-info', headers })),
  });
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
  };
}

/** One request at a time over one kept-alive connection: p50 and p99 in ms, to the microsecond. */
async function sequential(port, headerSets, count = 4000) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const times = [];
  for (let i = 0; i < count; i++) {
    const began = performance.now();
    await new Promise((resolve, reject) => {
      request(
        { host: '127.0.0.1', port, path: '/mobile/tenant-info', headers: headerSets[i % headerSets.length], agent },
        (res) => {
          res.resume().on('end', resolve);
          if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
        },
      )
        .on('error', reject)
        .end();
    });
    if (i >= count / 10) times.push(performance.now() - began); // the first tenth warms up
  }
  agent.destroy();
  times.sort((a, b) => a - b);
  const at = (q) => Number(times[Math.floor(q * (times.length - 1))].toFixed(3));
  return { requests: times.length, p50: at(0.5), p99: at(0.99) };
}

const out = {
  machine: { cores: cpus().length, cpu: cpus()[0]?.model, node: process.version },
  seconds,
  spread: [],
  latency: {},
  throughput: {},
};
const variants = process.env.SPREAD_VARIANTS
  ? JSON.parse(process.env.SPREAD_VARIANTS)
  : [
      [null, 'default'],
      [null, 'shipped'],
      ['hash-type consistent djb2 avalanche', 'default'],
      ['hash-type consistent djb2 avalanche', 'shipped'],
      ['hash-type consistent crc32', 'shipped'],
    ];
for (const [hashType, weight] of variants) {
  for (const n of [2, 4, 8]) {
    const r = await spread(n, hashType, weight);
    out.spread.push(r);
    console.log(`spread ${r.hashType} over ${n}: max/mean ${r.maxOverMean.toFixed(3)} ${JSON.stringify(r.counts)}`);
  }
}

if (process.env.SPREAD_ONLY) process.exit(0); // SPREAD_ONLY=1 (and SPREAD_VARIANTS=[[hash-type line or null, "shipped"|"default"]]) to try rings
const names = Array.from({ length: 40 }, (_, i) => `load-${i}`);
{
  const a = await startMock('m1');
  const lb = await haproxy(configFor(1), [a.address]);
  const direct = await sessions(a.port, names);
  // low load: the cost of the extra hops, not queueing
  out.latency.direct = await sequential(a.port, direct);
  out.latency.balancer = await sequential(lb.port, direct);
  out.throughput.direct1 = await measured(a.port, direct, 32, { mock: a.pid });
  out.throughput.balancer1 = await measured(lb.port, direct, 32, { mock: a.pid, haproxy: lb.pid });
  lb.stop();
  a.stop();
}
{
  const ms = [await startMock('m1'), await startMock('m2')];
  const lb = await haproxy(
    configFor(2),
    ms.map((m) => m.address),
  );
  const through = await sessions(lb.port, names);
  out.throughput.balancer2 = await measured(lb.port, through, 32, { m1: ms[0].pid, m2: ms[1].pid, haproxy: lb.pid });
  lb.stop();
  for (const m of ms) m.stop();
}
console.log(JSON.stringify({ latency: out.latency, throughput: out.throughput }, null, 1));
writeFileSync(join(root, 'bench', 'results', 'cluster.json'), `${JSON.stringify(out, null, 2)}\n`);
const md = [
  '| hash | 2 | 4 | 8 |',
  '|---|---|---|---|',
  ...[...new Set(out.spread.map((r) => r.hashType))].map(
    (h) =>
      `| \`${h}\` | ${out.spread
        .filter((r) => r.hashType === h)
        .map((r) => r.maxOverMean.toFixed(3))
        .join(' | ')} |`,
  ),
  '',
  '| light read, one at a time | p50 ms | p99 ms |',
  '|---|---|---|',
  ...Object.entries(out.latency).map(([k, v]) => `| ${k} | ${v.p50} | ${v.p99} |`),
  '',
  '| light read, 32 connections | req/s | p50 ms | p99 ms | CPU µs per request |',
  '|---|---|---|---|---|',
  ...Object.entries(out.throughput).map(
    ([k, v]) =>
      `| ${k} | ${v.rps} | ${v.p50} | ${v.p99} | ${Object.entries(v.cpuMicrosPerRequest)
        .map(([p, us]) => `${p} ${us}`)
        .join(', ')} |`,
  ),
].join('\n');
writeFileSync(join(root, 'bench', 'results', 'cluster.md'), `${md}\n`);
console.log(md);
