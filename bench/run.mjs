// The benchmark: `npm run bench` (full, a few minutes) or `npm run bench -- --quick`.
// Starts the built mock (dist/portal-mock.mjs, what the bin runs) as a separate process, as a user would, drives it over loopback with
// autocannon (and, when Debian's wrk is installed, with wrk for the light read and the dashboard), and measures in the same
// sitting a bare Fastify server (the ceiling) and peer mocks (Prism, WireMock). Every throughput is also given as a ratio to
// the bare server of this run; the report opens with the issue's targets and whether each holds. Writes
// bench/results/*.json and *.md and refreshes the benchmark block of docs/performance.md.
import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { wiremockJar, writePrismSpec, writeWiremockRoot } from './peers.mjs';
import { call, cpuMs, demoSession, freePort, median, signInRequests, romashka } from './http.mjs';
import { abuseMarkdown, abuseTargets } from './abuse.mjs';
import { consumerTable, dependencyTable } from './consumer.mjs';
import { mcpTable, mcpTargets } from './mcp.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// --mock-root=DIR benchmarks the build of another checkout (e.g. the code before a change); results still land here
const mockRoot = process.argv.find((a) => a.startsWith('--mock-root='))?.slice(12) ?? root;
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const outName = args.find((a) => a.startsWith('--out='))?.slice(6) ?? (quick ? 'quick' : 'latest');
const cfg = quick
  ? {
      warmup: 1,
      rounds: 2,
      duration: 2,
      connections: 50,
      scaleRounds: 1,
      scaleDuration: 2,
      startRuns: 1,
      scaleStarts: 1,
    }
  : {
      warmup: 2,
      rounds: 3,
      duration: 5,
      connections: 50,
      scaleRounds: 3,
      scaleDuration: 3,
      startRuns: 5,
      scaleStarts: 3,
    };
const scaleUsers = 100_000;
/** keeps the whole run under 10 minutes on a 2-core machine */
const scaleStartLimitMs = quick ? 120_000 : 240_000;

const { tenantId: T, demo, apiKey } = romashka;
const widgets = [
  'myLms',
  'mySurvey',
  'myAchievements',
  'myTeam',
  'myFavorites',
  'myPostcards',
  'updNews',
  'updVoting',
  'updIdeas',
  'updAchievements',
  'updBirthday',
  'updNewbies',
  'updBooks',
];
const dashboardPath = `/dashboard?widgets=${widgets.join(',')}&info=profileBrief,notificationsBadge`;

const log = (...m) => process.stderr.write(`${m.join(' ')}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/**
 * RSS of an instance left alone for minutes, from its samples (one a second): where it ended, where it started, and
 * from which second on it stayed within 2 MB of the end (when V8 gave back start-up's heap).
 */
function atRestMemory(samples, rssMB) {
  const settled = samples.findLastIndex((x) => x.rssMB > rssMB + 2) + 1; // the first of the samples near the end
  return {
    rssMB,
    firstSecondMB: samples[0]?.rssMB ?? null,
    settledAfterS: samples[settled]?.s ?? null,
    quietS: samples.at(-1)?.s ?? 0,
  };
}

function memory(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
    return { rssMB: round(kb('VmRSS') / 1024, 1), hwmMB: round(kb('VmHWM') / 1024, 1) };
  } catch {
    return { rssMB: null, hwmMB: null };
  }
}

/** Spawns a server and polls its health URL until the first 200; returns the process and the time it took. */
async function start(name, cmd, argv, port, { healthPath = '/__admin/health', timeoutMs = 120_000 } = {}) {
  const t0 = performance.now();
  const proc = spawn(cmd, argv, {
    cwd: name.startsWith('portal-mock') ? mockRoot : root,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr.on('data', (c) => {
    stderr = (stderr + c).slice(-4000);
  });
  let exited = false;
  proc.once('exit', () => {
    exited = true;
  });
  while (performance.now() - t0 < timeoutMs) {
    if (exited) throw new Error(`${name} exited before answering: ${stderr}`);
    try {
      const res = await call(port, 'GET', healthPath);
      if (res.status === 200) {
        const startMs = performance.now() - t0;
        return { name, proc, port, pid: proc.pid, startMs, stop: () => stop(proc) };
      }
    } catch {
      /* not listening yet */
    }
    await sleep(5);
  }
  proc.kill('SIGKILL');
  throw new Error(`${name} did not answer ${healthPath} within ${timeoutMs} ms: ${stderr}`);
}

function stop(proc) {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
    proc.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    proc.kill('SIGTERM');
  });
}

// started as the installed CLI is: the bin (its shebang gives node its flags), which runs dist/portal-mock.mjs
const mockBin = join(mockRoot, 'bin', 'portal-mock.js');
const mockArgs = (port, extra = []) => [
  '--port',
  String(port),
  '--host',
  '127.0.0.1',
  '--log-level',
  'warn',
  '--no-banner',
  ...extra,
];
async function startMock(extra = [], name = 'portal-mock') {
  const port = await freePort();
  return start(name, mockBin, mockArgs(port, extra), port, { timeoutMs: 300_000 });
}

function cannon(opts) {
  return new Promise((resolve, reject) => {
    const { port, path = '/', ...rest } = opts;
    autocannon({ ...rest, url: `http://127.0.0.1:${port}${path}` }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
}

/**
 * Warm-up, then `rounds` rounds; req/s median and spread, p99 median. A sequence of n requests counts once
 * (`perRequest` = n), so the sign-in reports sequences per second.
 */
async function load(
  label,
  opts,
  { connections = cfg.connections, rounds = cfg.rounds, duration = cfg.duration, perSequence = 1 } = {},
) {
  const base = { connections, pipelining: 1, ...opts };
  await cannon({ ...base, duration: cfg.warmup });
  const runs = [];
  for (let i = 0; i < rounds; i++) {
    const r = await cannon({ ...base, duration });
    const bad = r.errors + r.timeouts + (r.non2xx ?? 0);
    runs.push({
      rps: r.requests.average / perSequence,
      p50: r.latency.p50,
      p99: r.latency.p99,
      bad,
      total: r.requests.total,
    });
  }
  return summarize(label, runs, { connections, rounds, duration });
}

