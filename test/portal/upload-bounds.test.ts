// Uploaded bytes live in memory, up to 10 MiB an upload: a sandbox keeps at most --sandbox-upload-mb of them. Over a
// real socket: an upload past the bound answers 413 naming the flag and what to do, changes nothing, and another
// sandbox still uploads; a reset frees the bytes.
import { PassThrough } from 'node:stream';
import t from 'tap';
import fc from 'fast-check';
import { bodyTurns, resumedPerTurn, socketChunk, turnBytes } from '../../src/http/body-turns.js';
import { drainBody } from '../../src/http/refused-body.js';
import { keptAsIs, readBytes } from '../../src/http/upload-body.js';
import { FileBytes } from '../../src/store/file-bytes.js';
import { accounts, build, signIn } from '../helper.js';
import { countTurns } from '../support/turns.js';

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

t.test('an upload is kept as the chunks it arrived in: none copied but the small ones, gathered', async (t) => {
  // the parser read into one Buffer, copying every chunk: most of an upload's event-loop stall (issue 54)
  const parse = readBytes(10 * 1024 * 1024);
  const big = [Buffer.alloc(keptAsIs, 1), Buffer.alloc(100_000, 2)];
  const tiny = Array.from({ length: 300 }, (_, i) => Buffer.from([i % 256]));
  const sent = [big[0]!, ...tiny, big[1]!];
  const total = sent.reduce((n, c) => n + c.length, 0);
  const body = new PassThrough();
  const parsed = new Promise<FileBytes>((resolve, reject) =>
    parse({ headers: { 'content-length': String(total) } }, body as never, (err, bytes) =>
      err ? reject(err) : resolve(bytes!),
    ),
  );
  for (const chunk of sent) body.write(chunk);
  body.end();
  const bytes = await parsed;
  const kept = bytes.chunks();
  t.equal(kept[0], big[0], 'a large chunk is the Buffer that arrived (no copy)');
  t.equal(kept.at(-1), big[1], 'so is the last one');
  t.equal(kept.length, 3, '300 one-byte chunks gathered into one piece');
  t.same(kept[1], Buffer.concat(tiny), 'in order');
  t.equal(bytes.size, total);
  t.same(bytes.bytes(), Buffer.concat(sent), 'the same bytes');
});

t.test('kept pieces write the base64 the whole bytes have, in pieces', async (t) => {
  fc.assert(
    fc.property(
      fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 12 }),
      fc.integer({ min: 1, max: 5 }),
      (parts, k) => {
        const chunks = parts.map((p) => Buffer.from(p));
        const bytes = FileBytes.ofChunks(chunks);
        const whole = Buffer.concat(chunks).toString('base64');
        const pieces = [...bytes.base64Pieces(3 * k)];
        return (
          pieces.join('') === whole &&
          bytes.toJSON() === whole &&
          JSON.stringify({ bytes }) === JSON.stringify({ bytes: whole })
        );
      },
    ),
  );
  t.pass('base64 of the pieces is the base64 of the whole');
});

t.test('file processing joins an upload kept in pieces a MiB a turn', async (t) => {
  const chunks = Array.from({ length: 48 }, (_, i) => Buffer.alloc(64 * 1024, i));
  const file = FileBytes.ofChunks(chunks);
  const turns = countTurns();
  const joined = await file.bytesInTurns();
  turns.stop();
  t.ok(joined.equals(Buffer.concat(chunks)), 'the same bytes');
  t.ok(turns.count >= 2, `the event loop turned ${turns.count} times while 3 MiB were joined`);
  t.equal(FileBytes.of(chunks[0]!).bytes(), chunks[0], 'one piece is not copied');
});

t.test('bodies arriving together are read about a MiB a turn, all of them, none starved', async (t) => {
  // 80 uploads at once were read a few hundred MB a turn: a health check waited 450 ms behind them (issue 54)
  const parse = readBytes(10 * 1024 * 1024);
  const count = resumedPerTurn * 3;
  const bodies = Array.from({ length: count }, (_, n) => {
    const sent = Array.from({ length: 8 }, (_, i) => Buffer.alloc(socketChunk, n * 8 + i));
    return { sent, stream: new PassThrough({ highWaterMark: 0 }) };
  });
  let read = 0;
  const perTurn: number[] = [];
  let turnStart = 0;
  const turns = countTurns(() => {
    perTurn.push(read - turnStart);
    turnStart = read;
    return true;
  });
  const parsed = bodies.map(({ sent, stream }) => {
    stream.on('data', (c: Buffer) => {
      read += c.length;
    });
    return new Promise<FileBytes>((resolve, reject) =>
      parse({ headers: { 'content-length': String(sent.length * socketChunk) } }, stream as never, (err, bytes) =>
        err ? reject(err) : resolve(bytes!),
      ),
    );
  });
  // everything is there before the first read, as when many sockets are ready at once
  for (const { sent, stream } of bodies) {
    for (const c of sent) stream.write(c);
    stream.end();
  }
  const kept = await Promise.all(parsed);
  turns.stop();
  perTurn.push(read - turnStart);
  // in the first turn every body is new and gives a chunk before it can stop; after it, only the resumed ones do
  const first = perTurn.findIndex((bytes) => bytes > 0);
  const most = Math.max(...perTurn.slice(first + 1));
  t.ok(most <= turnBytes + resumedPerTurn * socketChunk, `then at most ${most} bytes in a turn`);
  t.ok(turns.count >= 10, `${count * 8 * socketChunk} bytes took ${turns.count} turns`);
  const whole = bodies.filter(({ sent }, n) => kept[n]!.bytes().equals(Buffer.concat(sent)));
  t.equal(whole.length, count, 'every body arrived whole');
  t.equal(bodyTurns.waitingCount, 0, 'none left waiting');
});

