// What a microsecond of our own work costs the light read's ratio to bare Fastify:
//   node bench/cost-model.mjs [ROOT] [ROUNDS] [SECONDS] [--work=0,10,20,30,50]
// Runs the mock of the checkout at ROOT (dist/ built) and bare Fastify servers that burn N µs per request on purpose
// (bench/bare.mjs --work-us), all at once, and loads them in alternated rounds (autocannon, 50 connections, the
// light read's session headers). Prints each one's median req/s, the server's CPU per request (/proc) and its
// share of bare Fastify's req/s: where on that curve the mock sits says how much work per request a ratio allows.
// docs/performance.md, "What a microsecond costs".
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { cpuMs, demoSession, freePort, median, startBin, waitUntilUp } from './http.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const work = (process.argv.find((a) => a.startsWith('--work='))?.slice(7) ?? '0,10,20,30,50').split(',').map(Number);
const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const [root = join(here, '..'), roundsArg = '4', secondsArg = '4'] = positional;
const path = '/mobile/tenant-info';

async function startBare(us) {
  const port = await freePort();
  const proc = spawn(process.execPath, [join(here, 'bare.mjs'), String(port), `--work-us=${us}`], { stdio: 'ignore' });
  await waitUntilUp(port, proc, `bare Fastify (${us} µs)`);
  return { name: us === 0 ? 'bare Fastify' : `bare Fastify + ${us} µs`, port, proc };
}

const mock = await startBin(resolve(root));
const headers = await demoSession(mock.port); // bare Fastify gets the same headers: the same bytes to parse
const servers = [{ name: 'portal-mock, GET /mobile/tenant-info', port: mock.port, proc: mock.proc }];
try {
  for (const us of work) servers.push(await startBare(us));
  const load = (server, seconds) =>
    autocannon({ url: `http://127.0.0.1:${server.port}${path}`, headers, connections: 50, duration: seconds });
  for (const server of servers) {
    await load(server, 2); // warm-up
    server.runs = [];
  }
  for (let i = 0; i < Number(roundsArg); i++) {
    for (const server of i % 2 ? [...servers].reverse() : servers) {
      const cpuBefore = cpuMs(server.proc.pid);
      const r = await load(server, Number(secondsArg));
      if (r.non2xx + r.errors > 0) throw new Error(`${server.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      server.runs.push({
        rps: r.requests.average,
        cpuUs: ((cpuMs(server.proc.pid) - cpuBefore) * 1e3) / r.requests.total,
      });
    }
  }
  const bare = median(servers.find((s) => s.name === 'bare Fastify')?.runs.map((r) => r.rps) ?? [Number.NaN]);
  console.log('| server | req/s | CPU µs per request | share of bare Fastify |\n|---|---:|---:|---:|');
  for (const s of servers) {
    const rps = median(s.runs.map((r) => r.rps));
    const cpu = median(s.runs.map((r) => r.cpuUs));
    console.log(`| ${s.name} | ${Math.round(rps)} | ${cpu.toFixed(1)} | ${((rps / bare) * 100).toFixed(1)}% |`);
  }
} finally {
  for (const s of servers) s.proc.kill('SIGTERM');
}
