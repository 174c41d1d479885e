// The upload abuser of issue 54: `node bench/uploads.mjs [--sandboxes=80] [--puts=6] [--mb=10] [-- mock flags]`
// after `npm run build`. A fresh built mock; every sandbox at once signs in, then prepares and PUTs `puts` files of
// `mb` MiB one after the other, while a probe sandbox is read every 250 ms and the health probe asks every 50 ms.
// Reports the answers by status, the mock's highest RSS (/proc, every 50 ms, and VmHWM), its longest event-loop
// stall (GET /__admin/health?loop=true), health p99, the probe's answers, and a refusal's message.
import { readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs, call, healthProbe, memoryAndHealth, procMemory, romashka, startBin, startProbe } from './http.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { flag, mockFlags } = benchArgs();
const sandboxes = flag('sandboxes', 80);
const puts = flag('puts', 6);
const mb = flag('mb', 10);
const T = romashka.tenantId;
// a connection per call: a kept-alive one idle past the mock's 5 s (a loaded machine) would read as a failure
const fresh = new Agent({ keepAlive: false });

/**
 * The mock's CPU time and the time it was ready to run but waited for a CPU (/proc/PID/schedstat, ns): on a 2-core
 * machine that also runs this client, a long event-loop delay with no long task in a CPU profile is that wait.
 */
function schedstat(pid) {
  const [cpuNs, waitNs] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ').map(Number);
  return { cpuMs: cpuNs / 1e6, waitMs: waitNs / 1e6 };
}

const memory = procMemory;

const { port, proc } = await startBin(root, mockFlags);
const base = `http://127.0.0.1:${port}`;
let peak = 0;
const sampler = setInterval(() => {
  peak = Math.max(peak, memory(proc.pid).rss);
}, 50);
const body = Buffer.alloc(mb * 1024 * 1024, 7);
const statuses = {};
let refusal = null;
const count = (status) => {
  statuses[status] = (statuses[status] ?? 0) + 1;
};

async function abuser(n, files) {
  const sandbox = `up-${n}`;
  const headers0 = { 'x-service-tenant-id': T, 'x-mock-sandbox': sandbox };
  const auth = await call(port, 'POST', '/mobile/auth', headers0, romashka.device, fresh).catch((e) => ({
    status: e.code,
  }));
  if (auth.status !== 200) return count(`auth ${auth.status}`);
  const { sessionId, sessionSecret } = JSON.parse(auth.body);
  const headers = {
    'x-mock-sandbox': sandbox,
    'x-service-tenant-id': T,
    'x-service-device-id': romashka.device.deviceId,
    'x-service-session-id': sessionId,
    'x-service-session-code': sessionSecret,
  };
  for (let i = 0; i < files; i++) {
    const file = { name: `big-${i}.bin`, is_public: false };
    const prep = await call(port, 'POST', '/file/prepare-upload', headers, file, fresh).catch((e) => ({
      status: e.code,
    }));
    if (prep.status !== 200) return count(`prepare ${prep.status}`);
    const url = new URL(JSON.parse(prep.body).uploadUrl);
    try {
      const put = await fetch(`${base}${url.pathname}${url.search}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/octet-stream', 'x-mock-sandbox': sandbox },
        body,
      });
      count(put.status);
      const answer = await put.json();
      if (put.status !== 200) refusal ??= answer.message;
    } catch (err) {
      count(`error ${err.cause?.code ?? err.message}`);
    }
  }
}

// one sandbox through every step first: the routes' validators and serializers are compiled on first use
await abuser('warm-up', 1);
for (const k of Object.keys(statuses)) delete statuses[k];
await call(port, 'GET', '/__admin/health?loop=true'); // starts the sampling of the event-loop delay
const health = healthProbe(port);
const probe = await startProbe(port); // a probe sandbox's answer, compared with its first
const sched0 = schedstat(proc.pid);
const t0 = performance.now();
await Promise.all(Array.from({ length: sandboxes }, (_, n) => abuser(n, puts)));
const seconds = Math.round((performance.now() - t0) / 100) / 10;
const probed = await health.stop();
const probeSeen = await probe.stop();
const loop = JSON.parse((await call(port, 'GET', '/__admin/health?loop=true')).body).eventLoop;
const sched1 = schedstat(proc.pid);
clearInterval(sampler);
const end = memory(proc.pid);
proc.kill('SIGTERM');
console.log(
  JSON.stringify(
    {
      sandboxes,
      puts,
      mb,
      mockFlags,
      seconds,
      statuses,
      ...memoryAndHealth(peak, end, probed),
      stallMs: loop?.maxMs ?? null,
      probe: probeSeen,
      // over the run: the mock's CPU time, and the time it was ready but waited for a CPU
      cpuMs: Math.round(sched1.cpuMs - sched0.cpuMs),
      waitedForCpuMs: Math.round(sched1.waitMs - sched0.waitMs),
      refusal,
    },
    null,
    2,
  ),
);
