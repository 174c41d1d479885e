import t from 'tap';
import { accounts, type build, expectError, json, signIn, tenants, sharedApp } from '../helper.js';

// one app for the file's tests, each in a sandbox of its own
const ownSandbox = sharedApp(t);

const tenantOf = (app: Awaited<ReturnType<typeof build>>, sandbox: string) =>
  app.sandboxes.get(sandbox).store.tenant(tenants.romashka)!;

t.test('set-user-list → user-list-data expands users, departments and groups, less excluded', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const tenant = tenantOf(app, sandbox);
  const [u1, u2, u3] = tenant.users.filter((u) => u.state === 'active').slice(5, 8);
  const dep = tenant.departments.find(
    (d) => d.level === 3 && tenant.users.some((u) => u.departmentId === d.id && u.state === 'active'),
  )!;
  const group = tenant.userGroups.find((g) => g.memberIds.length > 0 && g.memberIds.length < 50)!;
  const excluded = group.memberIds.find((m) => m !== u1!.id && m !== u2!.id)!;
  const set = await inject({
    method: 'POST',
    url: '/user-list-cache/set-user-list',
    headers: s.headers,
    payload: {
      key: 'k1',
      userList: {
        usersId: [u1!.id, u2!.id, u3!.id],
        departmentsId: [dep.id],
        userGroupsId: [group.id],
        excludeUsersId: [excluded, u3!.id],
      },
    },
  });
  t.equal(set.statusCode, 200);
  t.same(json(set), { success: true, key: 'k1' });

  const data = await inject({ url: '/user-list-cache/user-list-data?key=k1', headers: s.headers });
  t.equal(data.statusCode, 200);
  const body = json(data);
  const ids = new Set(body.users.map((u: { id: string }) => u.id));
  t.ok(ids.has(u1!.id) && ids.has(u2!.id));
  t.notOk(ids.has(u3!.id), 'excluded');
  t.notOk(ids.has(excluded), 'excluded group member');
  for (const u of tenant.users)
    if (u.departmentId === dep.id && u.state !== 'hidden' && u.id !== excluded && u.id !== u3!.id)
      t.ok(ids.has(u.id), 'department member');
  for (const m of group.memberIds)
    if (m !== excluded && m !== u3!.id && tenant.users.find((u) => u.id === m)?.state !== 'hidden')
      t.ok(ids.has(m), 'group member');
  t.same(body.departments, [{ id: dep.id, name: dep.name }]);
  t.same(body.userGroups, [{ id: group.id, name: group.name }]);
  t.equal(body.usersCount, body.users.length);
  t.match(body.users[0], { id: String, name: String, position: String, departmentName: String, faceUrl: /^http:\/\// });

  // replacing the selection under the same key
  await inject({
    method: 'POST',
    url: '/user-list-cache/set-user-list',
    headers: s.headers,
    payload: { key: 'k1', userList: { usersId: [u1!.id] } },
  });
  t.same(
    json(await inject({ url: '/user-list-cache/user-list-data?key=k1', headers: s.headers })).users.map(
      (u: { id: string }) => u.id,
    ),
    [u1!.id],
  );
});

t.test('unknown key → 404; missing key → 400; form errors → 200 success false; malformed uuid → 400', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  expectError(t, await inject({ url: '/user-list-cache/user-list-data?key=nope', headers: s.headers }), 404);
  expectError(t, await inject({ url: '/user-list-cache/user-list-data', headers: s.headers }), 400);
  const noKey = await inject({
    method: 'POST',
    url: '/user-list-cache/set-user-list',
    headers: s.headers,
    payload: { userList: { usersId: [] } },
  });
  t.equal(noKey.statusCode, 200);
  t.match(json(noKey), { success: false, errors: [/key/] });
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/user-list-cache/set-user-list',
      headers: s.headers,
      payload: { key: 'x', userList: { usersId: ['nope'] } },
    }),
    400,
  );
  expectError(t, await inject({ method: 'POST', url: '/user-list-cache/set-user-list', payload: { key: 'x' } }), 401);
});

t.test('reproduced quirk: a body not sent as application/json stores an EMPTY selection and answers 200', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const userId = tenantOf(app, sandbox).users[5]!.id;
  const asText = await inject({
    method: 'POST',
    url: '/user-list-cache/set-user-list',
    headers: { ...s.headers, 'content-type': 'text/plain' },
    payload: JSON.stringify({ key: 'plain', userList: { usersId: [userId] } }),
  });
  t.equal(asText.statusCode, 200);
  t.same(json(asText), { success: true, key: 'plain' });
  const plain = json(await inject({ url: '/user-list-cache/user-list-data?key=plain', headers: s.headers }));
  t.same(plain.users, [], 'selection silently empty');
  t.equal(plain.usersCount, 0);

  const asForm = await inject({
    method: 'POST',
    url: '/user-list-cache/set-user-list',
    headers: { ...s.headers, 'content-type': 'application/x-www-form-urlencoded' },
    payload: `key=form&userList[usersId][]=${userId}`,
  });
  t.same(json(asForm), { success: true, key: 'form' });
  t.same(json(await inject({ url: '/user-list-cache/user-list-data?key=form', headers: s.headers })).users, []);

  // the parsers are local to the group: another operation still refuses text/plain
  const other = await inject({
    method: 'POST',
    url: '/user-api-token/create',
    headers: { ...s.headers, 'content-type': 'text/plain' },
    payload: 'x',
  });
  t.not(other.statusCode, 200, `other groups keep the global parsers (${other.statusCode})`);
});
