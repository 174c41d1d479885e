// The whole process's memory budget (--max-memory-mb): past it, what would grow the server is refused with an answer
// naming the flag, a refused write changes nothing, and every existing sandbox still answers. The app reads a
// process that holds `base` plus the uploaded bytes its sandboxes keep (as the real RSS would), so the budget is
// crossed by real uploads over a real socket without allocating it.
import t from 'tap';
import { MemoryBudget, type MemoryReading } from '../../src/http/memory-budget.js';
import { uploadedBytes } from '../../src/domain/files.js';
import { accounts, build, signIn } from '../helper.js';

const MiB = 1024 * 1024;

t.test('the budget counts what was kept since its reading and the bodies arriving', async (t) => {
  let reading: MemoryReading = { rss: 50 * MiB, heapUsed: 10 * MiB, external: 5 * MiB };
  let now = 0;
  let reads = 0;
  const budget = new MemoryBudget({
    limitBytes: 64 * MiB,
    heapPercent: 100,
    read: () => {
      reads++;
      return reading;
    },
    readingMs: 100,
    now: () => now,
  });
  t.equal(budget.held(), 50 * MiB, 'RSS when it is the larger');
  t.equal(budget.pastLimit(14 * MiB), null, 'up to the budget: taken');
  t.match(budget.pastLimit(15 * MiB), /past its budget of 64 MB \(--max-memory-mb\)/, 'past it: the sentence');
  budget.kept(10 * MiB);
  t.equal(budget.held(), 60 * MiB, 'what was kept counts before the next reading shows it');
  const release = budget.reserve(8 * MiB);
  t.equal(budget.held(), 68 * MiB, 'a body arriving counts');
  t.match(budget.pastLimit(), /the server holds 68 MB/);
  release();
  release();
  t.equal(budget.held(), 60 * MiB, 'given back once');
  t.equal(reads, 1, 'one reading within its interval');
  now = 100;
  reading = { rss: 20 * MiB, heapUsed: 10 * MiB, external: 40 * MiB };
  t.equal(budget.held(), 50 * MiB, 'a new reading: the heap and outside it, when more than RSS; kept bytes are in it');
  t.equal(reads, 2);
  const none = new MemoryBudget({ limitBytes: 0, heapPercent: 100, read: () => reading });
  t.equal(none.pastLimit(10 ** 12), null, '0: no budget');
});

t.test('past --max-memory-mb: uploads, new sandboxes and records refused; what exists still answers', async (t) => {
  let elsewhere = 0; // what the rest of the process holds beyond the base, as a test moves it
  const app = await build(t, {
    maxMemoryMb: 100,
    memoryReading: {
      read: () => {
        const files = app.sandboxes.list().reduce((sum, s) => sum + uploadedBytes(s), 0);
        return { rss: 88 * MiB + files + elsewhere, heapUsed: 0, external: 0 };
      },
      readingMs: 0,
    },
  });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const s = await signIn(app, accounts.admin, { sandbox: 'abuser' });
  const chunk = Buffer.alloc(3 * MiB, 7);

  async function prepare(name: string) {
    const prep = await fetch(`${base}/file/prepare-upload`, {
      method: 'POST',
      headers: { ...s.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name, is_public: false }),
    });
    return (await prep.json()) as { uploadUrl: string; id: string };
  }
  async function upload(name: string, prepared?: { uploadUrl: string; id: string }) {
    const { uploadUrl, id } = prepared ?? (await prepare(name));
    const url = new URL(uploadUrl);
    const put = await fetch(`${base}${url.pathname}${url.search}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream', 'x-mock-sandbox': 'abuser' },
      body: chunk,
    });
    return { id, status: put.status, body: (await put.json()) as { code?: string; message?: string } };
  }

  // the seeded files' bytes count too (a few KB): 88 MiB and 3 × 3 MiB fit under 100 MB, a fourth does not
  for (const n of [1, 2, 3]) t.equal((await upload(`big-${n}.bin`)).status, 200, `upload ${n}: taken`);
  const abuser = app.sandboxes.get('abuser');
  const fourth = await prepare('big-4.bin');
  const filesOf = () => JSON.stringify(abuser.store.tenant(accounts.admin.tenantId)?.files);
  const [before, version] = [filesOf(), abuser.store.version];
  const refused = await upload('big-4.bin', fourth);
  t.equal(refused.status, 413, 'the upload past the budget: 413');
  t.equal(refused.body.code, 'PAYLOAD_TOO_LARGE');
  t.match(refused.body.message, /--max-memory-mb/, 'naming the flag');
  t.match(refused.body.message, /delete or reset sandboxes/, 'and what to free');
  const file = abuser.store.tenant(accounts.admin.tenantId)?.files.find((f) => f.id === refused.id);
  t.equal(file?.contentBase64, null, 'the refused bytes were not kept');
  t.equal(filesOf(), before, 'the refused PUT changed nothing');
  t.equal(abuser.store.version, version, 'not even the data version');

  elsewhere = 20 * MiB; // the process now holds more than its budget
  const made = await fetch(`${base}/__admin/sandboxes/new-one`, { method: 'PUT' });
  const madeBody = (await made.json()) as { message: string };
  t.equal(made.status, 429, 'a new sandbox: 429');
  t.match(madeBody.message, /--max-memory-mb/);
  t.notOk(app.sandboxes.find('new-one'), 'no sandbox was made');

  const tenant = accounts.admin.tenantId;
  const count = abuser.store.tenant(tenant)?.notifications.length;
  const records = await fetch(`${base}/__admin/data/${tenant}/notifications?sandbox=abuser`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'x' }),
  });
  t.equal(records.status, 422, 'records: 422');
  t.match(((await records.json()) as { message: string }).message, /--max-memory-mb/);
  t.equal(abuser.store.tenant(tenant)?.notifications.length, count, 'no record was made');

  const read = await fetch(`${base}/file/index`, { headers: s.headers });
  t.equal(read.status, 200, 'the existing sandbox still answers its reads');
  t.equal(
    ((await read.json()) as { data: unknown[] }).data.length,
    3,
    'its seeded files (the PUTs were never finished)',
  );
  const write = await fetch(`${base}/file/prepare-upload`, {
    method: 'POST',
    headers: { ...s.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'small.txt', is_public: false }),
  });
  t.equal(write.status, 200, 'and its small writes');
  t.equal((await fetch(`${base}/__admin/health`)).status, 200, 'health answers');

  elsewhere = 0;
  await fetch(`${base}/__admin/reset?sandbox=abuser`, { method: 'POST' });
  t.equal((await fetch(`${base}/__admin/sandboxes/new-one`, { method: 'PUT' })).status, 201, 'room again: taken');
});
