import t from 'tap';
import { accounts, build, expectError, json, signIn, tenants } from '../helper.js';

const unknownUuid = '00000000-0000-4000-8000-00000000dead';

t.test('org-employment-file/index: own documents only, every filter', async (t) => {
  const app = await build(t);
  const s = await signIn(app);
  const get = (q = '') => app.inject({ url: `/org-employment-file/index?${q}`, headers: s.headers });
  const all = json(await get('per-page=100'));
  t.equal(all._meta.totalCount, 6);
  t.ok(all.data.every((d: { user_id: string }) => d.user_id === accounts.admin.userId));
  const doc = all.data.find(
    (d: { org_employment_file_status_id: string }) => d.org_employment_file_status_id === 'ready',
  );
  t.match(doc, {
    file_id: String,
    fileUrl: /^http:\/\/localhost:80\/pages\/org-employment-file\//,
    ready_at: String,
    orgEmploymentFileStatus: { id: 'ready', name: 'Готов' },
  });
  const one = (q: string) => get(q).then((r) => json(r).data.map((d: { id: string }) => d.id));
  t.same(await one(`id=${doc.id}`), [doc.id]);
  t.ok((await one(`created_at=${encodeURIComponent(doc.created_at)}`)).includes(doc.id));
  t.ok((await one(`created_at=${doc.created_at.slice(0, 10)}`)).includes(doc.id));
  t.ok((await one(`updated_at=${encodeURIComponent(doc.updated_at)}`)).includes(doc.id));
  t.ok((await one(`ready_at=${encodeURIComponent(doc.ready_at)}`)).includes(doc.id));
  t.same(await one(`custom_id=${encodeURIComponent(doc.custom_id)}`), [doc.id]);
  t.ok((await one(`organization_id=${doc.organization_id}`)).includes(doc.id));
  t.ok((await one(`org_employment_id=${doc.org_employment_id}`)).includes(doc.id));
  t.ok(
    (await one(`org_employment_id=${encodeURIComponent(doc.org_employment_origin_id)}`)).includes(doc.id),
    'by record number too',
  );
  t.equal((await one(`user_id=${accounts.admin.userId}`)).length, 6);
  t.same(await one(`user_id=${unknownUuid}`), []);
  t.same(await one(`file_id=${doc.file_id}`), [doc.id]);
  t.ok(
    json(await get(`org_employment_file_type_id=${doc.org_employment_file_type_id}`)).data.every(
      (d: { org_employment_file_type_id: string }) => d.org_employment_file_type_id === doc.org_employment_file_type_id,
    ),
  );
  t.ok(
    json(await get('org_employment_file_status_id=ready')).data.every(
      (d: { org_employment_file_status_id: string }) => d.org_employment_file_status_id === 'ready',
    ),
  );
  const ranged = json(await get('date_from=2026-01-01&date_to=2026-01-31')).data;
  t.ok(
    ranged.every(
      (d: { date_from: string | null; date_to: string | null; created_at: string }) =>
        (d.date_to ?? d.created_at.slice(0, 10)) >= '2026-01-01' &&
        (d.date_from ?? d.created_at.slice(0, 10)) <= '2026-01-31',
    ),
  );
  expectError(t, await get(`custom_id=${'x'.repeat(65)}`), 400);
  expectError(t, await get(`org_employment_id=${'x'.repeat(65)}`), 400);
  expectError(t, await get('org_employment_file_status_id=lost'), 400);
  expectError(t, await get('id=1'), 400);
  expectError(t, await get('date_from=yesterday'), 400);
  expectError(
    t,
    await app.inject({
      url: '/org-employment-file/index',
      headers: { ...s.headers, 'x-service-session-id': unknownUuid },
    }),
    401,
  );

  // someone else's document never shows, even by id
  const foreign = app.sandboxes
    .get('default')
    .store.tenant(tenants.romashka)!
    .orgEmploymentFiles.find((f) => f.userId !== accounts.admin.userId)!;
  t.same(await one(`id=${foreign.id}`), []);
});

t.test('org-employment-file/request: requested → in-progress → ready by the clock', async (t) => {
  const app = await build(t);
  const s = await signIn(app);
  const employment = json(await app.inject({ url: '/employment/index', headers: s.headers })).data[0];
  const res = await app.inject({
    method: 'POST',
    url: '/org-employment-file/request',
    headers: s.headers,
    payload: {
      org_employment_id: employment.id,
      org_employment_file_type_id: 'payroll-statement',
      date_from: '2026-02-01',
      date_to: '2026-02-28',
    },
  });
  t.equal(res.statusCode, 200);
  const body = json(res);
  t.match(body, {
    success: true,
    message: String,
    errors: null,
    data: {
      org_employment_id: employment.id,
      org_employment_file_status_id: 'requested',
      file_id: null,
      ready_at: null,
      date_from: '2026-02-01',
      date_to: '2026-02-28',
      created_at: '2026-03-02T09:00:00.000Z',
    },
  });
  const id = body.data.id;
  const status = async () =>
    json(await app.inject({ url: `/org-employment-file/index?id=${id}`, headers: s.headers })).data[0];
  t.equal((await status()).org_employment_file_status_id, 'requested');
  t.equal(
    json(
      await app.inject({
        url: '/org-employment-file/index?org_employment_file_status_id=requested',
        headers: s.headers,
      }),
    ).data.length,
    1,
  );
  const clock = app.sandboxes.get('default').clock;
  clock.state = { mode: 'frozen', at: '2026-03-02T09:01:30.000Z' };
  t.match(await status(), { org_employment_file_status_id: 'in-progress', ready_at: null, file_id: null });
  clock.state = { mode: 'frozen', at: '2026-03-02T09:06:00.000Z' };
  t.match(await status(), {
    org_employment_file_status_id: 'ready',
    ready_at: '2026-03-02T09:05:00.000Z',
    file_id: String,
    fileUrl: /^http/,
  });

  const foreign = app.sandboxes
    .get('default')
    .store.tenant(tenants.romashka)!
    .employments.find((e) => e.userId !== accounts.admin.userId)!;
  expectError(
    t,
    await app.inject({
      method: 'POST',
      url: '/org-employment-file/request',
      headers: s.headers,
      payload: { org_employment_id: foreign.id, org_employment_file_type_id: 'payroll-statement' },
    }),
    404,
  );
  expectError(
    t,
    await app.inject({
      method: 'POST',
      url: '/org-employment-file/request',
      headers: s.headers,
      payload: { org_employment_id: 'x', org_employment_file_type_id: 'payroll-statement' },
    }),
    400,
  );
  expectError(
    t,
    await app.inject({
      method: 'POST',
      url: '/org-employment-file/request',
      headers: s.headers,
      payload: { org_employment_id: employment.id, org_employment_file_type_id: 'diploma' },
    }),
    400,
  );
  const backwards = json(
    await app.inject({
      method: 'POST',
      url: '/org-employment-file/request',
      headers: s.headers,
      payload: {
        org_employment_id: employment.id,
        org_employment_file_type_id: 'payroll-statement',
        date_from: '2026-02-28',
        date_to: '2026-02-01',
      },
    }),
  );
  t.match(backwards, { success: false, errors: [/date_from/], data: null });
});
