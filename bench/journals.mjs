// The journal abuser of issue 54: `node bench/journals.mjs [--sandboxes=94] [--requests=1000] [--in-flight=32]
// [-- mock flags]` after `npm run build`. A fresh built mock; every sandbox is sent `requests` POSTs with a 12 KB
// query string and an 8 KiB body of Cyrillic letters (what a journal keeps most of), `in-flight` at a time over the
// whole run, while a probe sandbox is read every 250 ms and compared with its first answer. Reports the answers by
// status, the mock's highest RSS (/proc every 50 ms, and VmHWM), the journals' bytes from GET /__admin/health, the
// longest event-loop stall and the probe. Before issue 54, 94 sandboxes × 1,000 such requests held 6.0 GB of RSS.
import { Agent } from 'node:http';
import { benchArgs, call, healthProbe, memoryAndHealth, procMemory, romashka, startBin, startProbe } from './http.mjs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { flag, mockFlags } = benchArgs();
const sandboxes = flag('sandboxes', 94);
const requests = flag('requests', 1000);
const inFlight = flag('in-flight', 32);

const memory = procMemory;

const { port, proc } = await startBin(root, mockFlags);
let peak = 0;
const sampler = setInterval(() => {
  peak = Math.max(peak, memory(proc.pid).rss);
}, 50);
const agent = new Agent({ keepAlive: true, maxSockets: inFlight });
const query = `?q=${encodeURIComponent('поиск'.repeat(2400)).slice(0, 12_000)}`;
const body = { email: 'nobody@romashka.test', note: 'ж'.repeat(8192) };
const statuses = {};
const probe = await startProbe(port);
await call(port, 'GET', '/__admin/health?loop=true'); // starts the sampling of the event-loop delay
const healthLatencies = healthProbe(port);
const t0 = performance.now();
let next = 0;
const total = sandboxes * requests;
async function worker() {
  while (next < total) {
    const n = next++;
    // round robin over the sandboxes: every journal fills together, as many CI jobs at once
    const headers = { 'x-mock-sandbox': `journal-${n % sandboxes}`, 'x-service-tenant-id': romashka.tenantId };
    const res = await call(port, 'POST', `/mobile/request-two-factor${query}`, headers, body, agent).catch((e) => ({
      status: e.code,
    }));
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
  }
}
await Promise.all(Array.from({ length: inFlight }, worker));
const seconds = Math.round((performance.now() - t0) / 100) / 10;
const probed = await healthLatencies.stop();
const health = JSON.parse((await call(port, 'GET', '/__admin/health?loop=true')).body);
const probeSeen = await probe.stop();
clearInterval(sampler);
const end = memory(proc.pid);
agent.destroy();
proc.kill('SIGTERM');
console.log(
  JSON.stringify(
    {
      sandboxes,
      requests,
      mockFlags,
      seconds,
      statuses,
      ...memoryAndHealth(peak, end, probed),
      memory: health.memory,
      journals: health.journals ?? null,
      stallMs: health.eventLoop?.maxMs ?? null,
      probe: probeSeen,
    },
    null,
    2,
  ),
);
