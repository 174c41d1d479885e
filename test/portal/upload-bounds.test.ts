// Uploaded bytes live in memory, up to 10 MiB an upload: a sandbox keeps at most --sandbox-upload-mb of them. Over a
// real socket: an upload past the bound answers 413 naming the flag and what to do, changes nothing, and another
// sandbox still uploads; a reset frees the bytes.
import t from 'tap';
import { accounts, build, signIn } from '../helper.js';

t.test('a sandbox holds at most --sandbox-upload-mb of uploaded bytes', async (t) => {
  const app = await build(t, { sandboxUploadMb: 1 });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const chunk = Buffer.alloc(400 * 1024, 7);

  /** prepare-upload then the PUT of `chunk` in `sandbox`: the PUT's status and body */
  async function upload(sandbox: string, name: string) {
    const s = await signIn(app, accounts.admin, { sandbox });
    const prep = await fetch(`${base}/file/prepare-upload`, {
      method: 'POST',
      headers: { ...s.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name, is_public: false }),
    });
    const { uploadUrl, id } = (await prep.json()) as { uploadUrl: string; id: string };
    const url = new URL(uploadUrl);
    const put = await fetch(`${base}${url.pathname}${url.search}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream', 'x-mock-sandbox': sandbox },
      body: chunk,
    });
    return { id, status: put.status, body: (await put.json()) as { code?: string; message?: string } };
  }
  const held = (sandbox: string) =>
    app.sandboxes
      .get(sandbox)
      .store.tenants()
      .flatMap((tenant) => tenant.files)
      .filter((f) => f.contentBase64 !== null && f.name.startsWith('big-')).length;

  t.equal((await upload('abuser', 'big-1.bin')).status, 200, 'the first 400 KiB');
  t.equal((await upload('abuser', 'big-2.bin')).status, 200, 'the second: 800 KiB held');
  const refused = await upload('abuser', 'big-3.bin');
  t.equal(refused.status, 413, 'the third would pass 1 MiB: 413');
  t.equal(refused.body.code, 'PAYLOAD_TOO_LARGE');
  t.match(refused.body.message, /--sandbox-upload-mb/, 'the message names the flag');
  t.match(refused.body.message, /reset or delete the sandbox/, 'and what to do');
  t.equal(held('abuser'), 2, 'the refused bytes were not kept');

  t.equal((await upload('probe', 'big-1.bin')).status, 200, 'another sandbox still uploads');

  const reset = await fetch(`${base}/__admin/reset?sandbox=abuser`, { method: 'POST' });
  t.equal(reset.status, 200);
  t.equal(held('abuser'), 0, 'a reset frees the bytes');
  t.equal((await upload('abuser', 'big-4.bin')).status, 200, 'and uploads are taken again');
});
