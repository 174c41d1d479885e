// End to end over a real socket: personal token, spreadsheet processing, posting, balances and exports.
import t from 'tap';
import ExcelJS from 'exceljs';
import type { FastifyInstance } from 'fastify';
import { accounts, build, signIn, tenants } from '../helper.js';
import type { FileRecord } from '../../src/schemas/records.js';
import { balanceFromTransactions } from '../../src/domain/wallets.js';
import { waitFor } from '../support/wait.js';

type Json = Record<string, any>;
const tenantOf = (app: FastifyInstance) => app.sandboxes.get('default').store.tenant(tenants.romashka)!;

async function xlsxBytes(rows: Array<Array<string | number>>): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Начисления');
  for (const r of rows) ws.addRow(r);
  return Buffer.from((await wb.xlsx.writeBuffer()) as ArrayBuffer);
}

function putFile(
  app: FastifyInstance,
  name: string,
  ext: string,
  bytes: Buffer,
  status: FileRecord['status'] = 'UPLOADED',
): FileRecord {
  const file: FileRecord = {
    id: crypto.randomUUID(),
    userId: accounts.admin.userId,
    name,
    ext,
    mimeType: ext === 'csv' ? 'text/csv' : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    fileType: 'document',
    size: bytes.length,
    isPublic: false,
    status,
    createdAt: '2026-03-02T08:00:00.000Z',
    uploadedAt: status === 'UPLOADED' ? '2026-03-02T08:00:00.000Z' : null,
    contentBase64: status === 'UPLOADED' ? bytes.toString('base64') : null,
  };
  app.sandboxes.get('default').store.insert(tenantOf(app), 'files', file);
  return file;
}

/** The processing's view once the background parse has finished. */
async function poll(call: (url: string) => Promise<Json>, id: string): Promise<Json> {
  let view: Json = {};
  if (await waitFor(async () => (view = await call(`/file-processing/view?id=${id}`)).finished)) return view;
  throw new Error('processing did not finish');
}

