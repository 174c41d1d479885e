// The portal's requests share each turn of the event loop (src/http/request-turns.ts, issue 54 part 5). The budget is
// checked against a clock the test moves (each request "takes" some milliseconds), so no test depends on how fast
// the machine is; the last test checks the wiring over real sockets.
import { Agent, request } from 'node:http';
import t from 'tap';
import { RequestTurns, requestTurns } from '../../src/http/request-turns.js';
import { build, signIn } from '../helper.js';

/** Requests that each move the clock by `costMs` when they run, grouped by the turn they ran in. */
function workload(budgetMs: number, costMs: number | ((id: string) => number)) {
  let clock = 0;
  const turns = new RequestTurns(budgetMs, () => clock);
  const ran: string[][] = [];
  let inTurn = false;
  const ask = (id: string) =>
    turns.admit(() => {
      if (!inTurn) {
        ran.push([]);
        inTurn = true;
        setImmediate(() => {
          inTurn = false;
        });
      }
      ran.at(-1)!.push(id);
      clock += typeof costMs === 'number' ? costMs : costMs(id);
    });
  const idle = (ms: number) => {
    clock += ms;
  };
  return { turns, ran, ask, idle };
}

/** Resolves once nothing waits. */
async function settled(turns: RequestTurns) {
  while (turns.waitingCount > 0) await new Promise((resolve) => setImmediate(resolve));
}

t.test('requests arriving together past the budget wait for later turns, first come first served', async (t) => {
  const { turns, ran, ask } = workload(10, 7);
  for (let i = 0; i < 8; i++) ask(`r${i}`);
  t.same(ran, [['r0', 'r1']], 'the first two began within 10 ms; the rest wait');
  t.equal(turns.waitingCount, 6);
  await settled(turns);
  t.same(ran, [
    ['r0', 'r1'],
    ['r2', 'r3'],
    ['r4', 'r5'],
    ['r6', 'r7'],
  ]);
});

t.test('a request asked while others wait goes behind them, even in a turn with room', async (t) => {
  const { turns, ran, ask } = workload(10, 6);
  ask('r0');
  ask('r1');
  // runs at the start of the next turn, before the waiting r2: the turn has room, r2 still goes first
  const lateAsked = new Promise<void>((resolve) =>
    setImmediate(() => {
      ask('late');
      resolve();
    }),
  );
  ask('r2');
  t.same(ran, [['r0', 'r1']]);
  await lateAsked;
  await settled(turns);
  t.same(
    ran,
    [
      ['r0', 'r1'],
      ['r2', 'late'],
    ],
    'in the order asked',
  );
});

t.test('a request longer than the budget runs whole; the next turn has a budget of its own', async (t) => {
  const { turns, ran, ask } = workload(10, (id) => (id === 'long' ? 50 : 1));
  ask('long');
  ask('a');
  ask('b');
  t.same(ran, [['long']], 'past the budget: the others wait');
  await settled(turns);
  t.same(ran, [['long'], ['a', 'b']], 'both in the next turn, within its own 10 ms');
});

t.test('after an idle loop a request runs at once, whatever time passed', async (t) => {
  const { turns, ran, ask, idle } = workload(10, 4);
  ask('first');
  await new Promise((resolve) => setImmediate(resolve));
  idle(1000);
  ask('second');
  t.same(ran, [['first'], ['second']], 'no wait: the turn of the first ended');
  t.equal(turns.waitingCount, 0);
});

t.test('a request that would begin exactly at the budget waits', async (t) => {
  const { turns, ran, ask } = workload(10, 5);
  for (let i = 0; i < 3; i++) ask(`r${i}`);
  t.same(ran, [['r0', 'r1']], 'r2 would begin 10 ms into the turn');
  await settled(turns);
  t.same(ran, [['r0', 'r1'], ['r2']]);
});

t.test("with the process's clock, requests that take no time all run in the turn they arrive", async (t) => {
  // a budget no pause of a busy machine reaches between five calls
  const turns = new RequestTurns(1000);
  const ran: number[] = [];
  for (let i = 0; i < 5; i++) turns.admit(() => ran.push(i));
  t.same(ran, [0, 1, 2, 3, 4]);
  t.equal(turns.waitingCount, 0);
});

t.test('portal requests wait their turn over real sockets; a health check does not wait behind them', async (t) => {
  const app = await build(t);
  const base = new URL(await app.listen({ port: 0, host: '127.0.0.1' }));
  const s = await signIn(app);
  // a year of the calendar: the widest window, the costliest read of a seeded sandbox
  const year = `/calendar?start_date_time=${encodeURIComponent('2026-01-01 00:00:00')}&end_date_time=${encodeURIComponent('2026-12-31 23:59:59')}`;
  const reads = 24;
  const agent = new Agent({ keepAlive: true, maxSockets: reads + 1 });
  t.teardown(() => agent.destroy());
  const call = (path: string, headers: Record<string, string>, done: (status: number, body: string) => void) =>
    request({ host: base.hostname, port: base.port, path, headers, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => done(res.statusCode ?? 0, body));
    }).end();
  const get = (path: string, headers: Record<string, string>) =>
    new Promise<{ status: number; body: string }>((resolve) =>
      call(path, headers, (status, body) => resolve({ status, body })),
    );

  // every socket open and warm first, so that the requests below are written in one turn and read in one
  const expected = await get(year, s.headers);
  t.equal(expected.status, 200);
  await Promise.all(Array.from({ length: reads + 1 }, () => get('/__admin/health', {})));

  const finished: string[] = [];
  app.server.prependListener('request', (req, res) => {
    res.once('finish', () => finished.push(req.url!.startsWith('/__admin') ? 'health' : 'read'));
  });
  const waitedBefore = requestTurns.waitedCount;
  // a new ?_= each: a kept answer would be sent again without the work
  const answers = Array.from({ length: reads }, (_, i) => get(`${year}&_=${i}`, s.headers));
  const health = get('/__admin/health', {});
  const all = await Promise.all(answers);
  t.equal((await health).status, 200);

  t.ok(
    all.every((a) => a.status === 200 && a.body === expected.body),
    'every read has the whole answer',
  );
  t.ok(requestTurns.waitedCount > waitedBefore, 'some reads waited for a later turn');
  t.ok(
    finished.indexOf('health') < finished.lastIndexOf('read'),
    `the health check, asked last, was answered before the reads that waited (${finished.join(' ')})`,
  );
  t.equal(requestTurns.waitingCount, 0, 'none is left waiting');
});
