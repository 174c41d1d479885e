import t from 'tap';
import { accounts, build, expectError, json, signIn, tenants, sharedApp } from '../helper.js';

// one app for the file's tests, each in a sandbox of its own
const ownSandbox = sharedApp(t);

const uuidZero = '00000000-0000-4000-8000-000000000000';
type Item = {
  id: string;
  name: string;
  ext: string;
  file_type: string;
  mime_type: string;
  size: number;
  created_at: string;
  url: string;
  status: string;
};

t.test("index: the caller's uploaded files, filters, sort, paging", async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const res = await inject({ url: '/file/index', headers: s.headers });
  t.equal(res.statusCode, 200);
  const list = json(res);
  t.equal(list._meta.totalCount, 3, 'three uploaded; the prepared draft is not listed');
  t.match(list._meta, { perPage: 20, currentPage: 1 });
  t.same(
    list.data.map((f: Item) => f.name),
    ['заметки.txt', 'отчёт-за-квартал.csv', 'логотип.svg'],
    'newest first by default',
  );
  t.match(list.data[2], {
    ext: 'svg',
    file_type: 'image',
    mime_type: 'image/svg+xml',
    status: 'UPLOADED',
    url: /^http:\/\/localhost:80\/files\/.+\/download\?tenant=/,
  });
  const tenant = app.sandboxes.get(sandbox).store.tenant(tenants.romashka)!;
  t.ok(list.data.every((f: Item) => tenant.files.find((r) => r.id === f.id)?.userId === accounts.admin.userId));

  const images = json(await inject({ url: '/file/index?file_type=image', headers: s.headers }));
  t.same(
    images.data.map((f: Item) => f.ext),
    ['svg'],
  );
  t.same(
    json(await inject({ url: '/file/index?search=ОТЧЁТ', headers: s.headers })).data.map((f: Item) => f.ext),
    ['csv'],
  );
  t.same(
    json(await inject({ url: '/file/index?sort=name', headers: s.headers })).data.map((f: Item) => f.ext),
    ['txt', 'svg', 'csv'],
  );
  t.same(
    json(await inject({ url: '/file/index?sort=-ext', headers: s.headers })).data.map((f: Item) => f.ext),
    ['txt', 'svg', 'csv'],
  );
  t.same(
    json(await inject({ url: `/file/index?sort=${encodeURIComponent('+created_at')}`, headers: s.headers })).data.map(
      (f: Item) => f.ext,
    ),
    ['svg', 'csv', 'txt'],
  );
  t.same(
    json(await inject({ url: '/file/index?sort=mime_type', headers: s.headers })).data.map((f: Item) => f.ext),
    ['svg', 'csv', 'txt'],
  );
  const p2 = json(await inject({ url: '/file/index?per-page=2&page=2', headers: s.headers }));
  t.match(p2, { _meta: { totalCount: 3, pageCount: 2, currentPage: 2 }, data: [{ ext: 'svg' }] });

  expectError(t, await inject({ url: '/file/index?sort=size', headers: s.headers }), 400);
  expectError(t, await inject({ url: '/file/index?file_type=music', headers: s.headers }), 400);
  expectError(t, await inject({ url: '/file/index' }), 401);
});

t.test('count agrees with the index under the same search', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  t.same(json(await inject({ url: '/file/count', headers: s.headers })), {
    image: 1,
    video: 0,
    document: 2,
    archive: 0,
    other: 0,
    encrypted: 0,
  });
  for (const search of ['', 'отчёт', 'svg', 'nothing-like-this']) {
    const count = json(await inject({ url: `/file/count?search=${encodeURIComponent(search)}`, headers: s.headers }));
    const list = json(
      await inject({ url: `/file/index?per-page=100&search=${encodeURIComponent(search)}`, headers: s.headers }),
    );
    const total = Object.values(count as Record<string, number>).reduce((a, b) => a + b, 0);
    t.equal(total, list._meta.totalCount, `search "${search}"`);
  }
  expectError(t, await inject({ url: '/file/count' }), 401);
});

