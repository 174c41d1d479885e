import t from 'tap';
import { accounts, type build, expectError, json, signIn, tenants, sharedApp } from '../helper.js';

// one app for the file's tests, each in a sandbox of its own
const ownSandbox = sharedApp(t);

const tenantOf = (app: Awaited<ReturnType<typeof build>>, sandbox: string) =>
  app.sandboxes.get(sandbox).store.tenant(tenants.romashka)!;
type Row = {
  id: string;
  user_id: string;
  origin_id: string;
  origin_organization_id: string;
  is_main: boolean;
  status_id: number;
  department_id: string;
  chief_id: string | null;
  position: string;
  employment_date: string;
  created_at: string;
  reg_status_id: number;
  user: { name: string };
};

t.test('index: right user-edit, per-page clamped, maps origin id to user id', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const tenant = tenantOf(app, sandbox);
  const visible = tenant.employments.filter((e) => tenant.users.find((u) => u.id === e.userId)?.state !== 'hidden');
  const all = json(await inject({ url: '/admin/employment?per-page=1000', headers: s.headers }));
  t.match(all._meta, { perPage: 100, totalCount: visible.length });
  const e = tenant.employments.find((x) => x.originOrganizationId === 'ORG-2')!;
  const mapped = json(
    await inject({
      url: `/admin/employment?origin_id[]=${encodeURIComponent(e.originId)}&origin_organization_id=ORG-2`,
      headers: s.headers,
    }),
  );
  t.equal(mapped.data.length, 1);
  t.match(mapped.data[0], {
    id: e.id,
    user_id: e.userId,
    origin_id: e.originId,
    origin_organization_id: 'ORG-2',
    is_main: false,
  });
  const e2 = tenant.employments[5]!;
  const two = json(
    await inject({
      url: `/admin/employment?origin_id[]=${encodeURIComponent(e.originId)}&origin_id[]=${encodeURIComponent(e2.originId)}`,
      headers: s.headers,
    }),
  );
  t.same(two.data.map((r: Row) => r.id).sort(), [e.id, e2.id].sort(), 'origin_id[] is repeatable');

  const plain = await signIn(app, accounts.noRights, { sandbox });
  expectError(t, await inject({ url: '/admin/employment', headers: plain.headers }), 403);
  expectError(t, await inject({ url: '/admin/employment' }), 401);
});

t.test('index: every filter', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const tenant = tenantOf(app, sandbox);
  const get = async (q: string): Promise<{ data: Row[]; _meta: { totalCount: number } }> => {
    const res = await inject({ url: `/admin/employment?per-page=100&${q}`, headers: s.headers });
    t.equal(res.statusCode, 200, q);
    return json(res);
  };
  const adminId = accounts.admin.userId;
  const other = tenant.users[20]!.id;
  const byUsers = await get(`user_id[]=${adminId}&user_id[]=${other}`);
  t.same([...new Set(byUsers.data.map((r) => r.user_id))].sort(), [adminId, other].sort());
  t.ok((await get(`user_id=${adminId}`)).data.every((r) => r.user_id === adminId));

  const dep = tenant.employments[30]!.departmentId;
  t.ok((await get(`department_id=${dep}`)).data.every((r) => r.department_id === dep));
  const head = tenant.departments.find((d) => d.headId && tenant.employments.some((e) => e.departmentId === d.id))!;
  const byChief = await get(`chief_id=${head.headId}`);
  t.ok(byChief.data.length > 0 && byChief.data.every((r) => r.chief_id === head.headId));

  t.ok((await get('is_main=0')).data.every((r) => !r.is_main));
  t.ok((await get('is_main=1')).data.every((r) => r.is_main));
  t.ok((await get('status_id=2')).data.every((r) => r.status_id === 2));
  t.ok((await get('reg_status_id=1')).data.every((r) => r.reg_status_id === 1));

  const multiple = await get('multipleEmployment=1');
  const counts = new Map<string, number>();
  for (const e of tenant.employments) counts.set(e.userId, (counts.get(e.userId) ?? 0) + 1);
  t.ok(multiple.data.length > 0 && multiple.data.every((r) => counts.get(r.user_id)! > 1));
  t.ok((await get('multipleEmployment=0')).data.every((r) => counts.get(r.user_id) === 1));

  const e = tenant.employments[40]!;
  const byDate = await get(`employment_date=${e.employmentDate}|${e.employmentDate}`);
  t.ok(byDate.data.some((r) => r.id === e.id) && byDate.data.every((r) => r.employment_date === e.employmentDate));
  const created = e.createdAt.slice(0, 10);
  t.ok((await get(`created_at=${created}|`)).data.every((r) => r.created_at.slice(0, 10) >= created));
  t.equal(
    (await get('fired_date=2020-01-01|2030-01-01'))._meta.totalCount,
    tenant.employments.filter((x) => x.firedDate).length,
  );
  for (const field of ['employment_date', 'fired_date', 'created_at']) {
    expectError(
      t,
      await inject({ url: `/admin/employment?${field}=2026-01-01T10:00:00|2026-02-01`, headers: s.headers }),
      422,
    );
  }
  expectError(t, await inject({ url: '/admin/employment?created_at=2026-02-01|2026-01-01', headers: s.headers }), 400);

  const user = tenant.users.find((u) => u.id === adminId)!;
  t.ok((await get(`name=${encodeURIComponent(user.lastName.toUpperCase())}`)).data.some((r) => r.user_id === adminId));
  const pos = tenant.employments[50]!.position;
  t.ok(
    (await get(`position=${encodeURIComponent(pos)}`)).data.every((r) =>
      r.position.toLowerCase().includes(pos.toLowerCase().split(' ')[0]!),
    ),
  );

  await inject({
    method: 'POST',
    url: '/user-list-cache/set-user-list',
    headers: s.headers,
    payload: { key: 'emp', userList: { usersId: [adminId] } },
  });
  t.ok((await get('user_list_key=emp')).data.every((r) => r.user_id === adminId));
  t.equal((await get('user_list_key=nothing'))._meta.totalCount, 0);
  expectError(t, await inject({ url: '/admin/employment?is_main=maybe', headers: s.headers }), 400);
});

t.test('view: 400 malformed, 404 unknown', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const e = tenantOf(app, sandbox).employments[0]!;
  t.match(json(await inject({ url: `/admin/employment/view?id=${e.id}`, headers: s.headers })), {
    id: e.id,
    user_id: e.userId,
    origin_id: e.originId,
  });
  expectError(t, await inject({ url: '/admin/employment/view?id=abc', headers: s.headers }), 400);
  expectError(
    t,
    await inject({ url: '/admin/employment/view?id=00000000-0000-4000-8000-000000000000', headers: s.headers }),
    404,
  );
  const plain = await signIn(app, accounts.noRights, { sandbox });
  expectError(t, await inject({ url: `/admin/employment/view?id=${e.id}`, headers: plain.headers }), 403);
});