t.test(
  'over a real socket: token → Bearer → revoke → 401; spreadsheet → processing → transactions → export',
  async (t) => {
    const app = await build(t);
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const s = await signIn(app);
    const session = { ...s.headers, 'content-type': 'application/json' };

    const created = (await (
      await fetch(`${address}/api/v2/user-api-token/create`, {
        method: 'POST',
        headers: session,
        body: JSON.stringify({ name: 'integration' }),
      })
    ).json()) as Json;
    t.equal(created.success, true);
    const bearer = { authorization: `Bearer ${created.data.token}` };
    const withToken = async (url: string, init: RequestInit = {}) => {
      const res = await fetch(`${address}${url}`, {
        ...init,
        headers: { ...bearer, ...(init.body ? { 'content-type': 'application/json' } : {}) },
      });
      return { status: res.status, res };
    };
    const call = async (url: string, body?: unknown): Promise<Json> => {
      const { status, res } = await withToken(
        url,
        body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) },
      );
      t.equal(status, 200, url);
      return (await res.json()) as Json;
    };

    // the token works on the other operations: the user list cache, wallets, file processing
    const tenant = tenantOf(app);
    const [a, b, c] = tenant.users.filter((u) => u.state === 'active').slice(30, 33);
    const before = new Map(tenant.wallets.map((w) => [w.userId, w.balance]));
    const bytes = await xlsxBytes([
      ['E-mail', 'Сумма', 'Комментарий'],
      [a!.email, 100, 'За проект'],
      [b!.email.toUpperCase(), '25.5', ''],
      ['nobody@nowhere.test', 10, 'unknown user'],
      [c!.email, 'много', 'bad amount'],
      [c!.email, -5, 'negative'],
    ]);
    const file = putFile(app, 'bonus.xlsx', 'xlsx', bytes);
    const queued = await call('/admin/wallet-transaction/excel-processing', {
      file_id: file.id,
      mapping: { email: 'A', amount: 'B', comment: 3 },
    });
    t.equal(queued.success, true);
    t.match(queued.data, {
      file: { id: file.id, name: 'bonus.xlsx' },
      created: '2026-03-02T09:00:00.000Z',
      finished: null,
      arguments: { file_id: file.id, first_row: 2 },
    });
    const done = await poll(call, queued.data.id);
    t.equal(done.status, 'finished');
    t.equal(done.started, '2026-03-02T09:00:00.000Z');
    t.match(done.result, { error: null, total: 5, valid: 2, invalid: 3, totalAmount: 125.5 });
    t.match(done.result.rows[0], {
      row: 2,
      userId: a!.id,
      amount: 100,
      comment: 'За проект',
      valid: true,
      problems: [],
    });
    t.match(done.result.rows[1], { userId: b!.id, amount: 25.5, valid: true });
    t.match(done.result.rows[2].problems, [/user not found/]);
    t.match(done.result.rows[3].problems, [/amount/]);
    t.match(done.result.rows[4].problems, [/amount/]);
    const list = await call('/file-processing');
    t.ok(list.data.some((r: Json) => r.id === queued.data.id));

    const posted = await call('/admin/wallet-transaction/create-from-excel', {
      file_processing_id: queued.data.id,
      operation_type_id: 4,
      comment: 'Премия',
    });
    t.match(posted, { success: true, data: { count: 2, total_amount: 125.5 } });
    t.equal(tenant.wallets.find((w) => w.userId === a!.id)!.balance, before.get(a!.id)! + 100);
    t.equal(tenant.wallets.find((w) => w.userId === b!.id)!.balance, before.get(b!.id)! + 25.5);
    t.equal(tenant.wallets.find((w) => w.userId === c!.id)!.balance, before.get(c!.id)!, 'invalid rows are not posted');
    t.ok(
      tenant.wallets.every((w) => Math.abs(balanceFromTransactions(tenant, w.id) - w.balance) < 1e-9),
      'balances agree with transactions',
    );
    const again = await call('/admin/wallet-transaction/create-from-excel', {
      file_processing_id: queued.data.id,
      operation_type_id: 4,
    });
    t.match(again, { success: false, message: /already posted/ });
    const seen = await call(`/file-processing/view?id=${queued.data.id}`);
    t.equal(seen.result.transactionIds.length, 2);
    t.equal(seen.result.postedAt, '2026-03-02T09:00:00.000Z');

    const wallet = (await call(`/admin/wallet?user_id=${a!.id}`)).data[0];
    t.equal(wallet.balance, before.get(a!.id)! + 100);
    const exported = await withToken(
      `/admin/wallet-transaction/export-excel?created_at=2026-03-02|2026-03-02&operation_type_id=4`,
      { method: 'POST' },
    );
    t.equal(exported.status, 200);
    t.equal(
      exported.res.headers.get('content-type'),
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(await exported.res.arrayBuffer());
    const ws = wb.worksheets[0]!;
    const rows: Array<{ recipient: unknown; amount: unknown; comment: unknown }> = [];
    ws.eachRow((row, n) => {
      if (n > 1)
        rows.push({ recipient: row.getCell(8).value, amount: row.getCell(9).value, comment: row.getCell(10).value });
    });
    t.same(
      rows.sort((x, y) => Number(y.amount) - Number(x.amount)),
      [
        { recipient: a!.name, amount: 100, comment: 'За проект' },
        { recipient: b!.name, amount: 25.5, comment: 'Премия' },
      ],
    );
    const walletExport = await withToken(`/admin/wallet/export-excel?user_id=${a!.id}`, { method: 'POST' });
    const wb2 = new ExcelJS.Workbook();
    await wb2.xlsx.load(await walletExport.res.arrayBuffer());
    t.equal(wb2.worksheets[0]!.getRow(2).getCell(6).value, before.get(a!.id)! + 100);

    // token management refuses Bearer; revoke in the session; the token then answers 401
    t.equal((await withToken('/user-api-token')).status, 403);
    const revoked = (await (
      await fetch(`${address}/user-api-token/revoke`, {
        method: 'POST',
        headers: session,
        body: JSON.stringify({ id: created.data.record.id }),
      })
    ).json()) as Json;
    t.equal(revoked.success, true);
    t.equal((await withToken('/admin/wallet')).status, 401);
  },
);

