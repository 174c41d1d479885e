// The abuse section of the benchmark (issue 45, build 8): `node bench/abuse.mjs [--quick] [--busting-minutes=M]
// [--limit-s=S] [--json]` after `npm run build`; `npm run bench` runs it last and puts its table in the report.
// Each abuser gets a fresh built mock (bin/portal-mock.js, as a user starts it) and runs while a probe asks
// GET /__admin/health every 50 ms over its own connection; around it the server's own event-loop delay is read
// (GET /__admin/health?loop=true, a 10 ms sampling timer as perf_hooks.monitorEventLoopDelay: the longest stall),
// and its RSS from /proc.
// Every abuser is time-bounded: past its limit the script stops waiting, reports "> N s", and kills that server (a
// request still blocking its event loop would never let it answer), so the section ends whatever the build does.
// Targets (issue 45, a quiet 2-core machine): RSS <= 600 MB after 1,000 sandboxes x 50 calendar windows; no
// out-of-memory under the cache-busting client; longest event-loop stall <= 100 ms; health p99 <= 50 ms.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { call, healthProbe, quantile, romashka, startBin } from './http.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const given = args.find((a) => a.startsWith(`--${name}=`));
  return given === undefined ? fallback : Number(given.slice(name.length + 3));
};
const quick = args.includes('--quick');
const asJson = args.includes('--json');
/** how long the cache-busting client runs */
const bustingMinutes = flag('busting-minutes', quick ? 0.5 : 10);
/** how long any other abuser may take before the script stops waiting for it */
const limitS = flag('limit-s', quick ? 15 : 120);
/** 1,000 sandboxes x 50 windows in the full run; a tenth of the sandboxes with --quick (the same windows) */
const windowSandboxes = flag('sandboxes', quick ? 100 : 1000);
const windowsPerSandbox = flag('windows', 50);
const windowsLimitS = flag('windows-limit-s', quick ? 60 : 1800);

const began = performance.now();
const log = (...m) => process.stderr.write(`[${round((performance.now() - began) / 1000)} s] ${m.join(' ')}\n`);
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const T = romashka.tenantId;

function rssMB(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
    return { rssMB: round(kb('VmRSS') / 1024), hwmMB: round(kb('VmHWM') / 1024) };
  } catch {
    return { rssMB: null, hwmMB: null };
  }
}

/** A fresh mock (the bin, as a user starts it), ready once its health answers. */
async function startMock(extra = []) {
  const { port, proc, stderr } = await startBin(root, extra);
  const mock = { port, proc, pid: proc.pid, exit: null, stderr };
  proc.once('exit', (code, signal) => {
    mock.exit = { code, signal };
    if (!mock.stopping) log(`  the mock exited: ${code ?? signal} ${stderr().split('\n').slice(-4).join(' ')}`);
  });
  return mock;
}

function stop(mock) {
  mock.stopping = true;
  return new Promise((resolve) => {
    if (mock.exit) return resolve();
    const timer = setTimeout(() => mock.proc.kill('SIGKILL'), 3000);
    mock.proc.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    mock.proc.kill('SIGTERM');
  });
}

/** `promise`, or `fallback` once `ms` have passed (the request is left to the socket). */
function within(promise, ms, fallback = null) {
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  const settled = promise.catch((err) => ({ error: String(err.message ?? err) }));
  // the timer cleared once the promise settles: a pending one would keep this script alive until it fired
  return Promise.race([settled, late]).finally(() => clearTimeout(timer));
}

/** The server's event-loop delay since its previous ?loop=true read (null when it does not answer within `ms`). */
async function loopDelay(mock, ms = 5000) {
  const res = await within(call(mock.port, 'GET', '/__admin/health?loop=true'), ms);
  if (res?.status !== 200) return null;
  return JSON.parse(res.body).eventLoop ?? null;
}

/** The health probe of bench/probe.mjs, in a process of its own, stopped before the mock. */
const probe = (mock) => healthProbe(mock.port);

