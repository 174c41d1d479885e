import t from 'tap';
import { setTimeout as wait } from 'node:timers/promises';
import { build } from '../helper.js';

// GET /__admin/health?loop=true reads the event loop's delay since the previous such read (src/control/loop-delay.ts):
// what the benchmark's abuse section reports as the longest stall. The app runs in this process, so a busy loop here
// is a stall the server sees.

t.test('health?loop=true reports the longest stall since the previous read', async (t) => {
  const app = await build(t);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const read = async (query = '?loop=true') => (await (await fetch(`${base}/__admin/health${query}`)).json()) as any;

  t.equal((await read('')).eventLoop, undefined, 'plain health stays as cheap as it was: no eventLoop');
  await read(); // starts the sampling (a new period when it runs already)
  const until = Date.now() + 200;
  while (Date.now() < until); // a 200 ms stall
  await wait(50); // the sampling tick, overdue during the stall and due before this timer, has measured it
  const stalled = (await read()).eventLoop;
  t.ok(stalled.maxMs >= 180, `the stall is seen: ${stalled.maxMs} ms`);
  t.ok(stalled.samples > 0);
  t.equal((await fetch(`${base}/__admin/health?loop=maybe`)).status, 400, 'a bad value is a 400');
});
