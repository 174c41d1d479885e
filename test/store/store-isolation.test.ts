// Copy-on-write sandboxes: random writes across several sandboxes of one app leave each sandbox exactly as the same
// writes leave it on a fresh app that holds only that sandbox; the shared base world never changes.
import t from 'tap';
import fc from 'fast-check';
import { accounts, build, json, signIn, tenants, type Session } from '../helper.js';

const now = '2026-03-02T09:00:00.000Z';
// the smallest generated world (10 users per tenant, the flag's minimum): the writes and the copy-on-write do not
// depend on its size, and each run compares 6 whole exports, which took most of the file's time at 200 users
const users = 10;
type App = Awaited<ReturnType<typeof build>>;

/** Writes a client can make, each through the API. */
type Write =
  | { kind: 'idea'; title: string }
  | { kind: 'status'; text: string }
  | { kind: 'seen' }
  | { kind: 'vote'; pick: number }
  | { kind: 'feedback'; score: number }
  | { kind: 'token'; name: string };

const write: fc.Arbitrary<Write> = fc.oneof(
  fc.record({
    kind: fc.constant('idea' as const),
    title: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== ''),
  }),
  fc.record({ kind: fc.constant('status' as const), text: fc.string({ maxLength: 30 }) }),
  fc.record({ kind: fc.constant('seen' as const) }),
  fc.record({ kind: fc.constant('vote' as const), pick: fc.nat(20) }),
  fc.record({ kind: fc.constant('feedback' as const), score: fc.integer({ min: 1, max: 5 }) }),
  fc.record({
    kind: fc.constant('token' as const),
    name: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== ''),
  }),
);

async function apply(app: App, s: Session, w: Write): Promise<number> {
  const post = (url: string, payload?: object) =>
    payload === undefined
      ? app.inject({ method: 'POST', url, headers: s.headers })
      : app.inject({ method: 'POST', url, headers: s.headers, payload });
  switch (w.kind) {
    case 'idea':
      return (await post('/idea/edit', { title: w.title, description: 'd', idea_purpose_id: 1 })).statusCode;
    case 'status':
      return (await post('/account/status-text', { activeTypes: w.text })).statusCode;
    case 'seen':
      return (await post('/notifications/mark-seen-all')).statusCode;
    case 'vote': {
      const ideas = json(await app.inject({ url: '/idea/index?per-page=20', headers: s.headers })).data as Array<{
        id: string;
      }>;
      const idea = ideas[w.pick % Math.max(ideas.length, 1)];
      return idea ? (await post(`/idea/vote?id=${idea.id}`)).statusCode : 200;
    }
    case 'feedback':
      return (await post('/feedback/add', { type: 'user', id: accounts.noRights.userId, score: w.score, text: 'ok' }))
        .statusCode;
    case 'token':
      return (await post('/user-api-token/create', { name: w.name })).statusCode;
  }
}

const exportOf = async (app: App, sandbox: string) => {
  const res = await app.inject({ url: `/__admin/state?sandbox=${sandbox}` });
  return JSON.stringify(json(res).data);
};

t.test('random writes across sandboxes: each sandbox equals the same writes alone on a fresh app', async (t) => {
  const shared = await build(t, { now, users });
  const alone = await build(t, { now, users });
  const baseBefore = await exportOf(shared, 'untouched');
  let run = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(fc.nat(2), write), { minLength: 1, maxLength: 12 }), async (writes) => {
      run++;
      const names = [0, 1, 2].map((i) => `r${run}-s${i}`);
      const sessions = await Promise.all(
        names.map((sandbox) => signIn(shared, accounts.admin, { sandbox, deviceId: 'prop-device' })),
      );
      for (const [i, w] of writes) t.equal(await apply(shared, sessions[i]!, w), 200, `${w.kind} in ${names[i]}`);
      for (const [i, name] of names.entries()) {
        const s = await signIn(alone, accounts.admin, { sandbox: name, deviceId: 'prop-device' });
        for (const [j, w] of writes) if (j === i) await apply(alone, s, w);
        if ((await exportOf(shared, name)) !== (await exportOf(alone, name))) return false;
      }
      return true;
    }),
    { numRuns: 12, seed: 20 },
  );
  t.equal(
    await exportOf(shared, 'untouched'),
    baseBefore,
    'a sandbox that never wrote still sees the untouched base world',
  );
});

t.test('the base world is frozen: a stray mutation throws instead of reaching every sandbox', async (t) => {
  const app = await build(t, { now, users });
  const tenant = app.sandboxes.get('default').store.tenant(tenants.romashka)!;
  const user = tenant.users[0]!;
  t.throws(() => {
    (user as { statusText: string }).statusText = 'changed';
  }, TypeError);
  t.throws(() => {
    (tenant.users as unknown as unknown[]).push(user);
  }, TypeError);
  t.throws(() => {
    (tenant as unknown as { users: unknown }).users = [];
  }, TypeError);
  t.equal(app.sandboxes.get('other').store.tenant(tenants.romashka)!.users[0]!.statusText, user.statusText);
});

t.test("a new sandbox holds only a few objects: the collections are the base world's until it writes", async (t) => {
  const app = await build(t, { now, users });
  const a = app.sandboxes.get('a').store.tenant(tenants.romashka)!;
  const b = app.sandboxes.get('b').store.tenant(tenants.romashka)!;
  t.equal(a.users, b.users, 'one users array for both');
  t.equal(a.ideas, b.ideas);
  const s = await signIn(app, accounts.admin, { sandbox: 'a' });
  t.not(a.sessions, b.sessions, 'the sandbox that signed in has its own sessions');
  t.equal(a.ideas, b.ideas, 'and still shares what it did not write');
  const created = await app.inject({
    method: 'POST',
    url: '/idea/edit',
    headers: s.headers,
    payload: { title: 'mine', description: 'd', idea_purpose_id: 1 },
  });
  t.equal(created.statusCode, 200, created.body);
  t.equal(a.ideas.length, b.ideas.length + 1);
  t.equal(
    a.ideas.slice(0, -1).every((idea, i) => idea === b.ideas[i]),
    true,
    'the records it did not change are shared',
  );
  const reset = await app.inject({ method: 'POST', url: '/__admin/reset?sandbox=a', payload: {} });
  t.equal(reset.statusCode, 200);
  const after = app.sandboxes.get('a').store.tenant(tenants.romashka)!;
  t.equal(after.ideas, b.ideas, 'a reset shares the base world again');
});
