import t from 'tap';
import { accounts, expectError, json, signIn, tenants, sharedApp } from '../helper.js';

// one app for the file's tests, each in a sandbox of its own
const ownSandbox = sharedApp(t);

const uuidZero = '00000000-0000-4000-8000-000000000000';

t.test('add about a user and a department; view', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const tenant = app.sandboxes.get(sandbox).store.tenant(tenants.romashka)!;
  const dep = tenant.departments[1]!;
  const res = await inject({
    method: 'POST',
    url: '/feedback/add',
    headers: s.headers,
    payload: { userId: accounts.admin.userId, type: 'user', id: accounts.noRights.userId, score: 5, text: 'Спасибо!' },
  });
  t.equal(res.statusCode, 200);
  const fb = json(res);
  t.match(fb, {
    success: true,
    message: String,
    feedback: {
      type: 'user',
      entity_id: accounts.noRights.userId,
      score: 5,
      text: 'Спасибо!',
      isAnonymous: false,
      author: { id: accounts.admin.userId },
    },
  });
  const view = json(await inject({ url: `/feedback/view?id=${fb.feedback.id}`, headers: s.headers }));
  t.same(view, fb.feedback);

  const d = json(
    await inject({
      method: 'POST',
      url: '/feedback/add',
      headers: s.headers,
      payload: { type: 'department', id: dep.id, score: 3, text: '' },
    }),
  );
  t.match(d.feedback, {
    type: 'department',
    entity: { id: dep.id, name: dep.name, faceUrl: null },
    author: { id: accounts.admin.userId },
  });
});

t.test('anonymous feedback never reveals its author', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const petr = await signIn(app, accounts.noRights, { sandbox });
  const fb = json(
    await inject({
      method: 'POST',
      url: '/feedback/add',
      headers: petr.headers,
      payload: { type: 'user', id: accounts.admin.userId, score: 2, text: 'Медленно', isAnonymous: true },
    }),
  );
  t.match(fb.feedback, { isAnonymous: true, author: null });
  const view = await inject({ url: `/feedback/view?id=${fb.feedback.id}`, headers: s.headers });
  t.match(json(view), { isAnonymous: true, author: null });
  t.notOk(view.body.includes(accounts.noRights.userId), 'the author id appears nowhere');
});

t.test('errors', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const add = (payload: object) => inject({ method: 'POST', url: '/feedback/add', headers: s.headers, payload });
  const ok = { type: 'user', id: accounts.noRights.userId, score: 4, text: 't' };
  for (const score of [0, 6, 2.5]) {
    const e = expectError(t, await add({ ...ok, score }), 400);
    t.same(
      e.details?.map((d) => d.field),
      ['body.score'],
    );
  }
  expectError(t, await add({ ...ok, type: 'team' }), 400);
  expectError(t, await add({ ...ok, id: 'x' }), 400);
  expectError(t, await add({ score: 3 }), 400);
  expectError(t, await add({ ...ok, id: accounts.admin.userId }), 400);
  const nf = expectError(t, await add({ ...ok, id: uuidZero }), 404);
  t.match(nf.message, /user .* not found/);
  expectError(t, await add({ ...ok, type: 'department', id: uuidZero }), 404);
  expectError(t, await add({ ...ok, id: accounts.nwAdmin.userId }), 404); // a user of another tenant
  expectError(t, await add({ ...ok, userId: accounts.noRights.userId }), 403);
  expectError(t, await inject({ method: 'POST', url: '/feedback/add', payload: ok }), 401);
  expectError(t, await inject({ url: `/feedback/view?id=${uuidZero}`, headers: s.headers }), 404);
  expectError(t, await inject({ url: '/feedback/view?id=1', headers: s.headers }), 400);
  expectError(t, await inject({ url: '/feedback/view', headers: s.headers }), 400);
  const seeded = app.sandboxes.get(sandbox).store.tenant(tenants.northwind)!.feedback[0]!;
  expectError(t, await inject({ url: `/feedback/view?id=${seeded.id}`, headers: s.headers }), 404); // another tenant's feedback
});
