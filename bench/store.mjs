// The store's benchmark: what users of sandboxes feel. `npm run build && node bench/store.mjs [--quick] [--no-large]`,
// or `--sandboxes` for the new-sandbox figures alone (printed, no result files written).
// Needs only Node and the built mock (dist/). Measures, with medians and min–max:
//   start-up to the first 200 and idle RSS (a child process, as a user starts it);
//   a new sandbox's first request (a light public read, GET /mobile/oauth-list, that creates the sandbox), and the
//   live memory per sandbox until it writes, after N of them, with the default journal and with --journal-limit 0;
//   10,000 sandboxes each signed in once with 5 writes: RSS, and the light read in one of them against a fresh
//   single-sandbox instance;
//   a light read in a sandbox that collected many sign-ins (a shared sandbox of a pipeline: sessions live 24 h);
//   a persisted write (--data) at default data and at --users 100000, with the longest event-loop stall meanwhile;
//   a sandbox reset.
// Writes bench/results/store.json and store.md. The machine is shared and noisy: compare ratios of one sitting.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readFile } from 'node:fs/promises';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import { call as callWith, median } from './http.mjs';
import { runInNewContext } from 'node:vm';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const quick = process.argv.includes('--quick');
const skipLarge = process.argv.includes('--no-large');
const onlySandboxes = process.argv.includes('--sandboxes');
const cfg = quick
  ? { starts: 3, sandboxes: 2000, many: 2000, writes: 200, readSeconds: 2, signIns: 5000 }
  : { starts: 5, sandboxes: 5000, many: 10_000, writes: 1000, readSeconds: 5, signIns: 20_000 };
