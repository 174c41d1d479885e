// Factories of the records API (issue 33, parts 2 and 3), through real HTTP: a partial record is filled as the
// seeder would, the same calls give the same bytes, a dangling reference is refused with nothing written, a created
// user signs in through the portal's own flow (with and without two-factor), and a rejected ticket shows to its
// author in the portal's ticket screens.
import t from 'tap';
import { recordCollections } from '../../src/domain/records.js';
import { employeeRights, generatedPassword as demoPassword } from '../../src/store/seed/people.js';
import { accounts, build, httpCaller, tenants } from '../helper.js';

type Teardown = { teardown(fn: () => unknown): void };
const data = (collection: string) => `/__admin/data/${tenants.romashka}/${collection}`;

async function listening(t: Teardown) {
  const app = await build(t);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, call: httpCaller(base) };
}
type Call = Awaited<ReturnType<typeof listening>>['call'];

/** The portal's sign-in as a phone does it: request a code (from the outbox when asked), bind, authorise. */
async function signInOverHttp(call: Call, sandbox: string, email: string, password: string) {
  const box = { 'x-mock-sandbox': sandbox };
  const asked = await call('POST', '/mobile/request-two-factor', { email, password }, box);
  if (asked.status !== 200) throw new Error(`request-two-factor: ${asked.status} ${JSON.stringify(asked.body)}`);
  let code: string | undefined;
  if (asked.body.codeRequired) {
    const to = encodeURIComponent(email);
    const outbox = await call('GET', `/__admin/outbox?sandbox=${sandbox}&kind=two-factor-code&to=${to}`);
    code = outbox.body[0]?.code;
  }
  const device = { id: `phone-${email.replace('@', '.')}`, platform: 'ios' };
  const bind = await call('POST', '/mobile/manual-bind', { email, password, code, device }, box);
  if (bind.status !== 200) throw new Error(`manual-bind: ${bind.status} ${JSON.stringify(bind.body)}`);
  const secret = bind.body.accountSecret;
  const tenantHeader = { ...box, 'x-service-tenant-id': secret.tenantId };
  const auth = await call(
    'POST',
    '/mobile/auth',
    { secret: secret.secret, userId: secret.userId, deviceId: secret.deviceId },
    tenantHeader,
  );
  if (auth.status !== 200) throw new Error(`auth: ${auth.status} ${JSON.stringify(auth.body)}`);
  return {
    codeRequired: asked.body.codeRequired as boolean,
    headers: {
      ...tenantHeader,
      'x-service-device-id': secret.deviceId,
      'x-service-session-id': auth.body.sessionId,
      'x-service-session-code': auth.body.sessionSecret,
    },
  };
}

t.test('an empty record makes a whole one in every collection; the fields given are kept', async (t) => {
  const { call } = await listening(t);
  for (const collection of recordCollections) {
    const made = await call('POST', `${data(collection)}?sandbox=fill`, {});
    t.equal(made.status, 201, `${collection}: ${JSON.stringify(made.body).slice(0, 300)}`);
    const [record] = made.body.records ?? [];
    if (!record) continue;
    const back = await call('GET', `${data(collection)}/${record.id}?sandbox=fill`);
    t.same(back.body, record, `${collection}: kept as answered`);
  }
  // the portal's screens read what was made as they read the seeded world: each answers as in an untouched sandbox
  const screens = [
    '/user/items',
    '/user/index',
    '/user/search?q=a',
    '/employment/index',
    '/org-employment-file/index',
    '/user-group/items',
    '/meeting-place/items',
    '/notifications/pushes',
    '/department/tree-node',
    '/dashboard',
    '/workflow/catalog',
    '/workflow-ticket/',
    '/file/index',
    '/idea/index',
    '/article/news',
    '/calendar-event-type',
    '/admin/employment',
    '/admin/wallet',
  ];
  const admin = accounts.admin;
  const filled = await signInOverHttp(call, 'fill', admin.email, admin.password);
  const untouched = await signInOverHttp(call, 'untouched', admin.email, admin.password);
  let shown = 0;
  for (const screen of screens) {
    const seen = await call('GET', screen, undefined, filled.headers);
    if (seen.status === 200) shown++;
    const before = await call('GET', screen, undefined, untouched.headers);
    t.equal(seen.status, before.status, `${screen}: ${JSON.stringify(seen.body).slice(0, 200)}`);
    t.ok(seen.status < 500, `${screen} answers`);
  }
  t.ok(shown >= screens.length - 2, `the screens show (${shown} of ${screens.length} answered 200)`);

  const given = await call('POST', `${data('notifications')}?sandbox=fill`, {
    userId: accounts.noRights.userId,
    title: 'Your payslip',
  });
  t.match(given.body.records[0], { userId: accounts.noRights.userId, title: 'Your payslip', seenAt: null });
  t.match(given.body.records[0].body, /\S/, 'a body filled in');
});