/** One autocannon round: its req/s, latency and failures, and how many requests it made. */
async function cannonRound(opts, duration) {
  const r = await cannon({ connections: cfg.connections, pipelining: 1, ...opts, duration });
  const bad = r.errors + r.timeouts + (r.non2xx ?? 0);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, bad, total: r.requests.total };
}

/** One wrk round, in the same shape. */
async function wrkRound({ port, path, headers }, duration) {
  const argv = [
    '-t1',
    `-c${cfg.connections}`,
    `-d${duration}s`,
    '--latency',
    ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]),
    `http://127.0.0.1:${port}${path}`,
  ];
  const text = await new Promise((resolve, reject) => {
    execFile('wrk', argv, { encoding: 'utf8' }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
  });
  const run = parseWrk(text);
  return { ...run, total: run.rps * duration };
}

/**
 * Like `load`, for targets compared with each other: their rounds alternate (a, b, c, then c, b, a …), so a slower
 * stretch of this shared machine falls on all of them. Each summary also gives its rounds' req/s in order, and the
 * server's CPU time per request (µs), which a neighbour's load disturbs less than throughput. `generator`:
 * cannonRound or wrkRound.
 */
async function loadAlternating(
  targets,
  { rounds = cfg.rounds + 1, duration = cfg.duration, generator = cannonRound } = {},
) {
  for (const t of targets) await generator(t.opts, cfg.warmup);
  const runs = targets.map(() => []);
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 === 0 ? targets.map((_, k) => k) : targets.map((_, k) => targets.length - 1 - k);
    for (const k of order) {
      const before = cpuMs(targets[k].pid);
      const r = await generator(targets[k].opts, duration);
      runs[k].push({ ...r, cpuUs: ((cpuMs(targets[k].pid) - before) * 1000) / r.total });
    }
  }
  return targets.map((t, k) => ({
    ...summarize(t.label, runs[k], { connections: cfg.connections, rounds, duration }),
    roundsRps: runs[k].map((x) => round(x.rps, 0)),
    cpuUsPerRequest: round(median(runs[k].map((x) => x.cpuUs)), 1),
  }));
}

/** Median and spread of the rounds' req/s, median p50/p99, errors summed; logged as it goes. */
function summarize(label, runs, { connections, rounds, duration }) {
  const rps = runs.map((x) => x.rps);
  const out = {
    label,
    connections,
    rounds,
    duration,
    rps: round(median(rps), 0),
    rpsMin: round(Math.min(...rps), 0),
    rpsMax: round(Math.max(...rps), 0),
    spreadPct: round(((Math.max(...rps) - Math.min(...rps)) / median(rps)) * 100, 1),
    p50ms: round(median(runs.map((x) => x.p50)), 2),
    p99ms: round(median(runs.map((x) => x.p99)), 2),
    errors: runs.reduce((a, x) => a + x.bad, 0),
  };
  log(
    `  ${label}: ${out.rps} req/s (${out.rpsMin}–${out.rpsMax}), p99 ${out.p99ms} ms${out.errors ? `, ${out.errors} non-2xx/errors` : ''}`,
  );
  return out;
}

/** Whether Debian's wrk is installed: the cross-check load generator (C, epoll), optional. */
function hasWrk() {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (err) {
    return err?.code !== 'ENOENT';
  } // it exits 1 after its usage
}

/** wrk's figures for one run: its own text output, parsed (latency units us, ms, s). */
function parseWrk(text) {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1]);
  const unit = { us: 0.001, ms: 1, s: 1000 };
  const pct = (p) => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(text);
    return m ? round(Number(m[1]) * unit[m[2]], 2) : null;
  };
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const errors = socket ? socket.slice(1).reduce((a, x) => a + Number(x), 0) : 0;
  if (!Number.isFinite(rps)) throw new Error(`wrk printed no Requests/sec: ${text.slice(0, 300)}`);
  return { rps, p50: pct(50), p99: pct(99), bad: non2xx + errors };
}