t.test('excel-processing: form errors, csv, unreadable file; create-from-excel warnings', async (t) => {
  const app = await build(t);
  const s = await signIn(app);
  const post = async (url: string, payload: unknown) => {
    const res = await app.inject({ method: 'POST', url, headers: s.headers, payload: payload as Json });
    t.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 200)}`);
    return res.json() as Json;
  };
  const get = async (url: string) => (await app.inject({ url, headers: s.headers })).json() as Json;
  const tenant = tenantOf(app);

  const missing = await post('/admin/wallet-transaction/excel-processing', {});
  t.match(missing, { success: false });
  t.ok(['file_id', 'mapping.amount', 'mapping:'].every((p) => missing.errors.some((e: string) => e.startsWith(p))));
  const unknownFile = await post('/admin/wallet-transaction/excel-processing', {
    file_id: crypto.randomUUID(),
    mapping: { email: 'A', amount: 'B' },
  });
  t.match(unknownFile, { success: false, errors: [/no file/] });
  const prepared = putFile(app, 'x.xlsx', 'xlsx', Buffer.alloc(0), 'PREPARED');
  t.match(
    await post('/admin/wallet-transaction/excel-processing', {
      file_id: prepared.id,
      mapping: { email: 'A', amount: 'B' },
    }),
    { success: false, errors: [/not uploaded/] },
  );
  const pdf = putFile(app, 'x.pdf', 'pdf', Buffer.from('%PDF'));
  t.match(
    await post('/admin/wallet-transaction/excel-processing', { file_id: pdf.id, mapping: { email: 'A', amount: 'B' } }),
    { success: false, errors: [/\.xlsx and \.csv/] },
  );
  const okFile = putFile(app, 'a.csv', 'csv', Buffer.from('x'));
  t.match(
    await post('/admin/wallet-transaction/excel-processing', {
      file_id: okFile.id,
      mapping: { email: '?', amount: 'B' },
    }),
    { success: false, errors: [/mapping.email/] },
  );

  // CSV with ; and quotes, user ids, no header row
  const [a, b] = tenant.users.filter((u) => u.state === 'active').slice(40, 42);
  const blocked = tenant.users.find((u) => u.state === 'blocked')!;
  const csv = putFile(
    app,
    'debit.csv',
    'csv',
    Buffer.from(`\uFEFF${a!.id};"10,5";"said ""hi"""\r\n${b!.id};7;\r\n${blocked.id};3;x\r\n`),
  );
  const q = await post('/admin/wallet-transaction/excel-processing', {
    file_id: csv.id,
    mapping: { user_id: 1, amount: 2, comment: 3 },
    first_row: 1,
  });
  t.equal(q.success, true);
  const done = await poll(get, q.data.id);
  t.match(done.result, { total: 3, valid: 2, invalid: 1 });
  t.match(done.result.rows[0], { userId: a!.id, amount: 10.5, comment: 'said "hi"' });
  t.match(done.result.rows[2].problems, [/blocked/]);
  const noComment = await post('/admin/wallet-transaction/create-from-excel', {
    file_processing_id: q.data.id,
    operation_type_id: 2,
  });
  t.match(noComment, { success: false, errors: [/comment/] });
  const badType = await post('/admin/wallet-transaction/create-from-excel', {
    file_processing_id: q.data.id,
    operation_type_id: 42,
    comment: 'x',
  });
  t.match(badType, { success: false, errors: [/operation_type_id/] });
  const before = tenant.wallets.find((w) => w.userId === a!.id)!.balance;
  t.match(
    await post('/admin/wallet-transaction/create-from-excel', {
      file_processing_id: q.data.id,
      operation_type_id: 2,
      comment: 'debit',
    }),
    { success: true, data: { count: 2 } },
  );
  t.equal(tenant.wallets.find((w) => w.userId === a!.id)!.balance, Math.round((before - 10.5) * 100) / 100);

  // unknown processing id: 200, success false, a warning
  const unknown = await post('/admin/wallet-transaction/create-from-excel', {
    file_processing_id: crypto.randomUUID(),
    operation_type_id: 1,
  });
  t.match(unknown, { success: false, message: /^warning: file processing .* not found/ });

  // excel-processing asked about a processing id: its state, or a warning for an unknown one
  t.match(await post('/admin/wallet-transaction/excel-processing', { file_processing_id: q.data.id }), {
    success: true,
    data: { id: q.data.id, status: 'finished' },
  });
  t.match(await post('/admin/wallet-transaction/excel-processing', { file_processing_id: crypto.randomUUID() }), {
    success: false,
    message: /^warning: file processing .* not found/,
  });

  // an unreadable .xlsx finishes as failed
  const broken = putFile(app, 'broken.xlsx', 'xlsx', Buffer.from('not a zip'));
  const qb = await post('/admin/wallet-transaction/excel-processing', {
    file_id: broken.id,
    mapping: { email: 'A', amount: 'B' },
  });
  const failed = await poll(get, qb.data.id);
  t.equal(failed.status, 'failed');
  t.match(failed.result.error, /could not be read/);
  t.match(
    await post('/admin/wallet-transaction/create-from-excel', { file_processing_id: qb.data.id, operation_type_id: 1 }),
    { success: false, message: /could not be processed/ },
  );

  // polling: 400 malformed, 404 unknown; paging
  t.equal((await app.inject({ url: '/file-processing/view?id=x', headers: s.headers })).statusCode, 400);
  t.equal(
    (await app.inject({ url: `/file-processing/view?id=${crypto.randomUUID()}`, headers: s.headers })).statusCode,
    404,
  );
  const page = await get('/file-processing?per-page=500');
  t.equal(page._meta.perPage, 100);
  t.equal(page._meta.totalCount, 2);
  const other = await signIn(app, accounts.noRights);
  t.equal(
    ((await app.inject({ url: '/file-processing', headers: other.headers })).json() as Json)._meta.totalCount,
    0,
    'others see only their own',
  );
  t.equal((await app.inject({ url: `/file-processing/view?id=${q.data.id}`, headers: other.headers })).statusCode, 404);
});