/** A session of the demo admin on its bound device, in `sandbox`. */
async function session(port, sandbox, agent) {
  const { device } = romashka;
  const res = await call(
    port,
    'POST',
    '/mobile/auth',
    { 'x-service-tenant-id': T, 'x-mock-sandbox': sandbox },
    device,
    agent,
  );
  if (res.status !== 200) throw new Error(`auth in ${sandbox}: ${res.status} ${res.body.slice(0, 200)}`);
  const { sessionId, sessionSecret } = JSON.parse(res.body);
  return {
    'x-mock-sandbox': sandbox,
    'x-service-tenant-id': T,
    'x-service-device-id': device.deviceId,
    'x-service-session-id': sessionId,
    'x-service-session-code': sessionSecret,
    'accept-encoding': 'gzip', // as the apps send: the compressed bytes are kept too
  };
}

/** A calendar window `days` long starting `from` days after 2026-01-01. */
function calendarPath(from, days, extra = '') {
  const at = (d) => new Date(Date.UTC(2026, 0, 1 + d)).toISOString().slice(0, 10);
  const start = encodeURIComponent(`${at(from)} 00:00:00`);
  const end = encodeURIComponent(`${at(from + days)} 23:59:59`);
  return `/calendar?start_date_time=${start}&end_date_time=${end}${extra}`;
}

/** Runs `jobs` (async functions) `concurrency` at a time until they are done or `deadline` passes. */
async function pool(jobs, concurrency, deadline) {
  let next = 0;
  let failed = 0;
  let done = 0;
  const worker = async () => {
    while (next < jobs.length && performance.now() < deadline) {
      const job = jobs[next++];
      const ok = await within(job(), Math.max(0, deadline - performance.now()), 'late');
      if (ok === 'late') return;
      if (ok === false || ok?.error) failed++;
      done++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { done, failed, of: jobs.length };
}

/**
 * One abuser on a fresh mock: `setup` (not measured), then `work` while the probe runs, bounded by `limitMs`. Answers
 * the figures: whether it finished, how long it took, the longest stall, the health p99, RSS, and whether the
 * process lived.
 */
async function measure(name, { flags = [], setup = async () => ({}), work, limitMs }) {
  log(`abuse: ${name}`);
  const mock = await startMock(flags);
  log('  started');
  const row = { name };
  try {
    const ctx = await setup(mock);
    log('  set up');
    await loopDelay(mock); // starts the sampling, or starts a new period
    const p = probe(mock);
    const t0 = performance.now();
    const deadline = t0 + limitMs;
    const outcome = await within(work(mock, ctx, deadline), limitMs + 1000, { late: true });
    row.seconds = round((performance.now() - t0) / 1000);
    const late = outcome?.late || performance.now() > deadline;
    // an abuser that stopped at its deadline between requests says so with complete: false
    row.finished = !late && !outcome?.error && outcome?.complete !== false && !mock.exit;
    if (outcome?.error) row.error = outcome.error.slice(0, 200);
    Object.assign(row, outcome && typeof outcome === 'object' && !outcome.late ? outcome : {});
    const latencies = await p.stop();
    // past the limit the server may still be blocked by that request: a short wait, else no figure
    const loop = mock.exit ? null : await loopDelay(mock, late ? 2000 : 10_000);
    row.probes = latencies.length;
    row.healthP99Ms = round(quantile(latencies, 0.99) ?? Number.NaN);
    row.healthMaxMs = round(Math.max(...latencies, 0));
    // an abuser that read the delay itself (after each request) reports the longest it saw as stallingMs
    row.stallMs = loop ? Math.max(loop.maxMs, row.stallingMs ?? 0) : null;
    row.limitS = round(limitMs / 1000);
    Object.assign(row, rssMB(mock.pid));
    row.alive = !mock.exit;
    if (mock.exit) row.exit = `${mock.exit.code ?? mock.exit.signal}: ${mock.stderr().split('\n').slice(-3).join(' ')}`;
  } finally {
    if (!row.finished && !mock.exit) mock.proc.kill('SIGKILL'); // it may be blocked on that request for minutes
    await stop(mock);
  }
  log(`  ${JSON.stringify(row)}`);
  return row;
}

// ---- the abusers

/** 1,000 sandboxes x 50 distinct month windows of the calendar: RSS after. */
const windows = () =>
  measure(`${windowSandboxes} sandboxes × ${windowsPerSandbox} calendar windows`, {
    limitMs: windowsLimitS * 1000,
    work: async (mock, _ctx, deadline) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 4 });
      const jobs = [];
      for (let s = 0; s < windowSandboxes; s++) {
        jobs.push(async () => {
          if (s % 100 === 0) log(`  sandbox ${s}: RSS ${rssMB(mock.pid).rssMB} MB`);
          const headers = await session(mock.port, `win-${s}`, agent);
          for (let w = 0; w < windowsPerSandbox && performance.now() < deadline; w++) {
            const res = await call(mock.port, 'GET', calendarPath(w, 30), headers, undefined, agent);
            if (res.status !== 200) return false;
          }
          return true;
        });
      }
      const r = await pool(jobs, 4, deadline);
      agent.destroy();
      return { sandboxesDone: r.done, failed: r.failed, complete: r.done === r.of };
    },
  });

