// A kept answer (src/http/answer-cache.ts) is compressed once per Accept-Encoding value and its bytes handed out
// again: over a real socket, the bytes and headers must be what @fastify/compress sends for the same text, for each
// encoding it negotiates, and a write must replace them.
import t from 'tap';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync, inflateSync } from 'node:zlib';
import { build, signIn } from '../helper.js';

type Raw = { status: number; headers: Record<string, string | string[] | undefined>; bytes: Buffer };

/** One request with the answer's bytes as they crossed the wire (fetch would unpack them). */
function raw(base: string, path: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  return new Promise((done, fail) => {
    const req = request(`${base}${path}`, { method: body === undefined ? 'GET' : 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
    });
    req.on('error', fail);
    if (body !== undefined) req.setHeader('content-type', 'application/json');
    req.end(body);
  });
}

const wire = (r: Raw) => ({
  status: r.status,
  encoding: r.headers['content-encoding'],
  vary: r.headers.vary,
  length: r.headers['content-length'],
  type: r.headers['content-type'],
});

const dashboard = '/dashboard?widgets=myTeam,updNews,updBirthday,myAchievements&info=profileBrief';

t.test('a kept answer goes out as compress makes it, for every encoding, and a write replaces it', async (t) => {
  const app = await build(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const s = await signIn(app);

  const plain = await raw(base, dashboard, s.headers);
  t.equal(plain.status, 200);
  t.notOk(plain.headers['content-encoding'], 'no Accept-Encoding: the JSON as it is');

  const unpack = { gzip: gunzipSync, deflate: inflateSync } as const;
  for (const [accept, encoding] of [
    ['gzip', 'gzip'],
    ['gzip, deflate, br', 'gzip'],
    ['deflate', 'deflate'],
    ['br;q=1.0, deflate;q=0.9, gzip;q=0.5', 'deflate'],
  ] as const) {
    // the first is compressed by @fastify/compress, the next ones are its kept bytes
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await raw(base, dashboard, { ...s.headers, 'accept-encoding': accept }));
    const [first, ...again] = answers as [Raw, ...Raw[]];
    t.equal(first.headers['content-encoding'], encoding, `${accept}: ${encoding}`);
    t.equal(Number(first.headers['content-length']), first.bytes.length, `${accept}: its content-length`);
    t.match(first.headers.vary, /accept-encoding/);
    t.equal(unpack[encoding](first.bytes).toString('utf8'), plain.bytes.toString('utf8'), `${accept}: the same JSON`);
    for (const next of again) {
      t.same(wire(next), wire(first), `${accept}: the same headers again`);
      t.ok(next.bytes.equals(first.bytes), `${accept}: the same bytes again`);
    }
  }
  const refused = await raw(base, dashboard, { ...s.headers, 'accept-encoding': 'gzip;q=0, identity' });
  t.notOk(refused.headers['content-encoding'], 'gzip;q=0 refuses it');
  t.ok(refused.bytes.equals(plain.bytes));

  // a write through the API changes the dashboard (the caller's profile brief): the kept bytes must not outlive it
  const before = gunzipSync((await raw(base, dashboard, { ...s.headers, 'accept-encoding': 'gzip' })).bytes);
  const text = `on holiday ${Date.now()}`;
  const write = await raw(base, '/account/status-text', s.headers, JSON.stringify({ activeTypes: text }));
  t.equal(write.status, 200, write.bytes.toString('utf8'));
  const after = await raw(base, dashboard, { ...s.headers, 'accept-encoding': 'gzip' });
  const unpacked = gunzipSync(after.bytes).toString('utf8');
  t.not(unpacked, before.toString('utf8'), 'the gzipped answer changed with the write');
  t.equal((JSON.parse(unpacked) as { profileBrief: { statusText: string } }).profileBrief.statusText, text);
  const plainAfter = await raw(base, dashboard, s.headers);
  t.equal(unpacked, plainAfter.bytes.toString('utf8'), 'and is the JSON the plain answer has');
  t.equal(Number(after.headers['content-length']), after.bytes.length);
});
