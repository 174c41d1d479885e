// Issue 55's targets, side by side in one run: `node bench/wiremock.mjs [--rounds=3] [--duration=5] [--sandboxes=1000]`
// after `npm run build` and `npm ci` in bench/. The same WireMock root (20 mappings; the one measured is a stubbed
// GET with a JSON body) served by the real WireMock 3.13 (the jar of bench/'s `wiremock`) and by portal-mock
// (`--wiremock DIR`): start to first stubbed answer, stubbed GETs per second (rounds alternating between the two,
// medians and the ratio), RSS after the load. Then portal-mock alone: `--sandboxes` sandboxes each importing its own
// 20 mappings through /sandbox/NAME/wiremock/__admin/mappings/import, RSS after, and a sample of them answering
// their own stubs. Results: bench/results/wiremock.json and .md.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { call, freePort, median } from './http.mjs';
import { wiremockJar } from './peers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const given = process.argv.find((a) => a.startsWith(`--${name}=`));
  return given === undefined ? fallback : Number(given.slice(name.length + 3));
};
const rounds = arg('rounds', 3);
const duration = arg('duration', 5);
const sandboxes = arg('sandboxes', 1000);
const connections = 10;
const log = (...a) => console.error(...a);

/** Twenty mappings a team might keep: one per resource, the measured one among them (not first, not last). */
function mappingSet(tag) {
  return Array.from({ length: 20 }, (_, i) => ({
    name: `orders-${i}`,
    request: { method: 'GET', urlPath: `/api/orders/${i}` },
    response: {
      status: 200,
      headers: { 'content-type': 'application/json' },
      jsonBody: { id: i, tag, items: [{ sku: `sku-${i}`, qty: 1 }], total: 12.5 * (i + 1) },
    },
  }));
}
const measuredPath = '/api/orders/7';

function writeRoot(dir) {
  mkdirSync(join(dir, 'mappings'), { recursive: true });
  mkdirSync(join(dir, '__files'), { recursive: true });
  for (const [i, m] of mappingSet('root').entries())
    writeFileSync(join(dir, 'mappings', `m${String(i).padStart(2, '0')}.json`), JSON.stringify(m));
  return dir;
}

function rssMB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024);
}

/** Spawns a server and polls `path` until it answers 200: start to first stubbed answer. */
async function startServer(label, cmd, argv, port, path) {
  const t0 = performance.now();
  const proc = spawn(cmd, argv, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (c) => {
    stderr = (stderr + c).slice(-4000);
  });
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${label} exited: ${stderr}`);
    const r = await call(port, 'GET', path).catch(() => null);
    if (r?.status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const startMs = Math.round(performance.now() - t0);
  const stop = () =>
    new Promise((resolve) => {
      if (proc.exitCode !== null) return resolve();
      proc.once('exit', resolve);
      proc.kill('SIGTERM');
    });
  return { label, proc, port, startMs, stop };
}

function cannon(port, path) {
  return new Promise((resolve, reject) =>
    autocannon({ url: `http://127.0.0.1:${port}${path}`, connections, pipelining: 1, duration }, (err, r) =>
      err ? reject(err) : resolve({ rps: r.requests.average, p99: r.latency.p99, bad: r.errors + r.non2xx }),
    ),
  );
}

