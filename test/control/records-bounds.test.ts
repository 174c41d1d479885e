// Issue 45, finding 3: records `?count=` had a cap per call and none in total, and a large create held every
// sandbox up. Now a collection of a sandbox holds at most its seeded records + --max-records (422 past it, nothing
// written), and a create is made in slices that let other requests through, then written at once. Over real
// sockets; the tests assert what is answered and in which order, never how long it took.
import t from 'tap';
import { build, httpCaller, tenants } from '../helper.js';
import { countTurns } from '../support/turns.js';

const base = `/__admin/data/${tenants.romashka}`;

t.test('an abuser past the bound gets a 422 that says what to do; another sandbox answers as before', async (t) => {
  const app = await build(t, { maxRecords: 120 });
  const call = httpCaller(await app.listen({ port: 0, host: '127.0.0.1' }));
  await call('PUT', '/__admin/sandboxes/probe');
  const probe = async () => {
    const res = await call('GET', `${base}/notifications?sandbox=probe&limit=1`);
    return { status: res.status, total: res.body.total };
  };
  const before = await probe();
  t.equal(before.status, 200);

  const seeded = (await call('GET', `${base}/notifications?sandbox=default&limit=1`)).body.total;
  const made: number[] = [];
  let refused: { status: number; body: Record<string, any> } | undefined;
  for (let i = 0; i < 5 && !refused; i++) {
    const [res, seen] = await Promise.all([call('POST', `${base}/notifications?sandbox=abuser&count=50`, {}), probe()]);
    t.same(seen, before, 'the other sandbox answers as before while the abuser writes');
    if (res.status === 201) made.push(res.body.records.length);
    else refused = res;
  }
  t.same(made, [50, 50], 'two calls fit (100 of 120 more)');
  t.equal(refused?.status, 422, 'the third would pass the bound');
  t.equal(refused?.body.code, 'UNPROCESSABLE');
  t.match(refused?.body.message, /holds \d+ records; 50 more would pass its bound/);
  t.match(refused?.body.message, /--max-records 120/, 'names the flag');
  t.match(refused?.body.message, /20 fit/, 'says how many still fit');
  t.match(refused?.body.message, /POST \/__admin\/reset/, 'says how to make room');
  const after = await call('GET', `${base}/notifications?sandbox=abuser&limit=1`);
  t.equal(after.body.total, seeded + 100, 'the refused call wrote nothing');

  const fits = await call('POST', `${base}/notifications?sandbox=abuser&count=20`, {});
  t.equal(fits.status, 201, 'what still fits is made');
  const full = await call('POST', `${base}/notifications?sandbox=abuser`, {});
  t.equal(full.status, 422, 'then not one more');
  t.equal((await call('POST', `${base}/notifications?sandbox=probe&count=50`, {})).status, 201, 'per sandbox');

  // a user's employment counts in its own collection
  const users = await call('POST', `${base}/users?sandbox=abuser&count=100`, {});
  t.equal(users.status, 201);
  t.equal(users.body.dependents.employments.length, 100);
  const userId = users.body.records[0].id;
  t.equal((await call('POST', `${base}/employments?sandbox=abuser&count=20`, { userId })).status, 201);
  const employmentsFull = await call('POST', `${base}/users?sandbox=abuser`, {});
  t.equal(employmentsFull.status, 422, 'users fit but their employments would not: refused whole');
  t.match(employmentsFull.body.message, /^employments /);

  const reset = await call('POST', '/__admin/reset?sandbox=abuser');
  t.equal(reset.status, 200);
  t.equal((await call('POST', `${base}/notifications?sandbox=abuser&count=100`, {})).status, 201, 'a reset frees it');
  t.same(await probe(), { status: 200, total: before.total + 50 }, 'the probe has its own records only');
});

t.test('a large create lets another sandbox through while it works, and is written at once', async (t) => {
  // the signal that the create's handler has begun (not a guess at how long it takes to get there)
  let began: () => void = () => {};
  const creating = new Promise<void>((resolve) => {
    began = resolve;
  });
  const app = await build(t, {
    onRoute: (route) => {
      if (route.method !== 'POST' || route.url !== '/__admin/data/:tenantId/users') return;
      const handler = route.handler;
      route.handler = function (this: unknown, req, reply) {
        began();
        return handler.call(this as never, req, reply);
      };
    },
  });
  const call = httpCaller(await app.listen({ port: 0, host: '127.0.0.1' }));
  await call('PUT', '/__admin/sandboxes/big');
  await call('PUT', '/__admin/sandboxes/other');
  const total = async (sandbox: string) => (await call('GET', `${base}/users?sandbox=${sandbox}&limit=1`)).body.total;
  const start = await total('big');

  const big = call('POST', `${base}/users?sandbox=big&count=1000`, {});
  // reads sent once the create has begun are answered while it works (not after it), and see none of its records
  // until all are written: the old create held the event loop, and these saw all 1,000
  await creating;
  const seen: number[] = [];
  for (let i = 0; i < 3; i++) {
    seen.push(await total('big'));
    t.equal((await call('GET', `${base}/users?sandbox=other&limit=1`)).status, 200, 'another sandbox answers');
  }
  t.same(seen, [start, start, start], 'answered while the records were made; none of them half-written');
  const created = await big;
  t.equal(created.status, 201);
  t.equal(created.body.records.length, 1000);
  t.equal(await total('big'), start + 1000, 'all written');
  t.equal(new Set(created.body.records.map((u: { email: string }) => u.email)).size, 1000, 'e-mails unique');
});