/** 40 sandboxes sending wide calendar reads with a new ?_= and a new window each time, for minutes: RSS after. */
const busting = () =>
  measure(`cache-busting calendar reads, ${bustingMinutes} min`, {
    limitMs: bustingMinutes * 60_000 + 30_000,
    setup: async (mock) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 8 });
      const sessions = [];
      for (let s = 0; s < 40; s++) sessions.push(await session(mock.port, `bust-${s}`, agent));
      // the route's validators and serializers are compiled on its first use, once per process: that stall is
      // reported apart, as full-sandbox does
      await loopDelay(mock);
      await call(mock.port, 'GET', calendarPath(0, 365), sessions[0], undefined, agent);
      const firstUseStallMs = round((await loopDelay(mock))?.maxMs ?? Number.NaN);
      log(`  first use of the calendar: longest stall ${firstUseStallMs} ms`);
      return { agent, sessions, firstUseStallMs };
    },
    work: async (mock, { agent, sessions, firstUseStallMs }, deadline) => {
      const end = Math.min(deadline, performance.now() + bustingMinutes * 60_000);
      let n = 0;
      let failed = 0;
      const worker = async (k) => {
        while (performance.now() < end && !mock.exit) {
          const i = n++;
          const path = calendarPath(i % 365, 365, `&_=${i}`);
          const res = await within(
            call(mock.port, 'GET', path, sessions[(i + k) % sessions.length], undefined, agent),
            Math.max(0, end - performance.now()),
          );
          if (!res) break;
          if (res.status !== 200) failed++;
        }
      };
      await Promise.all(Array.from({ length: 8 }, (_, k) => worker(k)));
      agent.destroy();
      return { requests: n, failed, firstUseStallMs };
    },
  });

const evilPattern = '((a{30}){30})$';
/** The costliest pattern --regex-max-program lets through at its default (300 instructions). */
const allowedPattern = 'a[ab]{296}$';

/** A stub whose body matcher is `pattern`, against a 1 MB body (the refused pattern, then the costliest allowed). */
const stubRegex = (pattern = evilPattern) =>
  measure(`stub regex ${pattern} against a 1 MB body`, {
    limitMs: limitS * 1000,
    setup: async (mock) => {
      const scenario = {
        name: 'abuse-regex',
        description: 'a stub whose body matcher is a costly RE2 pattern',
        stubs: [{ operationId: 'feedbackAdd', match: { body: { text: { regex: pattern } } }, status: 418 }],
      };
      const put = await call(mock.port, 'PUT', '/__admin/scenarios/abuse-regex', {}, scenario);
      if (put.status >= 300) throw new Error(`define: ${put.status} ${put.body.slice(0, 300)}`);
      const use = await call(mock.port, 'PUT', '/__admin/scenario?sandbox=regex', {}, { name: 'abuse-regex' });
      if (use.status >= 300) throw new Error(`activate: ${use.status} ${use.body.slice(0, 300)}`);
      const headers = await session(mock.port, 'regex');
      delete headers['accept-encoding'];
      return { headers };
    },
    work: async (mock, { headers }) => {
      const body = { type: 'user', score: 5, text: `${'ab'.repeat(500_000)}c` };
      const res = await call(mock.port, 'POST', '/feedback/add', headers, body);
      return { status: res.status };
    },
  });