const tmp = mkdtempSync(join(tmpdir(), 'pm-bench-wm-'));
const dir = writeRoot(join(tmp, 'root'));
const jar = wiremockJar(root);
if (!jar) throw new Error('no WireMock jar: run npm ci in bench/');
const results = { at: new Date().toISOString(), load: loadavg().map((l) => Math.round(l * 100) / 100) };
const running = [];
try {
  const wmPort = await freePort();
  const wm = await startServer(
    'WireMock',
    'java',
    ['-jar', jar, '--port', String(wmPort), '--bind-address', '127.0.0.1', '--root-dir', dir, '--disable-banner'],
    wmPort,
    measuredPath,
  );
  running.push(wm);
  const pmPort = await freePort();
  const pm = await startServer(
    'portal-mock',
    join(root, 'bin', 'portal-mock.js'),
    ['--port', String(pmPort), '--host', '127.0.0.1', '--log-level', 'warn', '--no-banner', '--wiremock', dir],
    pmPort,
    measuredPath,
  );
  running.push(pm);
  log(`start to first stubbed answer: WireMock ${wm.startMs} ms, portal-mock ${pm.startMs} ms`);

  const runs = { WireMock: [], 'portal-mock': [] };
  for (const s of [wm, pm]) await cannon(s.port, measuredPath); // warm-up (the JIT, the kept answers)
  for (let i = 0; i < rounds; i++)
    for (const s of i % 2 === 0 ? [wm, pm] : [pm, wm]) {
      const r = await cannon(s.port, measuredPath);
      runs[s.label].push(r);
      log(`  ${s.label}: ${Math.round(r.rps)} req/s, p99 ${r.p99} ms, bad ${r.bad}`);
    }
  const summary = (label, s) => ({
    rps: Math.round(median(runs[label].map((r) => r.rps))),
    p99: median(runs[label].map((r) => r.p99)),
    bad: runs[label].reduce((sum, r) => sum + r.bad, 0),
    startMs: s.startMs,
    rssMB: rssMB(s.proc.pid),
  });
  results.wiremock = summary('WireMock', wm);
  results.portalMock = summary('portal-mock', pm);
  results.ratio = Math.round((results.portalMock.rps / results.wiremock.rps) * 10) / 10;
  await wm.stop();
  await pm.stop();

  // many sandboxes, each with its own 20 mappings
  const manyPort = await freePort();
  const many = await startServer(
    'portal-mock',
    join(root, 'bin', 'portal-mock.js'),
    ['--port', String(manyPort), '--host', '127.0.0.1', '--log-level', 'warn', '--no-banner'],
    manyPort,
    '/__admin/health',
  );
  running.push(many);
  const before = rssMB(many.proc.pid);
  const t0 = performance.now();
  let refused = 0;
  for (let i = 0; i < sandboxes; i++) {
    const body = { mappings: mappingSet(`sb-${i}`) };
    const r = await call(manyPort, 'POST', `/sandbox/sb-${i}/wiremock/__admin/mappings/import`, {}, body);
    if (r.status !== 200) refused++;
  }
  const importMs = Math.round(performance.now() - t0);
  let wrong = 0;
  for (let i = 0; i < sandboxes; i += Math.max(1, Math.floor(sandboxes / 50))) {
    const r = await call(manyPort, 'GET', `/sandbox/sb-${i}/wiremock${measuredPath}`);
    if (r.status !== 200 || JSON.parse(r.body).tag !== `sb-${i}`) wrong++;
  }
  results.sandboxes = {
    count: sandboxes,
    mappingsEach: 20,
    refused,
    wrongAnswers: wrong,
    importMs,
    rssBeforeMB: before,
    rssAfterMB: rssMB(many.proc.pid),
  };
  await many.stop();
} finally {
  for (const s of running) s.proc.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
}

const r = results;
const md = [
  `# WireMock side by side (${r.at}, load ${r.load.join(' ')})`,
  '',
  '| | WireMock 3.13 | portal-mock | ratio |',
  '|---|---:|---:|---:|',
  `| stubbed GET, req/s (median of ${rounds} × ${duration} s, ${connections} connections) | ${r.wiremock.rps} | ${r.portalMock.rps} | ${r.ratio}× |`,
  `| p99 latency (ms) | ${r.wiremock.p99} | ${r.portalMock.p99} | |`,
  `| start to first stubbed answer (ms) | ${r.wiremock.startMs} | ${r.portalMock.startMs} | |`,
  `| RSS after the load (MB) | ${r.wiremock.rssMB} | ${r.portalMock.rssMB} | |`,
  '',
  `${r.sandboxes.count} sandboxes × ${r.sandboxes.mappingsEach} mappings each (imported in ${r.sandboxes.importMs} ms, ` +
    `${r.sandboxes.refused} refused): RSS ${r.sandboxes.rssBeforeMB} → ${r.sandboxes.rssAfterMB} MB; ` +
    `a sample of 50 answered their own stubs (${r.sandboxes.wrongAnswers} wrong).`,
  '',
].join('\n');
mkdirSync(join(root, 'bench', 'results'), { recursive: true });
writeFileSync(join(root, 'bench', 'results', 'wiremock.json'), `${JSON.stringify(r, null, 2)}\n`);
writeFileSync(join(root, 'bench', 'results', 'wiremock.md'), md);
console.log(md);