t.test('a user as the seeder makes one: locale names, demo password, rights, department, employment', async (t) => {
  const { call } = await listening(t);
  const made = await call('POST', `${data('users')}?sandbox=people`, { firstName: 'Зоя' });
  t.equal(made.status, 201);
  const user = made.body.records[0];
  t.equal(user.firstName, 'Зоя', 'the field given');
  t.match(user.lastName, /^[А-ЯЁ][а-яё]+$/, 'a Russian last name for the Russian tenant');
  t.equal(user.name, [user.lastName, user.firstName, user.middleName].filter(Boolean).join(' '));
  t.match(user.email, /^zoya\.[a-z]+\d*@romashka\.test$/, 'an e-mail as the seeder writes one');
  t.equal(user.password, demoPassword);
  t.same(user.rights, employeeRights);
  const seeded = (await call('GET', `${data('users')}?sandbox=people&isBoss=false&limit=200`)).body.records;
  const generated = seeded.filter((u: { email: string }) => !u.email.startsWith('ivan.petrov'));
  t.ok(
    generated.some((u: { password: string; rights: string[] }) => u.password === demoPassword),
    "the seeder's demo password",
  );
  t.ok(generated.some((u: { rights: string[] }) => JSON.stringify(u.rights) === JSON.stringify(employeeRights)));
  const department = await call('GET', `${data('departments')}/${user.departmentId}?sandbox=people`);
  t.equal(department.status, 200, 'a department of the tenant');
  t.match(made.body.dependents.employments, [{ userId: user.id, departmentId: user.departmentId, isMain: true }]);
  t.same(Object.keys(made.body.dependents), ['employments'], 'the groups it joined are changed, not answered');
  const groups = (await call('GET', `${data('userGroups')}?sandbox=people&conditionsReadable=*`)).body.records;
  t.ok(groups[0]?.memberIds.includes(user.id), 'in the everyone group, as every seeded user');

  const en = await call('POST', `/__admin/data/${tenants.northwind}/users?sandbox=people`, {});
  t.match(en.body.records[0], { middleName: null, email: /@northwind\.test$/ }, 'the English tenant: no middle name');
  const taken = await call('POST', `${data('users')}?sandbox=people`, { email: accounts.admin.email });
  t.equal(taken.status, 409, 'an e-mail another user signs in with');
});

t.test('a created user signs in through the portal, with and without two-factor', async (t) => {
  const { call } = await listening(t);
  for (const twoFactor of [false, true]) {
    const made = await call('POST', `${data('users')}?sandbox=signin`, { twoFactor });
    const user = made.body.records[0];
    const session = await signInOverHttp(call, 'signin', user.email, demoPassword);
    t.equal(session.codeRequired, twoFactor, `twoFactor ${twoFactor}: a code is asked for only when on`);
    const profile = await call('GET', `/user/profile?id=${user.id}`, undefined, session.headers);
    t.equal(profile.status, 200, `twoFactor ${twoFactor}: signed in`);
    t.match(JSON.stringify(profile.body), user.lastName, 'the profile is the created user');
  }
});

t.test('a rejected ticket shows to its author in the ticket list and detail', async (t) => {
  const { call } = await listening(t);
  const author = (await call('POST', `${data('users')}?sandbox=tickets`, { twoFactor: true })).body.records[0];
  const made = await call('POST', `${data('wfTickets')}?sandbox=tickets`, { userId: author.id, statusId: 3 });
  t.equal(made.status, 201);
  const ticket = made.body.records[0];
  t.equal(ticket.history.at(-1).statusId, 3, 'the history ends rejected');
  t.equal(ticket.solvedAt, null);
  const process = await call('GET', `${data('wfProcesses')}/${ticket.processId}?sandbox=tickets`);
  t.equal(ticket.categoryId, process.body.categoryId, "the process's category");
  t.same(Object.keys(ticket.fieldValues).sort(), process.body.fields.map((f: { id: string }) => f.id).sort());

  const session = await signInOverHttp(call, 'tickets', author.email, demoPassword);
  const list = await call('GET', '/workflow-ticket/?wf_status_id=3', undefined, session.headers);
  t.equal(list.status, 200);
  t.match(list.body.data, [{ id: ticket.id, wf_status_id: 3 }], 'listed for the author as rejected');
  const view = await call('GET', `/workflow-ticket/view?id=${ticket.id}`, undefined, session.headers);
  t.equal(view.status, 200);
  t.equal(view.body.wf_status_id, 3);
  t.ok(
    view.body.wfTicketStages.some((s: { state: string }) => s.state === 'stopped'),
    'its stage shows as stopped',
  );
  const wrongStage = await call('POST', `${data('wfTickets')}?sandbox=tickets`, { stageId: ticket.id });
  t.equal(wrongStage.status, 400, 'a stage not of the process');
});

