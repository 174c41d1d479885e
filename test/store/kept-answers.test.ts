import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { accounts, build, json, signIn, type Session } from '../helper.js';

// GET /calendar and GET /workflow-ticket/ keep their answers per sandbox data version (src/http/answer-cache.ts): a
// write between two identical reads must show in the second at once, whoever made it.

type Occurrence = { id: string; parent_id: string | null; rec_date: string | null; participants_count: number };
const apiKey = { 'x-service-client-id': 'romashka-integration', 'x-service-client-secret': 'romashka-secret-0001' };

const read = async (app: FastifyInstance, url: string, headers: Record<string, string>) => {
  const res = await app.inject({ url, headers });
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return res;
};

/** Requests participation in each listed occurrence until one is approved at once; answers that occurrence. */
async function joinOne(app: FastifyInstance, s: Session, listed: Occurrence[]): Promise<Occurrence> {
  for (const o of listed) {
    const payload = o.parent_id
      ? { calendar_event_id: o.id, calendar_event_parent_id: o.parent_id, calendar_event_rec_date: o.rec_date }
      : { calendar_event_id: o.id };
    const res = json(await app.inject({ method: 'POST', url: '/calendar-event-request', headers: s.headers, payload }));
    if (res.success && res.data.status === 'approved') return o;
  }
  throw new Error('no listed occurrence takes an automatically approved request');
}

t.test('calendar: a participation request shows in the same list at once', async (t) => {
  const app = await build(t);
  const s = await signIn(app);
  const before = await read(app, '/calendar', s.headers);
  t.equal((await read(app, '/calendar', s.headers)).body, before.body, 'the same list twice, nothing written');
  const joined = await joinOne(app, s, json(before).data);
  const after = json(await read(app, '/calendar', s.headers)).data as Occurrence[];
  t.equal(after.find((o) => o.id === joined.id)?.participants_count, joined.participants_count + 1);
});

t.test("calendar: one user's kept list is not another's", async (t) => {
  const app = await build(t);
  const admin = await signIn(app);
  const other = await signIn(app, accounts.twoFactor);
  const mine = await read(app, '/calendar/my', admin.headers);
  const theirs = await read(app, '/calendar/my', other.headers);
  t.not(theirs.body, mine.body);
});

t.test('tickets: a new application shows on the same page at once', async (t) => {
  const app = await build(t);
  const s = await signIn(app);
  const before = json(await read(app, '/api/v2/workflow-ticket/', apiKey));
  const process = json(await read(app, '/workflow/catalog', s.headers)).workflows[0];
  const form = json(await read(app, `/workflow/start/${process.id}`, s.headers));
  const fieldValues: Record<string, string> = {};
  for (const f of form.fields) {
    if (!f.required) continue;
    fieldValues[f.id] =
      f.type === 'select' ? f.values[0] : f.type === 'date' ? '2026-04-01' : f.type === 'number' ? '1' : 'x';
  }
  const started = await app.inject({
    method: 'POST',
    url: `/workflow/start/${process.id}`,
    headers: s.headers,
    payload: { fieldValues },
  });
  t.equal(started.statusCode, 201, started.body);
  const after = json(await read(app, '/api/v2/workflow-ticket/', apiKey));
  t.equal(after._meta.totalCount, before._meta.totalCount + 1, 'the new ticket is counted');
});

t.test('calendar: a kept list follows the sandbox clock, not only writes', async (t) => {
  // the default window starts with this month: past midnight of the month's last day, the same URL lists April's
  const app = await build(t, { now: '2026-03-31T20:00:00.000Z' });
  const s = await signIn(app);
  const before = json(await read(app, '/calendar', s.headers)).data as { start_date_time: string }[];
  t.ok(
    before.some((o) => o.start_date_time < '2026-04-01'),
    'March is listed',
  );
  const moved = await app.inject({ method: 'PUT', url: '/__admin/clock', payload: { advanceMs: 6 * 3_600_000 } });
  t.equal(moved.statusCode, 200);
  const after = json(await read(app, '/calendar', s.headers)).data as { start_date_time: string }[];
  t.ok(after.length > 0);
  t.notOk(
    after.some((o) => o.start_date_time < '2026-04-01'),
    'built again for the new time: nothing of March',
  );
});
