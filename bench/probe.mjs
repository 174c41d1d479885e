// The health probe of the abuse benchmarks, in a process of its own: `node bench/probe.mjs PORT`. It asks
// GET /__admin/health every 50 ms over one keep-alive connection until its stdin closes, then writes the latencies
// (ms, JSON) to stdout; a call still waiting then counts with the time it had waited, a failed one as Infinity (null
// in JSON). In the benchmark's own process the probe's latency also counted that process's work (reading a 75 MB
// export as fast as it came), which is not the server's.
import { Agent } from 'node:http';
import { call } from './http.mjs';

const port = Number(process.argv[2]);
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const latencies = [];
let running = true;
let pendingSince = null;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const done = (async () => {
  while (running) {
    pendingSince = performance.now();
    const res = await call(port, 'GET', '/__admin/health?sandbox=default', {}, undefined, agent).catch(() => null);
    if (!running) break;
    latencies.push(performance.now() - pendingSince);
    pendingSince = null;
    if (res?.status !== 200) latencies.push(Number.POSITIVE_INFINITY);
    await sleep(50);
  }
})();

process.stdin.resume();
process.stdin.on('end', async () => {
  running = false;
  if (pendingSince !== null) latencies.push(performance.now() - pendingSince);
  await Promise.race([done, sleep(100)]);
  process.stdout.write(`${JSON.stringify(latencies)}\n`, () => process.exit(0));
});