t.test('the same calls on fresh sandboxes give the same bytes; a refused create leaves no trace', async (t) => {
  const runs: string[] = [];
  for (const refuseFirst of [false, true]) {
    const { call } = await listening(t);
    const sandbox = 'same';
    if (refuseFirst) {
      const refused = await call('POST', `${data('users')}?sandbox=${sandbox}`, {
        departmentId: accounts.admin.userId,
      });
      t.equal(refused.status, 400, 'a refused create first');
    }
    const out = [];
    out.push((await call('POST', `${data('users')}?sandbox=${sandbox}&count=2`, {})).body);
    out.push((await call('POST', `${data('wfTickets')}?sandbox=${sandbox}`, { statusId: 2 })).body);
    out.push((await call('POST', `${data('notifications')}?sandbox=${sandbox}&count=3`, {})).body);
    runs.push(JSON.stringify(out));
  }
  t.equal(runs[0], runs[1]);
  t.ok(runs[0]!.length > 1000, 'and they made records');
});

t.test('a dangling reference is a 400 naming field and id; nothing is written', async (t) => {
  const { call } = await listening(t);
  await call('PUT', '/__admin/sandboxes/dangling');
  const ghost = 'dead0000-0000-4000-8000-000000000000';
  const before = (await call('GET', `${data('wfTickets')}?sandbox=dangling&limit=1`)).body.total;
  const cases: Array<[string, string, unknown, RegExp, string?]> = [
    ['wfTickets', 'a single field', { userId: ghost }, /^userId: no users record "dead0000-[^"]+" in tenant /],
    ['wfTickets', 'a map of lists', { responsible: { x: [ghost] } }, /^responsible\.\*\[\]: no users record/],
    ['articles', 'a list', { tagIds: [ghost] }, /^tagIds\[\]: no articleTags record/],
    ['wfTickets', 'in a batch', { processId: ghost }, /^processId: no wfProcesses record/, '&count=3'],
  ];
  for (const [collection, what, body, message, count = ''] of cases) {
    const res = await call('POST', `${data(collection)}?sandbox=dangling${count}`, body);
    t.equal(res.status, 400, what);
    t.match(res.body.message, message, what);
  }
  t.equal((await call('GET', `${data('wfTickets')}?sandbox=dangling&limit=1`)).body.total, before, 'no ticket');
  const ticket = (await call('POST', `${data('wfTickets')}?sandbox=dangling`, {})).body.records[0];
  const patched = await call('PATCH', `${data('wfTickets')}/${ticket.id}?sandbox=dangling`, { processId: ghost });
  t.equal(patched.status, 400);
  t.match(patched.body.details, [{ field: 'body.processId' }]);
});

t.test('?count=N makes distinct records, each with what it needs', async (t) => {
  const { call } = await listening(t);
  const made = await call('POST', `${data('users')}?sandbox=many&count=5`, { position: 'Tester' });
  t.equal(made.status, 201);
  const users = made.body.records as Array<{ id: string; email: string; position: string }>;
  t.equal(new Set(users.map((u) => u.id)).size, 5);
  t.equal(new Set(users.map((u) => u.email)).size, 5, 'unique e-mails');
  t.ok(users.every((u) => u.position === 'Tester'));
  t.same(
    made.body.dependents.employments.map((e: { userId: string }) => e.userId),
    users.map((u) => u.id),
    'an employment each',
  );
  const sameEmail = await call('POST', `${data('users')}?sandbox=many&count=2`, { email: 'twin@romashka.test' });
  t.equal(sameEmail.status, 409, 'two users cannot share an e-mail');
  const twin = await call('GET', `${data('users')}?sandbox=many&email=twin@romashka.test`);
  t.equal(twin.body.total, 0, 'the batch is refused whole');
});