t.test('a refused body is drained at most about a MiB a turn too', async (t) => {
  const raw = new PassThrough({ highWaterMark: 0 });
  for (let i = 0; i < 64; i++) raw.write(Buffer.alloc(64 * 1024, i));
  raw.end();
  const turns = countTurns();
  const ended = await drainBody(raw as never, { bytes: 8 * 1024 * 1024, ms: 60_000 });
  turns.stop();
  t.ok(ended, 'read to its end');
  t.ok(turns.count >= 3, `4 MiB took ${turns.count} turns`);
});

/** readBytes over a PassThrough holding `chunks` (ended): the parsed bytes, and the stream (`watch` sees it first). */
function parsedFrom(chunks: Buffer[], watch: (stream: PassThrough) => void = () => {}, limit = 10 * 1024 * 1024) {
  const stream = new PassThrough({ highWaterMark: 0 });
  watch(stream);
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const bytes = new Promise<FileBytes>((resolve, reject) =>
    readBytes(limit)({ headers: { 'content-length': String(total) } }, stream as never, (err, b) =>
      err ? reject(err) : resolve(b!),
    ),
  );
  for (const c of chunks) stream.write(c);
  stream.end();
  return { bytes, stream };
}

t.test('a body alone reads a whole MiB a turn, not a chunk', async (t) => {
  const chunks = Array.from({ length: (2 * turnBytes) / socketChunk }, (_, i) => Buffer.alloc(socketChunk, i));
  let waits = 0;
  const { bytes } = parsedFrom(chunks, (stream) => stream.on('pause', () => waits++));
  t.ok((await bytes).bytes().equals(Buffer.concat(chunks)), 'whole');
  // once a MiB (and perhaps once more for what an earlier test's turn had read): not once a chunk (31)
  t.ok(waits >= 1 && waits <= 3, `2 MiB waited for a later turn ${waits} times`);
});

t.test('bodies that stopped with nothing left but their end all end, past the ones resumed in a turn', async (t) => {
  // each gives its one chunk in the first turn; past the budget each stops with only its end left, and a resumed one
  // that only ends reads nothing: the turn must still end for the rest to go on
  const count = 2 * resumedPerTurn + (turnBytes / socketChunk) * 2;
  const parsed = Array.from({ length: count }, (_, n) => parsedFrom([Buffer.alloc(socketChunk, n)]).bytes);
  const turns = countTurns();
  let settled = false;
  const ended = await Promise.race([
    Promise.all(parsed).then(() => {
      settled = true;
      return true;
    }),
    new Promise<false>((resolve) => {
      const check = () => {
        if (turns.count > 100) resolve(false);
        else if (!settled) setImmediate(check);
      };
      check();
    }),
  ]);
  turns.stop();
  t.ok(ended, `all ${count} ended`);
  t.equal(bodyTurns.waitingCount, 0);
});

t.test('a waiting body that fails is forgotten at once, not resumed', async (t) => {
  // the turn's budget spent by one body, then another gives a chunk and waits
  const first = parsedFrom(Array.from({ length: turnBytes / socketChunk + 1 }, () => Buffer.alloc(socketChunk)));
  const second = parsedFrom([Buffer.alloc(socketChunk), Buffer.alloc(socketChunk)]);
  await new Promise((resolve) => second.stream.once('data', () => process.nextTick(resolve)));
  const waitingBefore = bodyTurns.waitingCount;
  t.ok(waitingBefore >= 1, `${waitingBefore} waiting`);
  second.stream.destroy(new Error('the client went away'));
  await t.rejects(second.bytes, /went away/);
  t.equal(bodyTurns.waitingCount, waitingBefore - 1, 'the failed body left the waiting ones');
  await first.bytes;
});

t.test('waiting bodies all go on in later turns, even when the ones resumed read nothing yet', async (t) => {
  /** true once `done()` holds, false when 100 turns passed first */
  const within100Turns = (done: () => boolean) =>
    new Promise<boolean>((resolve) => {
      let turns = 0;
      const check = () => (done() ? resolve(true) : ++turns > 100 ? resolve(false) : setImmediate(check));
      check();
    });
  // the first chunk of each arrives now, the second later: past the budget the rest wait, and a resumed one has
  // nothing to read (a client still sending), so only the end of the turn lets the others go on
  const count = turnBytes / socketChunk + 2 * resumedPerTurn;
  const bodies = Array.from({ length: count }, () => {
    const stream = new PassThrough({ highWaterMark: 0 });
    const bytes = new Promise<FileBytes>((resolve, reject) =>
      readBytes(1024 * 1024)({ headers: { 'content-length': String(2 * socketChunk) } }, stream as never, (err, b) =>
        err ? reject(err) : resolve(b!),
      ),
    );
    stream.write(Buffer.alloc(socketChunk, 1));
    return { stream, bytes };
  });
  t.ok(bodyTurns.waitingCount > resumedPerTurn, `${bodyTurns.waitingCount} wait`);
  t.ok(await within100Turns(() => bodyTurns.waitingCount === 0), 'every waiting body resumed');
  for (const { stream } of bodies) stream.end(Buffer.alloc(socketChunk, 2));
  let all = false;
  void Promise.all(bodies.map((b) => b.bytes)).then(() => {
    all = true;
  });
  t.ok(await within100Turns(() => all), `all ${count} read to their end`);
});
