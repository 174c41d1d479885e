// The whole server's memory bound (--max-heap-percent): past that share of the heap's limit, the calls that would
// make the server hold much more are refused, and everything that exists still answers. A share of 1% is below
// any running app's heap, so the bound is crossed from the start here.
import t from 'tap';
import { accounts, build, signIn } from '../helper.js';

t.test('past --max-heap-percent: no new sandbox, no records, no upload; reads still answer', async (t) => {
  const app = await build(t, { maxHeapPercent: 1 });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const s = await signIn(app, accounts.admin); // the default sandbox exists from the start

  const made = await fetch(`${base}/__admin/sandboxes/new-one`, { method: 'PUT' });
  const madeBody = (await made.json()) as { code: string; message: string };
  t.equal(made.status, 429, 'a new sandbox: 429');
  t.match(madeBody.message, /--max-heap-percent/, 'naming the flag');
  t.match(madeBody.message, /delete or reset sandboxes/, 'and what to do');
  t.notOk(app.sandboxes.find('new-one'), 'no sandbox was made');

  const tenant = accounts.admin.tenantId;
  const records = await fetch(`${base}/__admin/data/${tenant}/notifications`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'x' }),
  });
  t.equal(records.status, 422, 'records: 422');
  t.match(((await records.json()) as { message: string }).message, /--max-heap-percent/);

  const prep = await fetch(`${base}/file/prepare-upload`, {
    method: 'POST',
    headers: { ...s.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'a.bin', is_public: false }),
  });
  const url = new URL(((await prep.json()) as { uploadUrl: string }).uploadUrl);
  const put = await fetch(`${base}${url.pathname}${url.search}`, { method: 'PUT', body: Buffer.alloc(10) });
  t.equal(put.status, 413, 'an upload: 413');

  const read = await fetch(`${base}/mobile/tenant-info`, { headers: s.headers });
  t.equal(read.status, 200, 'the existing sandbox still answers');
  t.equal((await fetch(`${base}/__admin/health`)).status, 200, 'and so does health');
});

t.test('at the default, the same calls are taken', async (t) => {
  const app = await build(t);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  t.equal((await fetch(`${base}/__admin/sandboxes/new-one`, { method: 'PUT' })).status, 201);
});