t.test('prepare → PUT → finish → listed, counted, downloadable', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const prep = await inject({
    method: 'POST',
    url: '/file/prepare-upload',
    headers: s.headers,
    payload: { name: 'photo.PNG', size: 10, is_public: false },
  });
  t.equal(prep.statusCode, 200);
  const p = json(prep);
  t.match(p, {
    id: /^[0-9a-f-]{36}$/,
    method: 'PUT',
    status: 'PREPARED',
    expiresAt: '2026-03-02T09:15:00.000Z',
    maxSize: 10 * 1024 * 1024,
  });
  const upload = new URL(p.uploadUrl);
  t.equal(upload.pathname, `/files/${p.id}/upload`);
  t.equal(
    json(await inject({ url: '/file/index', headers: s.headers }))._meta.totalCount,
    3,
    'not listed before finish',
  );
  expectError(t, await inject({ method: 'POST', url: `/file/finish-upload?id=${p.id}`, headers: s.headers }), 409);

  const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 255]);
  const put = await inject({
    method: 'PUT',
    url: upload.pathname + upload.search,
    headers: { 'content-type': 'application/octet-stream' },
    payload: bytes,
  });
  t.match(json(put), { success: true, id: p.id, size: 12 });
  const fin = await inject({ method: 'POST', url: `/file/finish-upload?id=${p.id}`, headers: s.headers });
  t.equal(fin.statusCode, 200);
  t.match(json(fin), {
    id: p.id,
    name: 'photo.PNG',
    ext: 'png',
    mime_type: 'image/png',
    file_type: 'image',
    size: 12,
    status: 'UPLOADED',
    uploaded_at: '2026-03-02T09:00:00.000Z',
  });
  t.equal(
    json(await inject({ method: 'POST', url: `/file/finish-upload?id=${p.id}`, headers: s.headers })).id,
    p.id,
    'finish again is harmless',
  );
  const list = json(await inject({ url: '/file/index?file_type=image', headers: s.headers }));
  t.ok(list.data.some((f: Item) => f.id === p.id && f.size === 12));
  t.equal(json(await inject({ url: '/file/count', headers: s.headers })).image, 2);

  const url = new URL(json(fin).url);
  const down = await inject({ url: url.pathname + url.search });
  t.equal(down.statusCode, 200);
  t.equal(down.headers['content-type'], 'image/png');
  t.same(down.rawPayload, bytes);
  expectError(t, await inject({ method: 'PUT', url: upload.pathname + upload.search, payload: 'again' }), 409);
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/file/prepare-upload',
      headers: s.headers,
      payload: { id: p.id, name: 'x.png', is_public: true },
    }),
    409,
  );
});

t.test('prepare is idempotent with the same id; other rules', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const petr = await signIn(app, accounts.noRights, { sandbox });
  const id = '11111111-2222-4333-8444-555555555555';
  const a = json(
    await inject({
      method: 'POST',
      url: '/file/prepare-upload',
      headers: s.headers,
      payload: { id, name: 'a.txt', is_public: true },
    }),
  );
  app.sandboxes.get(sandbox).clock.state = { mode: 'frozen', at: '2026-03-02T09:05:00.000Z' };
  const b = json(
    await inject({
      method: 'POST',
      url: '/file/prepare-upload',
      headers: s.headers,
      payload: { id, name: 'a.txt', is_public: true },
    }),
  );
  t.equal(a.id, id);
  t.equal(b.id, id);
  t.not(a.uploadUrl, b.uploadUrl, 'a fresh address');
  t.equal(
    app.sandboxes
      .get(sandbox)
      .store.tenant(tenants.romashka)!
      .files.filter((f) => f.id === id).length,
    1,
    'one record',
  );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/file/prepare-upload',
      headers: petr.headers,
      payload: { id, name: 'a.txt', is_public: true },
    }),
    403,
  );
  expectError(
    t,
    await inject({ method: 'POST', url: '/file/prepare-upload', headers: s.headers, payload: { name: 'a.txt' } }),
    400,
  );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/file/prepare-upload',
      headers: s.headers,
      payload: { name: 'a.txt', is_public: true, size: 11 * 1024 * 1024 },
    }),
    400,
  );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/file/prepare-upload',
      headers: s.headers,
      payload: { id: 'bad', name: 'a.txt', is_public: true },
    }),
    400,
  );
  expectError(
    t,
    await inject({ method: 'POST', url: '/file/prepare-upload', payload: { name: 'a.txt', is_public: true } }),
    401,
  );
  expectError(t, await inject({ method: 'POST', url: `/file/finish-upload?id=${uuidZero}`, headers: s.headers }), 404);
  expectError(t, await inject({ method: 'POST', url: `/file/finish-upload?id=${id}`, headers: petr.headers }), 404); // another user's file
  expectError(t, await inject({ method: 'POST', url: '/file/finish-upload?id=x', headers: s.headers }), 400);
});