const demo = { email: 'ivan.petrov@romashka.test', password: 'demo1234' };
const log = (...m) => process.stderr.write(`${m.join(' ')}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const sorted = (xs) => [...xs].sort((a, b) => a - b);
const pct = (xs, p) => sorted(xs)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const stats = (xs, d = 3) => ({
  median: round(median(xs), d),
  p90: round(pct(xs, 0.9), d),
  min: round(Math.min(...xs), d),
  max: round(Math.max(...xs), d),
  n: xs.length,
});
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

const call = (port, method, path, headers = {}, body = undefined) => callWith(port, method, path, headers, body, agent);

// a measurement that throws must not leave its mock running (holding the terminal and the machine)
const running = new Set();
process.on('exit', () => {
  for (const proc of running) proc.kill('SIGKILL');
});

/** The built mock as a child process; resolves once it answers, with its port and the time it took. */
async function startMock(args = []) {
  const began = performance.now();
  const portFile = join(mkdtempSync(join(os.tmpdir(), 'pm-port-')), 'port');
  const proc = spawn(
    process.execPath,
    [
      join(root, 'dist/portal-mock.mjs'),
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--log-level',
      'silent',
      '--no-banner',
      '--port-file',
      portFile,
      ...args,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  running.add(proc);
  proc.once('exit', () => running.delete(proc));
  for (;;) {
    const port = Number(await readFile(portFile, 'utf8').catch(() => ''));
    if (port > 0) {
      const res = await call(port, 'GET', '/__admin/health').catch(() => null);
      if (res?.status === 200) return { proc, port, startMs: performance.now() - began };
    }
    if (proc.exitCode !== null) throw new Error(`the mock exited with ${proc.exitCode}`);
    await sleep(2);
  }
}
const stop = async (m) => {
  m.proc.kill('SIGTERM');
  await new Promise((r) => m.proc.once('exit', r));
};
const health = async (m, sandbox = 'default') =>
  JSON.parse((await call(m.port, 'GET', '/__admin/health', { 'x-mock-sandbox': sandbox })).body);

async function signIn(port, sandbox, device) {
  const sb = { 'x-mock-sandbox': sandbox };
  const bind = JSON.parse(
    (await call(port, 'POST', '/mobile/manual-bind', sb, { ...demo, device: { id: device } })).body,
  );
  const a = bind.accountSecret;
  const auth = JSON.parse(
    (
      await call(
        port,
        'POST',
        '/mobile/auth',
        { ...sb, 'x-service-tenant-id': a.tenantId },
        { secret: a.secret, userId: a.userId, deviceId: a.deviceId },
      )
    ).body,
  );
  return {
    ...sb,
    'x-service-tenant-id': a.tenantId,
    'x-service-device-id': device,
    'x-service-session-id': auth.sessionId,
    'x-service-session-code': auth.sessionSecret,
  };
}

/** Requests per second of GET path with `concurrency` clients for `seconds`. */
async function readRate(port, path, headers, seconds, concurrency = 32) {
  let n = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const r = await call(port, 'GET', path, headers);
        if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
        n++;
      }
    }),
  );
  return n / seconds;
}

async function startupAndIdle(results) {
  log('start-up and idle memory, default data');
  const starts = [];
  const rss = [];
  for (let i = 0; i < cfg.starts; i++) {
    const m = await startMock();
    starts.push(m.startMs);
    await sleep(1000);
    rss.push((await health(m)).memory.rssBytes / 2 ** 20);
    await stop(m);
  }
  results.startup = { ms: stats(starts, 0), idleRssMB: stats(rss, 1) };
}

/** The light public read that creates a sandbox: the sign-in options of a tenant (no session needed). */
const publicRead = {
  path: '/mobile/oauth-list',
  headers: (tenantId, sandbox) => ({ 'x-service-tenant-id': tenantId, 'x-mock-sandbox': sandbox }),
};

/** Throws unless the mock holds `expected` sandboxes: a figure of requests that created none would measure nothing. */
async function expectSandboxes(port, expected) {
  const listed = JSON.parse((await call(port, 'GET', '/__admin/sandboxes?scope=local')).body).length;
  if (listed !== expected) {
    throw new Error(
      `the mock lists ${listed} sandboxes, expected ${expected}: the requests did not create sandboxes, ` +
        'so nothing was measured',
    );
  }
}

/** The first request of each of N new sandboxes over HTTP (a child process), and the same request again. */
async function newSandboxes(results) {
  log(`new sandboxes: first request of ${cfg.sandboxes}`);
  const m = await startMock();
  const tenantId = JSON.parse((await call(m.port, 'GET', '/__admin/fixtures')).body).tenants[0].id;
  const read = async (sandbox) => {
    const t0 = performance.now();
    const r = await call(m.port, 'GET', publicRead.path, publicRead.headers(tenantId, sandbox));
    if (r.status !== 200) throw new Error(`${publicRead.path} in sandbox ${sandbox}: ${r.status} ${r.body}`);
    return performance.now() - t0;
  };
  await read('warm');
  const first = [];
  const again = [];
  for (let i = 0; i < cfg.sandboxes; i++) {
    first.push(await read(`fresh-${i}`));
    again.push(await read(`fresh-${i}`));
  }
  await expectSandboxes(m.port, cfg.sandboxes + 2); // default, warm and the new ones
  results.newSandbox = { path: publicRead.path, firstRequestMs: stats(first), sameRequestExistingMs: stats(again) };
  await stop(m);
}

/**
 * Live memory per sandbox until it writes, in a process of its own (the mock in-process, so that a full garbage
 * collection comes before each reading: the health route's heap figure holds garbage of up to the young generation's
 * size, more than the sandboxes' own memory). The requests go over HTTP: through app.inject each sandbox kept about
 * 10 KB more, which a client on a socket never causes.
 */
async function sandboxMemory(journalLimit) {
  log(`memory of ${cfg.sandboxes} new sandboxes, --journal-limit ${journalLimit ?? 'default'}`);
  const flags = [`--sandbox-memory=${journalLimit ?? 'default'}`, ...(quick ? ['--quick'] : [])];
  const self = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, [self, ...flags], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  const code = await new Promise((r) => child.on('close', r));
  if (code !== 0) throw new Error(`the memory measurement exited with ${code}`);
  return JSON.parse(out);
}

/** The child of sandboxMemory: the figures as JSON on stdout. */
async function sandboxMemoryHere(journalLimit) {
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  const { buildApp } = await import(pathToFileURL(join(root, 'dist/app.js')).href);
  const journal = journalLimit === 'default' ? {} : { journalLimit: Number(journalLimit) };
  const app = await buildApp({ now: '2026-03-02T09:00:00.000Z', ...journal });
  try {
    const port = Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port);
    const tenantId = JSON.parse((await call(port, 'GET', '/__admin/fixtures')).body).tenants[0].id;
    const read = async (sandbox) => {
      const r = await call(port, 'GET', publicRead.path, publicRead.headers(tenantId, sandbox));
      if (r.status !== 200) throw new Error(`${publicRead.path} in sandbox ${sandbox}: ${r.status} ${r.body}`);
    };
    for (let i = 0; i < 200; i++) await read('warm'); // code paths compiled, the connection open
    const measure = () => {
      gc();
      gc();
      return process.memoryUsage();
    };
    const before = measure();
    for (let i = 0; i < cfg.sandboxes; i++) await read(`mem-${i}`);
    const after = measure();
    await expectSandboxes(port, cfg.sandboxes + 2);
    const perSandboxKB = (bytes) => round(bytes / cfg.sandboxes / 1024, 1);
    const heapKB = perSandboxKB(after.heapUsed - before.heapUsed);
    return { sandboxes: cfg.sandboxes, heapKB, rssKB: perSandboxKB(after.rss - before.rss) };
  } finally {
    agent.destroy();
    await app.close();
  }
}

async function manySandboxes(results) {
  log(`${cfg.many} sandboxes, each signed in once with 5 writes`);
  const single = await startMock();
  const singleHeaders = await signIn(single.port, 'only', 'bench-device');
  results.many = {
    singleSandboxReadPerSec: round(
      await readRate(single.port, '/mobile/tenant-info', singleHeaders, cfg.readSeconds),
      0,
    ),
  };
  await stop(single);

  const m = await startMock([`--max-sandboxes`, String(cfg.many + 10)]);
  let next = 0;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = next++; i < cfg.many; i = next++) {
        const h = await signIn(m.port, `many-${i}`, `device-${i}`);
        for (let w = 0; w < 5; w++) {
          const r = await call(m.port, 'POST', '/account/status-text', h, {
            activeTypes: `write ${w} of sandbox ${i}`,
          });
          if (r.status !== 200) throw new Error(`write: ${r.status} ${r.body}`);
        }
      }
    }),
  );
  const took = performance.now() - began;
  const probe = await signIn(m.port, `many-${cfg.many >> 1}`, 'probe');
  await sleep(1000);
  const h = await health(m);
  Object.assign(results.many, {
    sandboxes: h.sandboxes,
    rssMB: round(h.memory.rssBytes / 2 ** 20, 0),
    setUpSeconds: round(took / 1000, 1),
    readPerSecInOne: round(await readRate(m.port, '/mobile/tenant-info', probe, cfg.readSeconds), 0),
  });
  results.many.readRatio = round(results.many.readPerSecInOne / results.many.singleSandboxReadPerSec, 3);
  await stop(m);
}

/** A light read before and after one device signed in many times in one sandbox (its sessions all stay valid). */
async function manySignIns(results) {
  log(`a light read after ${cfg.signIns} sign-ins in one sandbox`);
  const m = await startMock();
  const bind = JSON.parse(
    (await call(m.port, 'POST', '/mobile/manual-bind', {}, { ...demo, device: { id: 'signing-in' } })).body,
  );
  const { secret, userId, deviceId, tenantId } = bind.accountSecret;
  const authorize = async () => {
    const r = await call(
      m.port,
      'POST',
      '/mobile/auth',
      { 'x-service-tenant-id': tenantId },
      { secret, userId, deviceId },
    );
    if (r.status !== 200) throw new Error(`sign-in: ${r.status} ${r.body}`);
    const a = JSON.parse(r.body);
    return {
      'x-service-tenant-id': tenantId,
      'x-service-device-id': deviceId,
      'x-service-session-id': a.sessionId,
      'x-service-session-code': a.sessionSecret,
    };
  };
  const profile = `/user/profile?id=${userId}`;
  const before = await readRate(m.port, profile, await authorize(), cfg.readSeconds);
  const began = performance.now();
  for (let i = 0; i < cfg.signIns; i++) await authorize();
  const signInMs = (performance.now() - began) / cfg.signIns;
  const after = await readRate(m.port, profile, await authorize(), cfg.readSeconds);
  results.signIns = {
    count: cfg.signIns,
    signInMs: round(signInMs, 3),
    readPerSecBefore: round(before, 0),
    readPerSecAfter: round(after, 0),
    ratio: round(after / before, 3),
  };
  await stop(m);
}

/** Persisted writes in-process (the server's own cost), with the event loop's longest stall meanwhile; resets too. */
async function persistedWrites(results, users) {
  log(`persisted writes, --users ${users}`);
  const { buildApp } = await import(pathToFileURL(join(root, 'dist/app.js')).href);
  const dir = mkdtempSync(join(os.tmpdir(), 'pm-bench-store-'));
  try {
    const app = await buildApp({ data: dir, users, now: '2026-03-02T09:00:00.000Z' });
    const inject = async (method, url, headers, payload) => {
      const r = await app.inject({ method, url, headers, payload });
      if (r.statusCode !== 200) throw new Error(`${url}: ${r.statusCode} ${r.body}`);
      return r.json();
    };
    const bind = await inject('POST', '/mobile/manual-bind', {}, { ...demo, device: { id: 'bench' } });
    const a = bind.accountSecret;
    const auth = await inject(
      'POST',
      '/mobile/auth',
      { 'x-service-tenant-id': a.tenantId },
      { secret: a.secret, userId: a.userId, deviceId: a.deviceId },
    );
    const headers = {
      'x-service-tenant-id': a.tenantId,
      'x-service-device-id': 'bench',
      'x-service-session-id': auth.sessionId,
      'x-service-session-code': auth.sessionSecret,
    };
    // warm-up, not measured: right after seeding a large world V8 is still collecting it (100k users: pauses of
    // 30-120 ms in the first writes, with or without --data), which is not the cost of saving
    for (let i = 0; i < 100; i++)
      await inject('POST', '/account/status-text', headers, { activeTypes: `warm-up ${i}` });
    await sleep(500);
    const write = [];
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    for (let i = 0; i < cfg.writes; i++) {
      const t0 = performance.now();
      await inject('POST', '/account/status-text', headers, { activeTypes: `status ${i}` });
      write.push(performance.now() - t0);
      if (i % 50 === 0) await new Promise((r) => setImmediate(r));
    }
    delay.disable();
    const idea = [];
    for (let i = 0; i < cfg.writes / 4; i++) {
      const t0 = performance.now();
      await inject('POST', '/idea/edit', headers, { title: `idea ${i}`, description: 'd', idea_purpose_id: 1 });
      idea.push(performance.now() - t0);
    }
    const resets = [];
    for (let i = 0; i < 100; i++) {
      await inject(
        'POST',
        '/account/status-text',
        { ...headers, 'x-mock-sandbox': 'reset-me' },
        { activeTypes: 'x' },
      ).catch(() => {});
      const t0 = performance.now();
      await inject('POST', '/__admin/reset?sandbox=reset-me', {}, {});
      resets.push(performance.now() - t0);
    }
    await app.close();
    return {
      statusTextWriteMs: stats(write),
      ideaCreateMs: stats(idea),
      longestStallMs: round(delay.max / 1e6, 1),
      resetMs: stats(resets),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const memoryChild = process.argv.find((a) => a.startsWith('--sandbox-memory='));
if (memoryChild) {
  process.stdout.write(JSON.stringify(await sandboxMemoryHere(memoryChild.split('=')[1])));
  process.exit(0);
}

const results = { date: new Date().toISOString(), quick, machine: { cpus: os.cpus().length, node: process.version } };
if (!onlySandboxes) await startupAndIdle(results);
await newSandboxes(results);
results.sandboxMemory = { defaultJournal: await sandboxMemory(undefined), journalOff: await sandboxMemory(0) };
const ns = results.newSandbox;
const mem = results.sandboxMemory;
const sandboxRows = [
  `| a new sandbox's first request (GET ${ns.path}) | median ${ns.firstRequestMs.median} ms (p90 ${ns.firstRequestMs.p90}, ` +
    `max ${ns.firstRequestMs.max}); again in an existing one ${ns.sameRequestExistingMs.median} ms | ≤ 1 ms |`,
  `| live memory per sandbox until it writes (${mem.defaultJournal.sandboxes} sandboxes) | heap ${mem.defaultJournal.heapKB} KB, ` +
    `RSS ${mem.defaultJournal.rssKB} KB; with --journal-limit 0 heap ${mem.journalOff.heapKB} KB, RSS ${mem.journalOff.rssKB} KB ` +
    '| ≤ 100 KB |',
];
if (onlySandboxes) {
  process.stdout.write(`${['| what | figure | target |', '|---|---|---|', ...sandboxRows, ''].join('\n')}`);
  agent.destroy();
  process.exit(0);
}
await manySandboxes(results);
await manySignIns(results);
results.persisted = { defaultData: await persistedWrites(results, 200) };
if (!skipLarge) results.persisted.users100k = await persistedWrites(results, 100_000);