/** A journal of 200 requests with 8 KiB bodies of "a", filtered with that regex. */
const journalRegex = () =>
  measure('journal filter body:regex=((a{30}){30})$ over 200 entries', {
    limitMs: limitS * 1000,
    setup: async (mock) => {
      // signed in: the journal keeps the body of a request that got past auth
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const headers = await session(mock.port, 'journal', agent);
      delete headers['accept-encoding'];
      const body = { type: 'user', score: 5, text: 'a'.repeat(8000) };
      for (let i = 0; i < 200; i++) await call(mock.port, 'POST', '/feedback/add', headers, body, agent);
      agent.destroy();
      return {};
    },
    work: async (mock) => {
      const filter = `body%3Aregex=${encodeURIComponent(evilPattern)}`;
      const res = await call(mock.port, 'GET', `/__admin/requests/count?sandbox=journal&${filter}`);
      return { status: res.status, answer: res.body.slice(0, 100) };
    },
  });

/** Ten POST /__admin/data/{tenant}/users?count=1000 one after the other. */
const recordsCount = () =>
  measure('10 × POST /__admin/data/{tenant}/users?count=1000', {
    limitMs: limitS * 1000,
    work: async (mock, _ctx, deadline) => {
      const statuses = [];
      for (let i = 0; i < 10 && performance.now() < deadline; i++) {
        const res = await within(
          call(mock.port, 'POST', `/__admin/data/${T}/users?count=1000&sandbox=records`, {}, {}),
          Math.max(0, deadline - performance.now()),
        );
        if (!res) break;
        statuses.push(res.status);
      }
      return { calls: statuses.length, statuses: [...new Set(statuses)].join(','), complete: statuses.length === 10 };
    },
  });

/**
 * A sandbox with every collection the records API serves filled to --max-records (2,000 with --quick), then every
 * portal GET that needs no parameter, once each: the slowest answer and the longest stall. Joins and walks that
 * scan a collection per record (calendar bids, workflow processes per ticket) showed here as seconds.
 */
const fullSandbox = () => {
  const perCollection = quick ? 2000 : 10_000;
  return measure(`every collection at ${perCollection} more records, then each portal GET once`, {
    flags: ['--max-records', String(perCollection)],
    limitMs: limitS * 1000 * 4,
    setup: async (mock) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const { collections } = JSON.parse((await call(mock.port, 'GET', '/__admin/data/collections')).body);
      // sessions and devices are made by signing in; a calendar event repeats (bench "windows" covers it)
      const filled = collections.filter((c) => !['sessions', 'devices', 'calendarEvents'].includes(c));
      const refused = [];
      for (const c of filled) {
        for (let made = 0; made < perCollection; made += 1000) {
          const path = `/__admin/data/${T}/${c}?sandbox=full&count=${Math.min(1000, perCollection - made)}`;
          const res = await call(mock.port, 'POST', path, {}, {}, agent);
          if (res.status !== 201) {
            refused.push(`${c} ${res.status}`);
            break;
          }
        }
      }
      const headers = await session(mock.port, 'full', agent);
      const doc = JSON.parse(readFileSync(join(root, 'openapi.json'), 'utf8'));
      const paths = Object.entries(doc.paths)
        .filter(([path, ops]) => ops.get && !path.includes('{'))
        .filter(([, ops]) => !(ops.get.parameters ?? []).some((x) => x.required))
        .map(([path]) => path);
      log(`  ${filled.length - refused.length} collections filled (${refused.join(', ') || 'none refused'})`);
      // each GET once in a sandbox of the seed first: a route's validators and serializers are compiled on its first
      // use, once per process, and that stall is not the data's (it is reported apart)
      const seeded = await session(mock.port, 'seeded', agent);
      await loopDelay(mock);
      let firstUse = { ms: 0, path: '' };
      for (const path of paths) {
        await call(mock.port, 'GET', path, seeded, undefined, agent);
        const loop = await loopDelay(mock);
        if (loop && loop.maxMs > firstUse.ms) firstUse = { ms: loop.maxMs, path };
      }
      log(`  first use of each route: longest stall ${round(firstUse.ms)} ms (${firstUse.path})`);
      return { agent, headers, paths, firstUse };
    },
    work: async (mock, { agent, headers, paths, firstUse }, deadline) => {
      let slowest = { ms: 0, path: '' };
      // the server's longest event-loop delay while each GET ran (read after each): which answer stalls it
      let stalling = { ms: 0, path: '' };
      let failed = 0;
      // every path whose answer held the loop more than 50 ms: the next to look at
      const stalls = [];
      for (const path of paths) {
        if (performance.now() > deadline) return { complete: false };
        const t0 = performance.now();
        const res = await call(mock.port, 'GET', path, headers, undefined, agent);
        const ms = performance.now() - t0;
        if (res.status >= 500) failed++;
        if (ms > slowest.ms) slowest = { ms: round(ms), path };
        const loop = await loopDelay(mock);
        if (loop && loop.maxMs > stalling.ms) stalling = { ms: loop.maxMs, path };
        if (loop && loop.maxMs > 50) stalls.push(`${path} ${round(loop.maxMs)}`);
      }
      agent.destroy();
      const { ms: slowestMs, path: slowestPath } = slowest;
      return {
        requests: paths.length,
        failed,
        slowestMs,
        slowestPath,
        stallingMs: stalling.ms,
        stallingPath: stalling.path,
        stalls: stalls.join(', '),
        firstUseStallMs: round(firstUse.ms),
        firstUsePath: firstUse.path,
      };
    },
  });
};