t.test('signatures: forged, expired, other file; size limit', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const p = json(
    await inject({
      method: 'POST',
      url: '/file/prepare-upload',
      headers: s.headers,
      payload: { name: 'big.bin', is_public: false },
    }),
  );
  const u = new URL(p.uploadUrl);
  const forged = new URL(u);
  forged.searchParams.set('signature', 'a'.repeat(64));
  expectError(t, await inject({ method: 'PUT', url: forged.pathname + forged.search, payload: 'x' }), 403);
  const later = new URL(u);
  later.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600));
  expectError(t, await inject({ method: 'PUT', url: later.pathname + later.search, payload: 'x' }), 403);
  const other = json(await inject({ url: '/file/index', headers: s.headers })).data[0] as Item;
  expectError(t, await inject({ method: 'PUT', url: `/files/${other.id}/upload${u.search}`, payload: 'x' }), 403);
  const dl = new URL(other.url);
  expectError(t, await inject({ method: 'PUT', url: `/files/${other.id}/upload${dl.search}`, payload: 'x' }), 403); // a download signature does not upload
  expectError(t, await inject({ url: `/files/${p.id}/download${u.search}` }), 403); // an upload signature does not download
  expectError(t, await inject({ url: `/files/${other.id}/download` }), 400);

  const big = Buffer.alloc(10 * 1024 * 1024 + 1, 1);
  expectError(
    t,
    await inject({
      method: 'PUT',
      url: u.pathname + u.search,
      headers: { 'content-type': 'application/octet-stream' },
      payload: big,
    }),
    413,
  );
  const json1 = await inject({
    method: 'PUT',
    url: u.pathname + u.search,
    headers: { 'content-type': 'application/json' },
    payload: '{"not":"parsed"}',
  });
  t.match(json(json1), { success: true, size: 16 }, 'JSON bytes are stored as they are');
  const fin = json(await inject({ method: 'POST', url: `/file/finish-upload?id=${p.id}`, headers: s.headers }));
  t.match(fin, { mime_type: 'application/json', file_type: 'document' }, 'no extension match: the content type sent');

  app.sandboxes.get(sandbox).clock.state = { mode: 'frozen', at: '2026-03-02T10:00:01.000Z' };
  const expired = expectError(t, await inject({ url: dl.pathname + dl.search }), 403);
  t.match(expired.message, /expired/);
});

t.test('end to end over a socket: upload and download byte for byte', async (t) => {
  const app = await build(t);
  const s = await signIn(app, accounts.nwAdmin);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const base = typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : '';
  const prep = await fetch(`${base}/api/v2/file/prepare-upload`, {
    method: 'POST',
    headers: { ...s.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'archive.zip', is_public: false }),
  });
  const p = (await prep.json()) as { id: string; uploadUrl: string };
  t.ok(p.uploadUrl.startsWith(base), 'the signed address points at this server');
  const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 31) % 256));
  const put = await fetch(p.uploadUrl, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: bytes });
  t.equal(put.status, 200);
  const fin = await fetch(`${base}/file/finish-upload?id=${p.id}`, { method: 'POST', headers: s.headers });
  const file = (await fin.json()) as Item;
  t.match(file, { file_type: 'archive', mime_type: 'application/zip', size: 70_000 });
  const down = await fetch(file.url);
  t.equal(down.status, 200);
  t.equal(down.headers.get('content-type'), 'application/zip');
  // kept as the pieces it arrived in, and sent as them: the length is still said
  t.equal(down.headers.get('content-length'), '70000');
  t.ok(Buffer.from(await down.arrayBuffer()).equals(bytes), 'same bytes');
  const forged = new URL(file.url);
  forged.searchParams.set(
    'signature',
    forged.searchParams.get('signature')!.replace(/^./, (c) => (c === '0' ? '1' : '0')),
  );
  const refused = await fetch(forged);
  t.equal(refused.status, 403);
  t.match(await refused.json(), { statusCode: 403, code: 'FORBIDDEN' });
});

t.test('signed addresses keep the sandbox prefix; an expired upload address is refused', async (t) => {
  const app = await build(t);
  const s = await signIn(app, accounts.admin, { sandbox: 'qa-files' });
  const p = json(
    await app.inject({
      method: 'POST',
      url: '/sandbox/qa-files/file/prepare-upload',
      headers: s.headers,
      payload: { name: 'n.txt', is_public: false },
    }),
  );
  const u = new URL(p.uploadUrl);
  t.equal(u.pathname, `/sandbox/qa-files/files/${p.id}/upload`);
  t.equal(
    json(await app.inject({ method: 'PUT', url: u.pathname + u.search, payload: 'hello' })).size,
    5,
    'no header needed',
  );
  expectError(t, await app.inject({ method: 'PUT', url: `/files/${p.id}/upload${u.search}`, payload: 'x' }), 404); // the default sandbox has no such file
  const fin = json(
    await app.inject({ method: 'POST', url: `/sandbox/qa-files/file/finish-upload?id=${p.id}`, headers: s.headers }),
  );
  t.match(fin, { mime_type: 'text/plain', file_type: 'document', size: 5 });
  const d = new URL(fin.url);
  t.equal((await app.inject({ url: d.pathname + d.search })).body, 'hello');

  const q = json(
    await app.inject({
      method: 'POST',
      url: '/file/prepare-upload',
      headers: s.headers,
      payload: { name: 'late.txt', is_public: false },
    }),
  );
  app.sandboxes.get('qa-files').clock.state = { mode: 'frozen', at: '2026-03-02T09:15:00.000Z' };
  const late = new URL(q.uploadUrl);
  const e = expectError(
    t,
    await app.inject({
      method: 'PUT',
      url: late.pathname + late.search,
      headers: { 'x-mock-sandbox': 'qa-files' },
      payload: 'x',
    }),
    403,
  );
  t.match(e.message, /expired/);
});