const p = results.persisted;
const md = [
  `# Store benchmark (${results.date}${quick ? ', quick' : ''})`,
  '',
  '| what | figure | target |',
  '|---|---|---|',
  `| start-up to first 200 | median ${results.startup.ms.median} ms (${results.startup.ms.min}–${results.startup.ms.max}) | no worse than 558 ms |`,
  `| idle RSS | median ${results.startup.idleRssMB.median} MB | no worse than 109 MB |`,
  ...sandboxRows,
  `| ${results.many.sandboxes} sandboxes, each signed in with 5 writes | RSS ${results.many.rssMB} MB (set up in ${results.many.setUpSeconds} s) | ≤ 1.5 GB |`,
  `| light read in one of them | ${results.many.readPerSecInOne} req/s vs ${results.many.singleSandboxReadPerSec} in a single-sandbox instance (${round(results.many.readRatio * 100, 1)}%) | within 10% |`,
  `| light read with the newest of ${results.signIns.count} sessions of one device | ${results.signIns.readPerSecAfter} req/s vs ${results.signIns.readPerSecBefore} with the first (${round(results.signIns.ratio * 100, 1)}%); a sign-in took ${results.signIns.signInMs} ms on average | within 10% |`,
  `| persisted write, default data | median ${p.defaultData.statusTextWriteMs.median} ms (p90 ${p.defaultData.statusTextWriteMs.p90}, max ${p.defaultData.statusTextWriteMs.max}); idea create ${p.defaultData.ideaCreateMs.median} ms | ≤ 2 ms |`,
  p.users100k
    ? `| persisted write, --users 100000 | median ${p.users100k.statusTextWriteMs.median} ms (p90 ${p.users100k.statusTextWriteMs.p90}, max ${p.users100k.statusTextWriteMs.max}); idea create ${p.users100k.ideaCreateMs.median} ms | ≤ 5 ms |`
    : '| persisted write, --users 100000 | not run (--no-large) | ≤ 5 ms |',
  `| longest event-loop stall during persisted writes | ${p.defaultData.longestStallMs} ms${p.users100k ? `; ${p.users100k.longestStallMs} ms at 100k users` : ''} | ≤ 50 ms |`,
  `| sandbox reset, default data | median ${p.defaultData.resetMs.median} ms (max ${p.defaultData.resetMs.max}) | ≤ 1 ms |`,
  '',
  `Machine: ${results.machine.cpus} cores, Node ${results.machine.node}. Light reads from a Node client with 32 connections (not autocannon): compare the ratio, not the rate.`,
  '',
];
writeFileSync(join(root, 'bench/results/store.json'), `${JSON.stringify(results, null, 2)}\n`);
writeFileSync(join(root, 'bench/results/store.md'), md.join('\n'));
process.stdout.write(md.join('\n'));
agent.destroy();
