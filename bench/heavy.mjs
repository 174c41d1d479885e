// The heavy reads and the sign-in, one build or two in the same sitting:
//   node bench/heavy.mjs ROOT [ROOT_B] [--rounds N] [--seconds S] [--only calendar,tickets,signIn]
//   node bench/heavy.mjs --port PORT …   (a mock already running, e.g. under node --cpu-prof dist/portal-mock.mjs)
// Each ROOT is a checkout with dist/ built; its bin is started as a user would (plain node, default data). With two
// roots both run at once and their rounds alternate (A, B, B, A, …) so the drift of a shared machine falls on both,
// as in bench/ab.mjs. Workloads, 50 connections each:
//   calendar  GET /calendar for the current month (session)
//   tickets   GET /api/v2/workflow-ticket/?page=3 (API key)
//   signIn    POST /mobile/manual-bind then POST /mobile/auth, at most one device per connection (sequences/s)
// Prints, per workload and root, the median req/s (sequences/s for the sign-in), its spread, the median p99 and the
// rounds; then JSON on stdout.
import autocannon from 'autocannon';
import { demoSession, median, romashka, signInRequests, startBin } from './http.mjs';

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i === -1 ? fallback : argv.splice(i, 2)[1];
};
const rounds = Number(option('rounds', '4'));
const seconds = Number(option('seconds', '5'));
const only = option('only', 'calendar,tickets,signIn').split(',');
const runningPort = option('port', undefined);
const roots = argv;
if (runningPort ? roots.length > 0 : roots.length < 1 || roots.length > 2) {
  process.stderr.write('usage: node bench/heavy.mjs ROOT [ROOT_B] [--rounds N] [--seconds S] [--only a,b]\n');
  process.exit(2);
}

const { tenantId: tenant, demo, apiKey } = romashka;
const log = (line) => process.stderr.write(`${line}\n`);

async function startMock(root) {
  const mock = await startBin(root);
  return { ...mock, session: await demoSession(mock.port) };
}

/** The current month as the benchmark asks for it (bench/run.mjs does the same). */
function monthPath() {
  const now = new Date();
  const ym = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
  const lastDay = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)).getUTCDate();
  const q = (s) => encodeURIComponent(s);
  return `/calendar?start_date_time=${q(`${ym}-01 00:00:00`)}&end_date_time=${q(`${ym}-${lastDay} 23:59:59`)}`;
}

/** Each workload: autocannon options for a mock, and how many requests make one counted unit. */
const workloads = {
  calendar: { perUnit: 1, options: (m) => ({ path: monthPath(), headers: m.session }) },
  tickets: { perUnit: 1, options: () => ({ path: '/api/v2/workflow-ticket/?page=3', headers: apiKey }) },
  signIn: { perUnit: 2, options: () => ({ requests: signInRequests({ ...demo, tenantId: tenant }) }) },
  // what bench/run.mjs measured up to now: a new device per sequence, so devices and sessions pile up as they would
  // for a pipeline that binds a fresh device per job
  signInNewDevices: {
    perUnit: 2,
    options: () => ({ requests: signInRequests({ ...demo, tenantId: tenant }, { newDevices: true }) }),
  },
};

const run = (mock, workload, duration) => {
  const { path = '', ...options } = workloads[workload].options(mock);
  return autocannon({ url: `http://127.0.0.1:${mock.port}${path}`, connections: 50, duration, ...options });
};

const mocks = [];
try {
  if (runningPort) {
    const port = Number(runningPort);
    mocks.push({ root: `port ${port}`, port, proc: null, session: await demoSession(port) });
  }
  for (const root of roots) mocks.push(await startMock(root));
  const results = [];
  for (const workload of only) {
    if (!workloads[workload]) throw new Error(`unknown workload ${workload}: ${Object.keys(workloads).join(', ')}`);
    const seen = new Map(mocks.map((m) => [m, []]));
    for (const m of mocks) await run(m, workload, 2); // warm-up
    for (let i = 0; i < rounds; i++) {
      for (const m of i % 2 ? [...mocks].reverse() : mocks) {
        const r = await run(m, workload, seconds);
        const bad = r.errors + r.timeouts + r.non2xx;
        seen.get(m).push({ rate: r.requests.average / workloads[workload].perUnit, p99: r.latency.p99, bad });
      }
    }
    for (const m of mocks) {
      const runs = seen.get(m);
      const rates = runs.map((r) => r.rate);
      const row = {
        workload,
        root: m.root,
        medianRate: Math.round(median(rates)),
        spreadPct: Math.round(((Math.max(...rates) - Math.min(...rates)) / median(rates)) * 100),
        medianP99Ms: median(runs.map((r) => r.p99)),
        errors: runs.reduce((n, r) => n + r.bad, 0),
        rates: rates.map(Math.round),
        p99s: runs.map((r) => r.p99),
      };
      results.push(row);
      log(
        `${workload} ${m.root}: ${row.medianRate}/s (spread ${row.spreadPct}%), p99 ${row.medianP99Ms} ms ` +
          `[${row.p99s.join(', ')}]${row.errors ? `, ${row.errors} errors/non-2xx` : ''}`,
      );
    }
  }
  console.log(JSON.stringify({ rounds, seconds, connections: 50, results }, null, 2));
} finally {
  for (const m of mocks) m.proc?.kill('SIGTERM');
}