/** 200 scenario definitions of about 450 KB each under --data. */
const scenariosData = (dir) =>
  measure('200 × PUT /__admin/scenarios/{name} of ~450 KB under --data', {
    flags: ['--data', dir],
    limitMs: limitS * 1000,
    work: async (mock, _ctx, deadline) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const statuses = [];
      for (let i = 0; i < 200 && performance.now() < deadline; i++) {
        const scenario = {
          name: `abuse-${i}`,
          description: 'a large definition: one stub with a 450 KB body',
          stubs: [{ operationId: 'feedbackAdd', status: 503, body: { message: 'x'.repeat(450_000) } }],
        };
        const res = await within(
          call(mock.port, 'PUT', `/__admin/scenarios/abuse-${i}`, {}, scenario, agent),
          Math.max(0, deadline - performance.now()),
        );
        if (!res) break;
        statuses.push(res.status);
      }
      agent.destroy();
      return { calls: statuses.length, statuses: [...new Set(statuses)].join(','), complete: statuses.length === 200 };
    },
  });

/** GET `path` on `port`, its body counted and dropped as it comes: bytes and status. */
function drained(port, path) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path }, (res) => {
      let bytes = 0;
      res.on('data', (c) => {
        bytes += c.length;
      });
      res.on('end', () => resolve({ status: res.statusCode, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Exports of a large sandbox (issue 54, part 5): 1,000 ideas of 24,000 characters a records call (1 call with --quick,
 * 3 otherwise: about 25 or 75 MB of state) and a journal of 1,000 requests with 8 KiB bodies, then the state, its
 * capture and the whole journal as HAR read whole, while 8 clients that asked for the state read nothing: the longest
 * stall, health p99 and RSS while they stream.
 */
const exportsAbuser = () =>
  measure(`exports of a ${quick ? '25' : '75'} MB sandbox (state, capture, HAR) with 8 clients that read nothing`, {
    limitMs: limitS * 1000,
    setup: async (mock) => {
      const text = 'x'.repeat(12_000);
      for (let i = 0; i < (quick ? 1 : 3); i++) {
        const res = await call(
          mock.port,
          'POST',
          `/__admin/data/${T}/ideas?count=1000&sandbox=big`,
          {},
          { title: text, description: text },
        );
        if (res.status !== 201) throw new Error(`records: ${res.status} ${res.body.slice(0, 200)}`);
      }
      // a full journal for the HAR: 1,000 portal requests with an 8 KiB body each (the journal's default length)
      const agent = new Agent({ keepAlive: true, maxSockets: 16 });
      const headers = { 'x-mock-sandbox': 'big', 'x-service-tenant-id': T };
      const body = { email: 'nobody@romashka.test', note: 'ж'.repeat(8192) };
      let sent = 0;
      const journalOne = async () => {
        while (sent < 1000) {
          sent++;
          await call(mock.port, 'POST', '/mobile/request-two-factor', headers, body, agent);
        }
      };
      await Promise.all(Array.from({ length: 16 }, journalOne));
      agent.destroy();
      return {};
    },
    work: async (mock, _ctx, deadline) => {
      const stalled = Array.from({ length: 8 }, () => {
        const socket = connect({ port: mock.port, host: '127.0.0.1' });
        socket.pause(); // never reads: the server's export waits on it
        socket.on('error', () => {});
        socket.write('GET /__admin/state?sandbox=big HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
        return socket;
      });
      const out = {};
      for (const [key, path] of [
        ['state', '/__admin/state?sandbox=big'],
        ['capture', '/__admin/sandboxes/big/capture'],
        ['har', '/__admin/requests?format=har&limit=1000&sandbox=big'],
      ]) {
        if (performance.now() > deadline) return { ...out, complete: false };
        const t0 = performance.now();
        const res = await drained(mock.port, path);
        out[`${key}MB`] = round(res.bytes / 1e6);
        out[`${key}S`] = round((performance.now() - t0) / 1000, 2);
        if (res.status !== 200) out.error = `${path}: ${res.status}`;
      }
      Object.assign(out, { stalledRss: rssMB(mock.pid).rssMB });
      for (const socket of stalled) socket.destroy();
      return out;
    },
  });

// ---- the report

const targets = { rssMB: 600, stallMs: 100, healthP99Ms: 50 };

/** One table row per abuser, with the targets' verdicts. */
export function abuseMarkdown(rows, meta) {
  const lines = [
    `Abuse (bench/abuse.mjs${meta.quick ? ', --quick' : ''}; load average ${meta.loadavg} at the start): each abuser on a fresh mock, ` +
      "a probe asking GET /__admin/health every 50 ms meanwhile; the longest stall is the server's own " +
      '(GET /__admin/health?loop=true: a 10 ms sampling timer, as monitorEventLoopDelay). An abuser that ran past its limit is ' +
      'reported "> N s" and its server killed. Targets: RSS ≤ 600 MB after 1,000 sandboxes × 50 windows; no ' +
      'out-of-memory under cache-busting; longest stall ≤ 100 ms; health p99 ≤ 50 ms.',
    '',
    '| abuser | finished | took | longest stall (≤ 100 ms) | health p99 (≤ 50 ms) | RSS after | lived |',
    '|---|---|---:|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    if (r.error && r.seconds === undefined) {
      lines.push(`| ${r.name} | did not run: ${String(r.error).replace(/\|/g, '/').slice(0, 100)} | | | | | |`);
      continue;
    }
    const stall = r.stallMs === null ? `> ${r.limitS * 1000} ms (no answer)` : `${r.stallMs} ms`;
    const p99 = Number.isFinite(r.healthP99Ms) ? `${r.healthP99Ms} ms` : 'no answer';
    const took = r.finished ? `${r.seconds} s` : `> ${r.limitS} s`;
    const rss = `${r.rssMB ?? '–'} MB${r.name.includes('windows') ? (r.rssMB <= targets.rssMB ? ' (≤ 600: yes)' : ' (≤ 600: no)') : ''}`;
    const mark = (ok) => (ok ? 'yes' : 'no');
    lines.push(
      `| ${r.name}${r.slowestPath ? ` (slowest: ${r.slowestPath}, ${r.slowestMs} ms)` : ''} | ${r.finished ? 'yes' : 'no'} | ${took} | ${stall} (${mark(r.stallMs !== null && r.stallMs <= targets.stallMs)}) | ${p99} (${mark(r.healthP99Ms <= targets.healthP99Ms)}) | ${rss} | ${r.alive ? 'yes' : `no: ${r.exit}`} |`,
    );
  }
  return lines.join('\n');
}

/** The issue's targets over the rows, as bench/run.mjs lists its targets: { target, figure, holds }. */
export function abuseTargets(rows) {
  const ran = rows.filter((r) => r.seconds !== undefined);
  if (ran.length === 0) return [];
  const win = ran.find((r) => r.name.includes('calendar windows'));
  const bust = ran.find((r) => r.name.startsWith('cache-busting'));
  const full = win?.name.startsWith('1000 sandboxes × 50');
  const stallOf = (r) => (r.stallMs === null ? Number.POSITIVE_INFINITY : r.stallMs);
  const worst = (pick) => ran.reduce((a, r) => (pick(r) > pick(a) ? r : a));
  const stall = worst(stallOf);
  const p99 = worst((r) => (Number.isFinite(r.healthP99Ms) ? r.healthP99Ms : Number.POSITIVE_INFINITY));
  const shown = (x, unit) => (Number.isFinite(x) ? `${x} ${unit}` : 'no answer');
  return [
    {
      target: 'abuse: RSS ≤ 600 MB after 1,000 sandboxes × 50 calendar windows',
      figure: win ? `${win.rssMB} MB after ${win.name}${win.finished ? '' : ` (stopped at ${win.limitS} s)`}` : '–',
      holds: !win
        ? 'not measured'
        : !full || !win.finished
          ? 'not judged (fewer sandboxes)'
          : win.rssMB <= 600
            ? 'yes'
            : 'no',
    },
    {
      target: 'abuse: no out-of-memory under the cache-busting client',
      figure: bust
        ? `${bust.name}: ${bust.requests ?? '?'} requests, RSS ${bust.rssMB} MB, ${bust.alive ? 'alive' : `ended: ${bust.exit}`}`
        : '–',
      holds: bust ? (bust.alive ? 'yes' : 'no') : 'not measured',
    },
    {
      target: 'abuse: longest event-loop stall ≤ 100 ms under each abuser',
      figure: `${shown(stallOf(stall), 'ms')} at most (${stall.name})`,
      holds: ran.every((r) => stallOf(r) <= 100) ? 'yes' : 'no',
    },
    {
      target: 'abuse: health p99 ≤ 50 ms under each abuser',
      figure: `${shown(p99.healthP99Ms, 'ms')} at most (${p99.name})`,
      holds: ran.every((r) => r.healthP99Ms <= 50) ? 'yes' : 'no',
    },
  ];
}

async function main() {
  const t0 = performance.now();
  const meta = {
    quick,
    loadavg: loadavg()
      .map((x) => round(x, 1))
      .join(' '),
    date: new Date().toISOString(),
  };
  const dir = mkdtempSync(join(tmpdir(), 'portal-mock-abuse-'));
  const rows = [];
  const only = args
    .find((a) => a.startsWith('--only='))
    ?.slice(7)
    .split(',');
  const abusers = {
    windows,
    busting,
    'stub-regex': () => stubRegex(),
    'stub-regex-allowed': () => stubRegex(allowedPattern),
    'journal-regex': journalRegex,
    'records-count': recordsCount,
    'scenarios-data': () => scenariosData(dir),
    'full-sandbox': fullSandbox,
    exports: exportsAbuser,
  };
  try {
    for (const [key, run] of Object.entries(abusers)) {
      if (only && !only.includes(key)) continue;
      try {
        rows.push(await run());
      } catch (err) {
        log(`  ${key}: ${err.message}`);
        rows.push({ name: key, error: String(err.message).slice(0, 300) });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  meta.seconds = round((performance.now() - t0) / 1000, 0);
  if (asJson) process.stdout.write(`${JSON.stringify({ meta, rows })}\n`);
  else {
    const table = abuseTargets(rows).map((x) => `| ${x.target} | ${x.figure} | ${x.holds} |`);
    const head = ['| target | figures | holds |', '|---|---|---|'];
    process.stdout.write(
      `${[...head, ...table].join('\n')}\n\n${abuseMarkdown(rows, meta)}\n\nAbuse section: ${meta.seconds} s.\n`,
    );
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  main().catch((err) => {
    log(err.stack ?? String(err));
    process.exit(1);
  });
