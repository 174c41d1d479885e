// A month of CI in minutes (issue 54): the built mock with its default flags, and tens of thousands of sandboxes made
// over time, each running a typical suite (sign in by the mobile flow, a few reads, a write, a journal read) and then
// abandoned, as pipelines that never delete `suite-$CI_JOB_ID` do. It samples the process's RSS and a probe sandbox's
// answers, and says whether RSS levelled off within the budget (its growth per suite, carried over a month).
//
//   npm run build && node bench/soak.mjs [--sandboxes=20000] [--seconds=900] [--ttl=30s] [--rate=25]
//                                         [--parallel=8] [--rss-budget-mb=1024] [--data]
//
// Default flags except one: --sandbox-idle-ttl, 24h by default, is shortened (--ttl) so that the month's turnover
// fits in minutes; what the sweep does does not depend on the length. --data runs it with a data directory (written
// out, not deleted). Only 127.0.0.1, bounded in count (--sandboxes) and in time (--seconds): it stops at the first.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { call, romashka, startBin } from './http.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found ? found.slice(name.length + 3) : fallback;
};
const cfg = {
  sandboxes: Math.min(Number(arg('sandboxes', 20_000)), 200_000),
  seconds: Math.min(Number(arg('seconds', 900)), 3600),
  ttl: arg('ttl', '30s'),
  parallel: Math.min(Number(arg('parallel', 8)), 64),
  // jobs started per second at most, as CI arrives: the sandboxes held are about rate × (TTL + the sweep's period)
  rate: Math.min(Number(arg('rate', 25)), 1000),
  rssBudgetMb: Number(arg('rss-budget-mb', 1024)),
  data: process.argv.includes('--data'),
};

const dataDir = cfg.data ? mkdtempSync(join(tmpdir(), 'portal-mock-soak-')) : null;
const mock = await startBin(root, ['--sandbox-idle-ttl', cfg.ttl, ...(dataDir ? ['--data', dataDir] : [])]);
const port = mock.port;
const agent = new Agent({ keepAlive: true, maxSockets: cfg.parallel + 2 });
const req = (method, path, headers, body) => call(port, method, path, headers, body, agent);
const must = async (what, promise) => {
  const res = await promise;
  if (res.status !== 200) throw new Error(`${what}: ${res.status} ${res.body.slice(0, 300)}`);
  return JSON.parse(res.body);
};

/** The mobile sign-in: request-two-factor (the code from the outbox when asked), manual-bind, auth. */
async function signIn(sandbox, deviceId) {
  const key = { 'x-mock-sandbox': sandbox };
  const creds = { email: romashka.demo.email, password: romashka.demo.password };
  const twoFactor = await must('request-two-factor', req('POST', '/mobile/request-two-factor', key, creds));
  let code;
  if (twoFactor.codeRequired) {
    const outbox = await must('outbox', req('GET', '/__admin/outbox', key));
    code = outbox.filter((m) => m.kind === 'two-factor-code').at(-1)?.code;
  }
  const bind = await must(
    'manual-bind',
    req('POST', '/mobile/manual-bind', key, { ...creds, code, device: { id: deviceId, platform: 'ios' } }),
  );
  const { accountSecret: a } = bind;
  const auth = await must(
    'auth',
    req(
      'POST',
      '/mobile/auth',
      { ...key, 'x-service-tenant-id': a.tenantId },
      {
        secret: a.secret,
        userId: a.userId,
        deviceId: a.deviceId,
      },
    ),
  );
  return {
    ...key,
    'x-service-tenant-id': a.tenantId,
    'x-service-device-id': deviceId,
    'x-service-session-id': auth.sessionId,
    'x-service-session-code': auth.sessionSecret,
  };
}

/** One CI job: its own sandbox, signed in, a few reads, a write, a journal read; never deleted. */
async function suite(n) {
  const sandbox = `suite-${n}`;
  const deviceId = `soak-device-${n}`;
  const session = await signIn(sandbox, deviceId);
  await must('tenant-info', req('GET', '/mobile/tenant-info', session));
  await must('tenant-info again', req('GET', '/mobile/tenant-info', session));
  await must('push token', req('POST', '/mobile/save-push-token', session, { token: `tok-${n}`, deviceId }));
  await must('journal', req('GET', '/__admin/requests?limit=20', { 'x-mock-sandbox': sandbox }));
}