function machine() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    memoryGB: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    java: javaVersion(),
  };
}
function javaVersion() {
  try {
    return (
      execFileSync('java', ['-version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
        .trim()
        .split('\n')[0] || 'java'
    );
  } catch (err) {
    const text = String(err?.stderr ?? '');
    return text ? text.split('\n')[0] : null;
  }
}

async function main() {
  if (!existsSync(join(mockRoot, 'dist', 'portal-mock.mjs')))
    throw new Error('dist/portal-mock.mjs is missing: run npm run build first');
  const t0 = performance.now();
  const results = {
    date: new Date().toISOString(),
    quick,
    settings: cfg,
    machine: machine(),
    throughput: {},
    startup: {},
    memory: {},
    scale: {},
  };
  const tmp = mkdtempSync(join(os.tmpdir(), 'portal-mock-bench-'));
  const running = [];
  const cleanup = async () => {
    await Promise.all(running.map((s) => s.stop()));
    rmSync(tmp, { recursive: true, force: true });
  };
  process.once('SIGINT', () => {
    cleanup().finally(() => process.exit(130));
  });
  try {
    // ---- start-up with default data (median of several), idle memory
    log('start-up, default data');
    const starts = [];
    for (let i = 0; i < cfg.startRuns; i++) {
      const s = await startMock();
      starts.push(s.startMs);
      if (i < cfg.startRuns - 1) await s.stop();
      else {
        running.push(s);
        results.mockServer = s;
      }
    }
    results.startup.defaultMs = round(median(starts), 0);
    results.startup.defaultRunsMs = starts.map((x) => round(x, 0));
    const mock = results.mockServer;
    delete results.mockServer;
    await sleep(1000);
    results.memory.idleDefault = memory(mock.pid);
    log(`  ${results.startup.defaultMs} ms to first 200; RSS 1 s later ${results.memory.idleDefault.rssMB} MB`);
    // An instance nobody calls until the sandboxes' measurement, minutes later: what an idle server holds. One
    // second after ready, RSS still holds the heap start-up grew; V8's memory reducer gives it back once the
    // process has been quiet for some seconds (15-30 s here), with no flag (docs/performance.md, "Idle memory").
    const atRest = await startMock([], 'portal-mock (at rest)');
    running.push(atRest);
    const restSamples = [];
    const restSince = performance.now();
    const restSampler = setInterval(() => {
      restSamples.push({ s: round((performance.now() - restSince) / 1000, 0), rssMB: memory(atRest.pid).rssMB });
    }, 1000);

    // ---- the ceiling: bare Fastify (a small JSON object; and the mock's own answers as ready-made strings)
    log('throughput');
    const session = await demoSession(mock.port);
    const sameFiles = [];
    for (const [name, path] of [
      ['tenant-info', '/mobile/tenant-info'],
      ['dashboard', dashboardPath],
    ]) {
      const res = await call(mock.port, 'GET', path, session);
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.body.slice(0, 200)}`);
      const file = join(tmp, `${name}.json`);
      writeFileSync(file, res.body);
      sameFiles.push(file);
      (results.sizes ??= {})[name === 'tenant-info' ? 'tenantInfo' : 'dashboard'] = Buffer.byteLength(res.body);
    }
    // what the apps get: mobile HTTP stacks (OkHttp, URLSession) send Accept-Encoding: gzip on their own
    const gzipSession = { ...session, 'accept-encoding': 'gzip' };
    const gzipped = await call(mock.port, 'GET', dashboardPath, gzipSession);
    if (gzipped.status !== 200 || gzipped.headers['content-encoding'] !== 'gzip')
      throw new Error(`dashboard with Accept-Encoding: gzip: ${gzipped.status} ${gzipped.headers['content-encoding']}`);
    const gzipFile = join(tmp, 'dashboard.json.gz');
    writeFileSync(gzipFile, gzipped.bytes);
    sameFiles.push(gzipFile);
    results.sizes.dashboardGzip = gzipped.bytes.length;
    const barePort = await freePort();
    const bare = await start(
      'bare',
      process.execPath,
      [join(root, 'bench', 'bare.mjs'), String(barePort), ...sameFiles],
      barePort,
    );
    running.push(bare);
    const T0 = results.throughput;
    const C = (results.ceilings = {});
    // The ratio targets compare the mock with bare Fastify: both run, and their rounds alternate, so that a busy
    // stretch of this shared machine falls on both (measured one after the other, the same build's ratio moved by
    // half between sittings).
    const m = mock.port;
    const pairs = (onBare, onMock) => [
      { label: 'bare Fastify, GET small JSON', pid: bare.pid, opts: { port: bare.port, ...onBare.small } },
      {
        label: 'bare Fastify, the same tenant-info bytes',
        pid: bare.pid,
        opts: { port: bare.port, ...onBare.tenantInfo },
      },
      ...(onBare.dashboard
        ? [
            {
              label: 'bare Fastify, the same dashboard bytes',
              pid: bare.pid,
              opts: { port: bare.port, ...onBare.dashboard },
            },
          ]
        : []),
      {
        label: 'bare Fastify, the same gzipped dashboard bytes',
        pid: bare.pid,
        opts: { port: bare.port, ...onBare.dashboardGzip },
      },
      { label: 'GET /mobile/tenant-info', pid: mock.pid, opts: { port: m, ...onMock.lightRead } },
      {
        label: 'GET /dashboard (13 widgets, 2 infos), Accept-Encoding: gzip as the apps send',
        pid: mock.pid,
        opts: { port: m, ...onMock.dashboard },
      },
    ];
    const onBare = {
      small: { path: '/mobile/tenant-info', headers: session },
      tenantInfo: { path: '/same/tenant-info', headers: session },
      dashboard: { path: '/same/dashboard', headers: session },
      dashboardGzip: { path: '/same/dashboard-gzip', headers: gzipSession },
    };
    const onMock = {
      lightRead: { path: '/mobile/tenant-info', headers: session },
      dashboard: { path: dashboardPath, headers: gzipSession },
    };
    [T0.bare, C.tenantInfo, C.dashboard, C.dashboardGzip, T0.lightRead, T0.dashboard] = await loadAlternating(
      pairs(onBare, onMock),
    );
    // the cross-check: the same requests driven by wrk, which costs far less per byte read than autocannon
    const W = (results.wrk = hasWrk() ? {} : { error: 'wrk is not installed (Debian: apt-get install wrk)' });
    if (!W.error) {
      log('cross-check with wrk');
      [W.bare, W.tenantInfoCeiling, W.dashboardGzipCeiling, W.lightRead, W.dashboard] = await loadAlternating(
        pairs({ ...onBare, dashboard: undefined }, onMock),
        { generator: wrkRound },
      );
    }
    await bare.stop();

    // ---- the mock's other workloads
    T0.dashboardPlain = await load('GET /dashboard (13 widgets, 2 infos), no Accept-Encoding', {
      port: m,
      path: dashboardPath,
      headers: session,
    });
    const now = new Date();
    const ym = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    const lastDay = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)).getUTCDate();
    const calendarPath = `/calendar?start_date_time=${encodeURIComponent(`${ym}-01 00:00:00`)}&end_date_time=${encodeURIComponent(`${ym}-${lastDay} 23:59:59`)}`;
    const cal = await call(m, 'GET', calendarPath, session);
    if (cal.status !== 200) throw new Error(`calendar: ${cal.status} ${cal.body.slice(0, 200)}`);
    T0.calendar = await load('GET /calendar (a month)', { port: m, path: calendarPath, headers: session });
    const tickets = await call(m, 'GET', '/api/v2/workflow-ticket/?page=3', apiKey);
    if (tickets.status !== 200 || JSON.parse(tickets.body).data.length === 0)
      throw new Error(`tickets page 3: ${tickets.status} ${tickets.body.slice(0, 200)}`);
    T0.tickets = await load('GET /api/v2/workflow-ticket/?page=3 (API key)', {
      port: m,
      path: '/api/v2/workflow-ticket/?page=3',
      headers: apiKey,
    });
    const pushes = JSON.parse((await call(m, 'GET', '/notifications/pushes', session)).body);
    const notificationId = pushes.data[0]?.id;
    const ideas = JSON.parse((await call(m, 'GET', '/idea/index', session)).body);
    const ideaId = ideas.data.find((i) => i.idea_status_id === 2)?.id ?? ideas.data[0]?.id;
    T0.markSeen = await load('POST /notifications/mark-seen', {
      port: m,
      method: 'POST',
      path: `/notifications/mark-seen?notificationId=${notificationId}`,
      headers: session,
    });
    T0.ideaVote = await load('POST /idea/vote', {
      port: m,
      method: 'POST',
      path: `/idea/vote?id=${ideaId}`,
      headers: session,
    });
    T0.signIn = await load(
      'sign-in: POST /mobile/manual-bind + POST /mobile/auth (sequences/s)',
      { port: m, requests: signInRequests({ ...demo, tenantId: T }) },
      { perSequence: 2 },
    );
    results.memory.underLoadDefault = memory(mock.pid);

    await mock.stop();

    // ---- the journal's cost: two fresh instances with the same history (start, sign-in, load), measured in
    // alternation, round by round, so that a neighbour's load on this shared machine falls on both alike. The
    // instance above has served every workload; comparing it with a fresh one would count that history as the
    // journal's cost.
    const journalOn = await startMock([], 'portal-mock');
    running.push(journalOn);
    const journalOff = await startMock(['--journal-limit', '0'], 'portal-mock --journal-limit 0');
    running.push(journalOff);
    const alternated = await loadAlternating([
      {
        label: 'GET /mobile/tenant-info, fresh instance',
        pid: journalOn.pid,
        opts: { port: journalOn.port, path: '/mobile/tenant-info', headers: await demoSession(journalOn.port) },
      },
      {
        label: 'GET /mobile/tenant-info, fresh instance, --journal-limit 0',
        pid: journalOff.pid,
        opts: { port: journalOff.port, path: '/mobile/tenant-info', headers: await demoSession(journalOff.port) },
      },
    ]);
    [T0.lightReadFresh, T0.lightReadNoJournal] = alternated;
    // the journal's cost: the median over the rounds of 1 − on/off, each pair measured back to back
    results.journalCostPct = round(
      median(alternated[0].roundsRps.map((on, i) => 1 - on / alternated[1].roundsRps[i])) * 100,
      1,
    );
    await journalOn.stop();
    await journalOff.stop();

    // ---- idle memory at rest: the instance started after the start-up runs, untouched since
    clearInterval(restSampler);
    results.memory.idleDefaultAtRest = atRestMemory(restSamples, memory(atRest.pid).rssMB);
    log(`  at rest: ${JSON.stringify(results.memory.idleDefaultAtRest)}`);
    await atRest.stop();

    // ---- memory of extra sandboxes: on a fresh mock at rest (a mock after a load carries that load's heap, which hides them)
    const idle = await startMock([], 'portal-mock (sandboxes)');
    running.push(idle);
    const idleSession = await demoSession(idle.port);
    await sleep(1500);
    const before = memory(idle.pid).rssMB;
    const sandboxes = 20;
    for (let i = 0; i < sandboxes; i++)
      await call(idle.port, 'GET', '/mobile/tenant-info', { ...idleSession, 'x-mock-sandbox': `bench-sandbox-${i}` });
    await sleep(1500);
    const after = memory(idle.pid).rssMB;
    results.memory.sandboxes = {
      count: sandboxes,
      rssBeforeMB: before,
      rssAfterMB: after,
      perSandboxMB: round((after - before) / sandboxes, 2),
    };
    log(`  ${sandboxes} sandboxes: RSS ${before} → ${after} MB (${results.memory.sandboxes.perSandboxMB} MB each)`);
    await idle.stop();

    // ---- peers
    const prismPort = await freePort();
    const spec = writePrismSpec(tmp);
    try {
      const prism = await start(
        'prism',
        join(root, 'bench', 'node_modules', '.bin', 'prism'),
        ['mock', '-h', '127.0.0.1', '-p', String(prismPort), spec],
        prismPort,
        { timeoutMs: 60_000 },
      );
      running.push(prism);
      results.startup.prismMs = round(prism.startMs, 0);
      T0.prism = await load('Stoplight Prism, GET /mobile/tenant-info', {
        port: prismPort,
        path: '/mobile/tenant-info',
        headers: session,
      });
      results.memory.prism = memory(prism.pid);
      await prism.stop();
    } catch (err) {
      log(`  prism: ${err.message}`);
      T0.prism = { label: 'Stoplight Prism', error: String(err.message).slice(0, 300) };
    }
    const jar = wiremockJar(root);
    try {
      if (!jar) throw new Error('wiremock jar not found');
      const wmPort = await freePort();
      const wm = await start(
        'wiremock',
        'java',
        [
          '-jar',
          jar,
          '--port',
          String(wmPort),
          '--bind-address',
          '127.0.0.1',
          '--root-dir',
          writeWiremockRoot(join(tmp, 'wiremock')),
          '--disable-banner',
          '--max-request-journal-entries',
          '1000',
        ],
        wmPort,
        { timeoutMs: 60_000 },
      );
      running.push(wm);
      results.startup.wiremockMs = round(wm.startMs, 0);
      T0.wiremock = await load('WireMock, GET /mobile/tenant-info', {
        port: wmPort,
        path: '/mobile/tenant-info',
        headers: session,
      });
      results.memory.wiremock = memory(wm.pid);
      await wm.stop();
    } catch (err) {
      log(`  wiremock: ${err.message}`);
      T0.wiremock = { label: 'WireMock', error: String(err.message).slice(0, 300) };
    }

    // ---- scale: 100 000 users per tenant
    log(`scale: --users ${scaleUsers}`);
    await scalePhase(results, running);
  } finally {
    await cleanup();
  }
  results.records = recordsApi();
  results.consumer = consumerCost();
  results.mcp = mcpSection();
  results.wallSeconds = round((performance.now() - t0) / 1000, 0);
  // after the timed part: its cache-busting client alone runs 10 minutes (--busting-minutes=M, passed on)
  results.abuse = abuseSection();
  finish(results);
}

/**
 * Start-up, memory and p99 with --users 100 000 per tenant; a start-up over the limit is reported, not fatal. The
 * start-up is the median of `scaleStarts` starts (one start moved by 20% between sittings on the shared machine),
 * each with the CPU time the server used to its first 200; the last start serves the loads.
 */
async function scalePhase(results, running) {
  let big;
  const starts = [];
  try {
    for (let i = 0; i < cfg.scaleStarts; i++) {
      if (big) await big.stop();
      const port = await freePort();
      big = await start(
        `portal-mock --users ${scaleUsers}`,
        mockBin,
        mockArgs(port, ['--users', String(scaleUsers)]),
        port,
        { timeoutMs: scaleStartLimitMs },
      );
      starts.push({ ms: round(big.startMs, 0), cpuMs: cpuMs(big.pid) });
    }
  } catch (err) {
    log(`  ${err.message.split('\n')[0]}`);
    results.startup.users100kMs = null;
    results.startup.users100kError = `no first 200 within ${scaleStartLimitMs / 1000} s`;
    return;
  }
  {
    running.push(big);
    results.startup.users100kMs = median(starts.map((s) => s.ms));
    results.startup.users100kRuns = starts;
    await sleep(500);
    results.memory.idleUsers100k = memory(big.pid);
    log(
      `  ${results.startup.users100kMs} ms to first 200 (median; ${starts.map((s) => `${s.ms} ms, CPU ${s.cpuMs} ms`).join('; ')}); idle RSS ${results.memory.idleUsers100k.rssMB} MB`,
    );
    const bigSession = await demoSession(big.port);
    const S = results.scale;
    const scaleLoad = (label, path) =>
      load(
        label,
        { port: big.port, path, headers: bigSession },
        { connections: 10, rounds: cfg.scaleRounds, duration: cfg.scaleDuration },
      );
    S.userSearch = await scaleLoad('GET /user/search?q=иван', `/user/search?q=${encodeURIComponent('иван')}`);
    S.departmentSearch = await scaleLoad(
      'GET /department/search?q=отдел',
      `/department/search?q=${encodeURIComponent('отдел')}`,
    );
    S.userIndex = await scaleLoad(
      'GET /user/index?last_name=ов&reg_status_id=2&sort=-created_at&page=3',
      `/user/index?last_name=${encodeURIComponent('ов')}&reg_status_id=2&sort=-created_at&page=3`,
    );
    S.treeNode = await scaleLoad('GET /department/tree-node (root)', '/department/tree-node');
    S.dashboard = await scaleLoad('GET /dashboard (13 widgets)', dashboardPath);
    results.memory.underLoadUsers100k = memory(big.pid);
    await big.stop();
  }
}

const ratio = (x, bare) => (typeof x === 'number' && bare ? `${round((x / bare) * 100, 1)}%` : '–');

/**
 * The issue's targets, each with its figures and whether it holds. A ratio to bare Fastify is judged under each load
 * generator that ran it, except where the generator cannot reach the target at all: where bare Fastify sending the
 * very same bytes (that generator's ceiling for the answer) stays below it. Where it is judged, it must hold.
 */
function targets(r) {
  const tp = r.throughput;
  const w = r.wrk && !r.wrk.error ? r.wrk : {};
  const c = r.ceilings ?? {};
  const under = [
    {
      name: 'autocannon',
      bare: tp.bare,
      light: tp.lightRead,
      dash: tp.dashboard,
      lightCeiling: c.tenantInfo,
      dashCeiling: c.dashboardGzip,
    },
    {
      name: 'wrk',
      bare: w.bare,
      light: w.lightRead,
      dash: w.dashboard,
      lightCeiling: w.tenantInfoCeiling,
      dashCeiling: w.dashboardGzipCeiling,
    },
  ];
  const verdict = (checks) => (checks.length === 0 ? 'not measured' : checks.every(Boolean) ? 'yes' : 'no');
  // min: one percentage, or one per load generator ({ autocannon: 45, wrk: 40 })
  const ratioTarget = (target, minimum, pick, ceilingOf) => {
    const figures = [];
    const checks = [];
    for (const g of under) {
      const min = typeof minimum === 'number' ? minimum : minimum[g.name];
      const mock = pick(g);
      if (!mock?.rps || !g.bare?.rps) continue;
      const pct = (mock.rps / g.bare.rps) * 100;
      const ceiling = ceilingOf(g)?.rps ? (ceilingOf(g).rps / g.bare.rps) * 100 : null;
      if (ceiling !== null && ceiling < min) {
        figures.push(
          `${g.name} ${round(pct, 1)}% (not judged: bare Fastify sending the same bytes reaches ${round(ceiling, 1)}%)`,
        );
        continue;
      }
      figures.push(`${g.name} ${round(pct, 1)}%`);
      checks.push(pct >= min);
    }
    return { target, figure: figures.join('; ') || '–', holds: verdict(checks) };
  };
  const p99s = under.filter((g) => g.light?.p99ms !== undefined && g.dash?.p99ms !== undefined);
  const journalPct = r.journalCostPct ?? null;
  const scaleP99 = Object.values(r.scale ?? {}).map((s) => s.p99ms);
  const recordRows = r.records?.rows ?? [];
  const heavy = [tp.calendar?.p99ms, tp.tickets?.p99ms, tp.signIn?.p99ms];
  const prismTimes = tp.lightRead?.rps && tp.prism?.rps ? tp.lightRead.rps / tp.prism.rps : null;
  const check = (value, ok) => (value === null || value === undefined ? 'not measured' : ok(value) ? 'yes' : 'no');
  return [
    ratioTarget(
      'light read ≥ 45% of bare (autocannon), ≥ 40% (wrk)',
      { autocannon: 45, wrk: 40 },
      (g) => g.light,
      (g) => g.lightCeiling,
    ),
    ratioTarget(
      'dashboard (gzip, as the apps ask) ≥ 30% of bare',
      30,
      (g) => g.dash,
      (g) => g.dashCeiling,
    ),
    {
      target: 'p99 ≤ 10 ms at 50 connections (light read / dashboard)',
      figure: p99s.map((g) => `${g.name} ${g.light.p99ms} / ${g.dash.p99ms} ms`).join('; ') || '–',
      holds: verdict(p99s.map((g) => g.light.p99ms <= 10 && g.dash.p99ms <= 10)),
    },
    {
      target: 'p99 ≤ 30 ms at 50 connections: calendar month / ticket page 3 / sign-in pair',
      figure: heavy.some((x) => x === undefined) ? '–' : heavy.map((x) => `${x} ms`).join(' / '),
      holds: heavy.some((x) => x === undefined) ? 'not measured' : verdict(heavy.map((x) => x <= 30)),
    },
    {
      target: '≥ 10× Prism on the light read',
      figure: prismTimes ? `${round(prismTimes, 1)}×` : '–',
      holds: check(prismTimes, (x) => x >= 10),
    },
    {
      target: 'start-up ≤ 0.6 s, default data',
      figure: `${r.startup.defaultMs} ms`,
      holds: check(r.startup.defaultMs, (x) => x <= 600),
    },
    {
      target: `start-up ≤ 10 s, --users ${scaleUsers}`,
      figure: r.startup.users100kMs ? `${round(r.startup.users100kMs / 1000, 1)} s` : (r.startup.users100kError ?? '–'),
      holds: r.startup.users100kError ? 'no' : check(r.startup.users100kMs, (x) => x <= 10_000),
    },
    {
      target: 'RSS ≤ 120 MB idle, default data',
      figure: r.memory.idleDefaultAtRest
        ? `${r.memory.idleDefaultAtRest.rssMB} MB at rest (from ${r.memory.idleDefaultAtRest.settledAfterS} s after ready); ` +
          `${r.memory.idleDefault?.rssMB} MB 1 s after ready`
        : `${r.memory.idleDefault?.rssMB} MB 1 s after ready`,
      holds: check(r.memory.idleDefaultAtRest?.rssMB, (x) => x <= 120),
    },
    {
      target: 'each extra sandbox ≤ 5 MB',
      figure: `${r.memory.sandboxes?.perSandboxMB} MB`,
      holds: check(r.memory.sandboxes?.perSandboxMB, (x) => x <= 5),
    },
    {
      target: `--users ${scaleUsers}: search, filtered lists, tree and dashboard p99 ≤ 20 ms at 10 connections`,
      figure: scaleP99.length ? `${Math.max(...scaleP99)} ms at most` : '–',
      holds: scaleP99.length ? check(Math.max(...scaleP99), (x) => x <= 20) : 'not measured',
    },
    {
      target: 'the journal costs ≤ 10% of throughput',
      figure: journalPct === null ? '–' : `${round(journalPct, 1)}%`,
      holds: check(journalPct, (x) => x <= 10),
    },
    {
      target: 'records API: create p50 ≤ 1 ms in memory, ≤ 2 ms with --data; collection read ≤ 10 ms',
      figure: recordRows.length ? recordRows.map((x) => `${x.what} (${x.mode}) ${x.p50} ms`).join('; ') : '–',
      holds: recordRows.length
        ? verdict(recordRows.map((x) => x.p50 <= (x.what.startsWith('read') ? 10 : x.mode === '--data' ? 2 : 1)))
        : 'not measured',
    },
    ...consumerTargets(r.consumer),
    ...mcpTargets(r.mcp),
    ...abuseTargets(r.abuse?.rows ?? []),
    {
      target: 'the whole benchmark < 10 minutes (without the abuse section)',
      figure: `${r.wallSeconds} s`,
      holds: check(r.wallSeconds, (x) => x < 600),
    },
  ];
}

function markdown(r) {
  const bare = r.throughput.bare?.rps;
  const m = r.machine;
  const lines = [
    `Measured ${r.date.slice(0, 16).replace('T', ' ')} UTC${r.quick ? ' (quick run)' : ''} on ${m.cpus} × ${m.cpuModel}, ${m.memoryGB} GB, Node ${m.node}, ${m.platform}. ` +
      `Load generators over loopback on the same machine: autocannon (every workload) and, when installed, wrk (Debian's, one thread: the light read, the dashboard and their ceilings); ` +
      `${r.settings.connections} connections, warm-up ${r.settings.warmup} s, then ${r.settings.rounds} rounds × ${r.settings.duration} s: median (min–max). ` +
      `Ratios are to the bare Fastify server of the same run under the same generator; the workloads of the ratio targets (bare Fastify and its ceilings, the light read, the gzipped dashboard) and the journal on and off are measured in ${r.settings.rounds + 1} alternated rounds (a, b, c, then c, b, a …), so a busy stretch of the shared machine falls on all of them. ` +
      `A ratio target is judged under each generator except where bare Fastify sending the very same bytes stays below it (that generator's ceiling).`,
    '',
    '| target | figures | holds |',
    '|---|---|---|',
    ...targets(r).map((x) => `| ${x.target} | ${x.figure} | ${x.holds} |`),
    '',
    'autocannon, every workload:',
    '',
    '| workload | req/s | vs bare | p99 ms | spread |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const [, t] of Object.entries(r.throughput)) {
    if (t.error) {
      lines.push(`| ${t.label} | did not run: ${t.error.replace(/\|/g, '/').slice(0, 80)} | | | |`);
      continue;
    }
    lines.push(
      `| ${t.label} | ${t.rps} (${t.rpsMin}–${t.rpsMax}) | ${ratio(t.rps, bare)} | ${t.p99ms} | ${t.spreadPct}% |`,
    );
  }
  const c = r.ceilings ?? {};
  if (c.tenantInfo && c.dashboard) {
    lines.push(
      '',
      'The ceiling for answers of the same size: bare Fastify sending the very bytes the mock answers, ready-made (strings; the gzipped answer as bytes).',
      '',
      '| workload | req/s | vs bare | p99 ms | the mock vs this ceiling |',
      '|---|---:|---:|---:|---:|',
      `| ${c.tenantInfo.label} (${r.sizes?.tenantInfo ?? '?'} B) | ${c.tenantInfo.rps} | ${ratio(c.tenantInfo.rps, bare)} | ${c.tenantInfo.p99ms} | ${ratio(r.throughput.lightRead?.rps, c.tenantInfo.rps)} |`,
      `| ${c.dashboard.label} (${r.sizes?.dashboard ?? '?'} B) | ${c.dashboard.rps} | ${ratio(c.dashboard.rps, bare)} | ${c.dashboard.p99ms} | ${ratio((r.throughput.dashboardPlain ?? r.throughput.dashboard)?.rps, c.dashboard.rps)} |`,
    );
    if (c.dashboardGzip) {
      lines.push(
        `| ${c.dashboardGzip.label} (${r.sizes?.dashboardGzip ?? '?'} B) | ${c.dashboardGzip.rps} | ${ratio(c.dashboardGzip.rps, bare)} | ${c.dashboardGzip.p99ms} | ${ratio(r.throughput.dashboard?.rps, c.dashboardGzip.rps)} |`,
      );
    }
  }
  const w = r.wrk ?? { error: 'not measured in this run' };
  lines.push(
    '',
    `Cross-check with wrk (Debian's, one thread, ${r.settings.connections} connections, the same rounds), ratios to bare Fastify under wrk:`,
  );
  if (w.error) lines.push('', `not run: ${w.error}.`);
  else {
    lines.push('', '| workload (wrk) | req/s | vs bare | p99 ms | spread |', '|---|---:|---:|---:|---:|');
    for (const t of [w.bare, w.tenantInfoCeiling, w.dashboardGzipCeiling, w.lightRead, w.dashboard]) {
      if (t)
        lines.push(
          `| ${t.label} | ${t.rps} (${t.rpsMin}–${t.rpsMax}) | ${ratio(t.rps, w.bare?.rps)} | ${t.p99ms} | ${t.spreadPct}% |`,
        );
    }
  }
  const lr = r.throughput.lightRead?.rps;
  const on = r.throughput.lightReadFresh;
  const nj = r.throughput.lightReadNoJournal;
  const prism = r.throughput.prism?.rps;
  lines.push(
    '',
    `Journal cost on the light read (two fresh instances, on and off, rounds alternated): ${r.journalCostPct ?? '–'}% of throughput, ` +
      `the median of the rounds' 1 − on/off (on ${on?.roundsRps?.join(', ') ?? '–'}; off ${nj?.roundsRps?.join(', ') ?? '–'} req/s); ` +
      `server CPU per request ${on?.cpuUsPerRequest ?? '–'} µs on, ${nj?.cpuUsPerRequest ?? '–'} µs off. ` +
      `Light read vs Prism: ${lr && prism ? `${round(lr / prism, 1)}×` : '–'}.`,
  );
  lines.push(
    '',
    '| start-up and memory | value |',
    '|---|---:|',
    `| start to first 200, default data (median of ${r.startup.defaultRunsMs?.length}) | ${r.startup.defaultMs} ms |`,
    `| start to first 200, --users ${scaleUsers} (median of ${r.startup.users100kRuns?.length ?? 1}; CPU ${r.startup.users100kRuns?.map((s) => s.cpuMs).join(' / ') ?? '–'} ms) | ${r.startup.users100kMs !== null && r.startup.users100kMs !== undefined ? `${r.startup.users100kMs} ms` : r.startup.users100kError} |`,
    `| RSS 1 s after ready, default data | ${r.memory.idleDefault?.rssMB} MB |`,
    `| RSS at rest, default data: an instance left alone ${r.memory.idleDefaultAtRest?.quietS ?? '–'} s (${r.memory.idleDefaultAtRest?.firstSecondMB ?? '–'} MB after 1 s; within 2 MB of the end from ${r.memory.idleDefaultAtRest?.settledAfterS ?? '–'} s) | ${r.memory.idleDefaultAtRest?.rssMB ?? '–'} MB |`,
    `| peak RSS (VmHWM) after the default-data load | ${r.memory.underLoadDefault?.hwmMB} MB |`,
    `| RSS per extra sandbox (${r.memory.sandboxes?.count} created) | ${r.memory.sandboxes?.perSandboxMB} MB |`,
    `| RSS idle, --users ${scaleUsers} | ${r.memory.idleUsers100k?.rssMB} MB |`,
    `| peak RSS (VmHWM), --users ${scaleUsers} under load | ${r.memory.underLoadUsers100k?.hwmMB} MB |`,
    `| Prism: start / RSS after load | ${r.startup.prismMs ?? '–'} ms / ${r.memory.prism?.rssMB ?? '–'} MB |`,
    `| WireMock: start / RSS after load | ${r.startup.wiremockMs ?? '–'} ms / ${r.memory.wiremock?.rssMB ?? '–'} MB |`,
  );
  lines.push(
    '',
    `With --users ${scaleUsers} per tenant, 10 connections, ${r.settings.scaleRounds} × ${r.settings.scaleDuration} s:`,
    '',
    '| workload | req/s | p50 ms | p99 ms |',
    '|---|---:|---:|---:|',
  );
  for (const [, s] of Object.entries(r.scale)) lines.push(`| ${s.label} | ${s.rps} | ${s.p50ms} | ${s.p99ms} |`);
  lines.push('', 'Records API (bench/records.mjs: sequential creates over one keep-alive connection):', '');
  if (r.records?.rows) {
    lines.push('| what | mode | p50 ms | p99 ms | memory |', '|---|---|---:|---:|---|');
    for (const x of r.records.rows) lines.push(`| ${x.what} | ${x.mode} | ${x.p50} | ${x.p99} | ${x.memory} |`);
  } else lines.push(r.records?.error ?? 'not measured');
  lines.push('', 'What a consumer pays (bench/consumer.mjs):', '');
  if (r.consumer && !r.consumer.error) {
    lines.push(consumerTable(r.consumer));
    if (r.consumer.dependencies) lines.push('', dependencyTable(r.consumer));
  } else lines.push(r.consumer?.error ?? 'not measured');
  lines.push('', 'What an agent pays through the MCP endpoint (bench/mcp.mjs):', '');
  lines.push(r.mcp && !r.mcp.error ? mcpTable(r.mcp) : (r.mcp?.error ?? 'not measured'));
  lines.push(
    '',
    r.abuse?.rows ? abuseMarkdown(r.abuse.rows, r.abuse.meta) : `Abuse: ${r.abuse?.error ?? 'not measured'}.`,
  );
  lines.push(
    '',
    `Whole benchmark: ${r.wallSeconds} s${r.abuse?.meta ? `, then the abuse section ${r.abuse.meta.seconds} s` : ''}.`,
  );
  return lines.join('\n');
}

/** bench/records.mjs (issue 33): creates in memory and with --data, heap per record, a collection read. */
function recordsApi() {
  log('records API: bench/records.mjs');
  const args = ['--expose-gc', join(root, 'bench', 'records.mjs'), `--creates=${quick ? 300 : 2000}`, '--json'];
  const run = spawnSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (run.status !== 0) return { error: `bench/records.mjs exited ${run.status}` };
  return { rows: JSON.parse(run.stdout.trim().split('\n').at(-1)) };
}

/** bench/consumer.mjs (issue 47): the package's size, the install, the client's type-check, the first use. */
function consumerCost() {
  log('consumer: bench/consumer.mjs');
  const out = join(os.tmpdir(), `portal-mock-consumer-${process.pid}.json`);
  const argv = [join(root, 'bench', 'consumer.mjs'), `--json=${out}`, ...(quick ? ['--quick'] : [])];
  const run = spawnSync(process.execPath, argv, { encoding: 'utf8', stdio: ['ignore', 'ignore', 'inherit'] });
  if (run.status !== 0) return { error: `bench/consumer.mjs exited ${run.status}` };
  const result = JSON.parse(readFileSync(out, 'utf8'));
  rmSync(out, { force: true });
  return result;
}

/** bench/mcp.mjs (issue 48): tool calls to an arranged, signed-in sandbox, tools/list latency, the list's size. */
function mcpSection() {
  log('mcp: bench/mcp.mjs');
  const argv = [join(root, 'bench', 'mcp.mjs'), '--json', ...(quick ? ['--quick'] : [])];
  const run = spawnSync(process.execPath, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (run.status !== 0) return { error: `bench/mcp.mjs exited ${run.status}` };
  return JSON.parse(run.stdout.trim().split('\n').at(-1));
}

/** The issue's targets for what a consumer pays. */
function consumerTargets(c) {
  if (!c || c.error) return [];
  const check = (value, ok) => (value === null || value === undefined ? 'not measured' : ok(value) ? 'yes' : 'no');
  return [
    {
      target: 'tsc of a test importing portal-mock/admin ≤ 1.5× one importing only Node types',
      figure: `${c.tscRatio}×`,
      holds: check(c.tscRatio, (x) => x <= 1.5),
    },
    {
      target: "tsc of a test importing startMock ≤ 1.5× Node types only, files within 10% of the client's",
      figure: `${c.tscStartRatio}×, ${c.tscStartFiles} files against ${c.tscClientFiles}`,
      holds: check(c.tscStartRatio, (x) => x <= 1.5 && c.tscStartFiles <= c.tscClientFiles * 1.1),
    },
    {
      target: 'first use: import to first record (import, startMock, first sandbox, first record) ≤ 1 s',
      figure: `${c.firstUseMs} ms`,
      holds: check(c.firstUseMs, (x) => x <= 1000),
    },
  ];
}

/**
 * bench/abuse.mjs (issue 45): RSS after many sandboxes' calendar windows, RSS under a cache-busting client, the
 * longest event-loop stall and the health p99 while each abuser runs. Outside "the whole benchmark < 10 minutes".
 */
function abuseSection() {
  log('abuse: bench/abuse.mjs');
  const passed = args.filter((a) => /^--(busting-minutes|limit-s|sandboxes|windows|windows-limit-s|only)=/.test(a));
  const argv = [join(root, 'bench', 'abuse.mjs'), '--json', ...(quick ? ['--quick'] : []), ...passed];
  const run = spawnSync(process.execPath, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (run.status !== 0) return { error: `bench/abuse.mjs exited ${run.status}` };
  return JSON.parse(run.stdout.trim().split('\n').at(-1));
}

function finish(r) {
  const md = markdown(r);
  const dir = join(root, 'bench', 'results');
  writeFileSync(join(dir, `${outName}.json`), `${JSON.stringify(r, null, 2)}\n`);
  writeFileSync(join(dir, `${outName}.md`), `# portal-mock benchmark\n\n${md}\n`);
  if (!r.quick && outName === 'latest') {
    const readme = join(root, 'docs', 'performance.md');
    const text = readFileSync(readme, 'utf8');
    const startMark = '<!-- bench:start -->';
    const endMark = '<!-- bench:end -->';
    const a = text.indexOf(startMark);
    const b = text.indexOf(endMark);
    if (a >= 0 && b > a) writeFileSync(readme, `${text.slice(0, a + startMark.length)}\n${md}\n${text.slice(b)}`);
  }
  process.stdout.write(`${md}\n`);
}

// --render: rewrite the Markdown (and the block in docs/performance.md) from the saved JSON, without measuring
if (args.includes('--render'))
  finish(JSON.parse(readFileSync(join(root, 'bench', 'results', `${outName}.json`), 'utf8')));
else
  main().catch((err) => {
    log(err.stack ?? String(err));
    process.exit(1);
  });