t.test('two creates in one sandbox at once: both written whole, one after the other', async (t) => {
  const app = await build(t);
  const call = httpCaller(await app.listen({ port: 0, host: '127.0.0.1' }));
  await call('PUT', '/__admin/sandboxes/both');
  const total = async () => (await call('GET', `${base}/users?sandbox=both&limit=1`)).body.total;
  const start = await total();
  const [a, b] = await Promise.all([
    call('POST', `${base}/users?sandbox=both&count=300`, {}),
    call('POST', `${base}/users?sandbox=both&count=300`, {}),
  ]);
  t.same([a.status, b.status], [201, 201]);
  t.equal(await total(), start + 600);
  const ids = new Set([...a.body.records, ...b.body.records].map((u: { id: string }) => u.id));
  t.equal(ids.size, 600, 'no id twice');
  const emails = (await call('GET', `${base}/users?sandbox=both&limit=1000&offset=${start}`)).body.records.map(
    (u: { email: string }) => u.email,
  );
  t.equal(new Set(emails).size, emails.length, 'no e-mail twice');
});

t.test('a create refused at its last record writes nothing and mints nothing', async (t) => {
  const app = await build(t);
  const call = httpCaller(await app.listen({ port: 0, host: '127.0.0.1' }));
  const department = (await call('GET', `${base}/departments?sandbox=default&limit=1`)).body.records[0].id;
  await call('PUT', '/__admin/sandboxes/whole');
  const total = async () => (await call('GET', `${base}/users?sandbox=whole&limit=1`)).body.total;
  const start = await total();
  // the same e-mail for every record: the second is a 409
  const refused = await call('POST', `${base}/users?sandbox=whole&count=200`, {
    email: 'same@romashka.test',
    departmentId: department,
  });
  t.equal(refused.status, 409);
  t.equal(await total(), start, 'nothing written');
  const after = (await call('POST', `${base}/users?sandbox=whole`, {})).body.records[0];
  await call('POST', '/__admin/reset?sandbox=whole');
  const clean = (await call('POST', `${base}/users?sandbox=whole`, {})).body.records[0];
  t.equal(after.id, clean.id, 'the same id as without the refused call: it minted nothing');
  t.same(after, clean, 'the same record');
});

// Issue 54, part 6: after the draft's slices, a create of 1,000 records serialized its whole answer (about 1 MB) and
// committed in one synchronous block. Now the draft ends its turn before the checks and the commit, and a large
// answer is written in slices while the client reads. Time here is a counter (each reading of performance.now() one
// ms more), so the slices fall where the work is, whatever the machine's load; the test counts turns of the event
// loop, never time.
t.test('a create of 1,000 records writes its answer over several turns after the commit', async (t) => {
  const app = await build(t);
  await app.inject({ method: 'PUT', url: '/__admin/sandboxes/big' });
  const sandbox = app.sandboxes.find('big')!;
  const realNow = performance.now.bind(performance);
  let fake = realNow();
  performance.now = () => ++fake;
  t.teardown(() => {
    performance.now = realNow;
  });
  const version = sandbox.store.version;
  const turns = countTurns(() => sandbox.store.version !== version);
  const res = await app.inject({ method: 'POST', url: `${base}/users?sandbox=big&count=1000`, payload: {} });
  const turnsAfterCommit = turns.stop();
  performance.now = realNow;
  t.equal(res.statusCode, 201, res.body.slice(0, 200));
  t.equal(res.headers['content-length'], undefined, 'streamed, not one text');
  const body = JSON.parse(res.body) as { records: Array<{ id: string }>; dependents: Record<string, unknown[]> };
  t.equal(body.records.length, 1000);
  t.equal(new Set(body.records.map((r) => r.id)).size, 1000, 'each record once');
  t.ok(turnsAfterCommit >= 2, `the answer took ${turnsAfterCommit} turns after the commit (it took none)`);

  // a short answer goes as before: one text, through the schema's serializer
  const one = await app.inject({ method: 'POST', url: `${base}/users?sandbox=big`, payload: {} });
  t.equal(one.statusCode, 201);
  t.equal(Number(one.headers['content-length']), Buffer.byteLength(one.body), 'one text');
});