// the probe: one sandbox used all along (so never idle), whose answers must not change
const probe = await signIn('probe', 'soak-probe-device');
const probeAnswer = (await req('GET', '/mobile/tenant-info', probe)).body;
const samples = [];
let probeFailures = 0;
let suitesDone = 0;
let suiteErrors = 0;
const startedAt = Date.now();
const elapsed = () => (Date.now() - startedAt) / 1000;

async function sample() {
  const health = await must('health', req('GET', '/__admin/health'));
  const answer = await req('GET', '/mobile/tenant-info', probe);
  if (answer.status !== 200 || answer.body !== probeAnswer) probeFailures++;
  const s = {
    seconds: Math.round(elapsed()),
    suites: suitesDone,
    sandboxes: health.sandboxes,
    rssMb: Math.round(health.memory.rssBytes / 1048576),
    heapMb: Math.round(health.memory.heapUsedBytes / 1048576),
  };
  samples.push(s);
  console.log(JSON.stringify(s));
}

let next = 0;
const worker = async () => {
  while (next < cfg.sandboxes && elapsed() < cfg.seconds) {
    const n = next++;
    const due = startedAt + (n / cfg.rate) * 1000;
    if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    try {
      await suite(n);
      suitesDone++;
    } catch (err) {
      suiteErrors++;
      if (suiteErrors <= 5) console.error(`suite ${n}: ${err.message}`);
    }
  }
};
const sampler = setInterval(() => void sample().catch((err) => console.error(`sample: ${err.message}`)), 5000);
try {
  await Promise.all(Array.from({ length: cfg.parallel }, worker));
  await sample();
} finally {
  clearInterval(sampler);
  agent.destroy();
  mock.proc.kill('SIGTERM');
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}

// levelled off: RSS against suites done over the second half, as a straight line; its slope, carried over a month of
// one job a minute (43,200 suites), must stay within the budget (a leak of 10 KB a suite adds 420 MB)
const half = samples.slice(Math.floor(samples.length / 2));
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const mx = mean(half.map((s) => s.suites));
const my = mean(half.map((s) => s.rssMb));
const slope =
  half.reduce((a, s) => a + (s.suites - mx) * (s.rssMb - my), 0) /
  Math.max(
    1,
    half.reduce((a, s) => a + (s.suites - mx) ** 2, 0),
  ); // MB per suite
const monthSuites = 43_200;
const peak = Math.max(...samples.map((s) => s.rssMb));
const projected = Math.round(samples.at(-1).rssMb + Math.max(0, slope) * monthSuites);
const plateau = samples.length >= 6 && projected <= cfg.rssBudgetMb;
const within = peak <= cfg.rssBudgetMb;
const perSecond = suitesDone / elapsed();
console.log(
  JSON.stringify({
    flags: `defaults, --sandbox-idle-ttl ${cfg.ttl}${cfg.data ? ', --data' : ''}`,
    rate: cfg.rate,
    suites: suitesDone,
    suiteErrors,
    seconds: Math.round(elapsed()),
    suitesPerSecond: Math.round(perSecond * 10) / 10,
    sandboxesAtEnd: samples.at(-1)?.sandboxes,
    rssMb: {
      first: samples[0]?.rssMb,
      last: samples.at(-1)?.rssMb,
      peak,
      kbPerSuiteSecondHalf: Math.round(slope * 1024 * 100) / 100,
      projectedAfterMonth: projected,
      budget: cfg.rssBudgetMb,
    },
    probeFailures,
  }),
);
const ok = plateau && within && probeFailures === 0 && suiteErrors === 0;
console.log(
  ok
    ? `PASS: RSS ${samples.at(-1).rssMb} MB (peak ${peak}), a month of one job a minute projects ${projected} MB ` +
        `(budget ${cfg.rssBudgetMb} MB); the probe answered the same ${samples.length} times`
    : `FAIL: projected ${projected} MB within budget ${plateau}, peak within budget ${within}, probe failures ` +
        `${probeFailures}, suite errors ${suiteErrors}`,
);
process.exitCode = ok ? 0 : 1;
