// Mobile network profiles as scenarios (offline, captive-portal, slow-3g), seen by real HTTP clients on real sockets.
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { accounts, build, json, signIn } from '../helper.js';

type Raw = {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  wire: Buffer;
  firstByteMs: number;
  totalMs: number;
};

/** One request on its own connection; the body as it came off the wire (not decompressed), with arrival times. */
function raw(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(url, { method: opts.method ?? 'GET', headers: opts.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let firstByteMs = -1;
      res.on('data', (c: Buffer) => {
        if (firstByteMs < 0) firstByteMs = performance.now() - started;
        chunks.push(c);
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          wire: Buffer.concat(chunks),
          firstByteMs,
          totalMs: performance.now() - started,
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const useScenario = async (app: FastifyInstance, name: string) => {
  const res = await app.inject({ method: 'PUT', url: '/__admin/scenario', payload: { name } });
  if (res.statusCode !== 200) throw new Error(res.body);
};

t.test(
  'offline: every API call is reset before an answer; the admin side, console and /docs still answer',
  async (t) => {
    const app = await build(t);
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const s = await signIn(app);
    await useScenario(app, 'offline');
    for (const [url, headers] of [
      ['/mobile/tenant-info', s.headers],
      ['/user/index', s.headers],
      ['/mobile/oauth-list', {}],
      ['/no/such/path', {}],
      ['/api/v2/mobile/auth', {}],
    ] as const) {
      await t.rejects(raw(`${address}${url}`, { headers }), { code: 'ECONNRESET' }, `${url}: ECONNRESET`);
      await t.rejects(fetch(`${address}${url}`), { cause: { code: 'ECONNRESET' } }, `${url}: fetch fails`);
    }
    t.equal((await raw(`${address}/__admin/health`)).status, 200, 'health answers');
    t.equal((await raw(`${address}/__admin`)).status, 200, 'the console answers');
    t.equal((await raw(`${address}/docs/json`)).status, 200, 'the API document answers');
    t.equal(
      json<Array<{ status: number; fault?: string }>>(await app.inject({ url: '/__admin/requests' })).filter(
        (e) => e.status === 0 && e.fault === 'reset',
      ).length,
      10,
      'the resets are in the journal, with no status',
    );
    // back online through the admin route, as a test would
    t.equal(
      (
        await fetch(`${address}/__admin/scenario`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'default' }),
        })
      ).status,
      200,
    );
    t.equal((await raw(`${address}/mobile/tenant-info`, { headers: s.headers })).status, 200, 'online again');
  },
);

t.test('captive-portal: a client that expects JSON gets 200 and an HTML login page', async (t) => {
  const app = await build(t);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const s = await signIn(app); // at home, then in the hotel
  await useScenario(app, 'captive-portal');
  const headers = s.headers;
  // what an app's fetch wrapper does: ok → parse JSON
  const res = await fetch(`${address}/user/index`, { headers });
  t.equal(res.status, 200, 'status 200, so `res.ok` is true');
  t.match(res.headers.get('content-type'), /^text\/html/, 'but the content type is HTML');
  await t.rejects(res.clone().json(), SyntaxError, 'and res.json() throws');
  t.match(await res.text(), /<form[^>]*>[\s\S]*<\/form>/, 'the body is a login page');
  // a write does not reach the portal: the feedback is not stored
  const post = await fetch(`${address}/feedback/add`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'user', id: accounts.noRights.userId, score: 5, text: 'via hotel wifi' }),
  });
  t.match({ status: post.status, type: post.headers.get('content-type') }, { status: 200, type: /^text\/html/ });
  t.notOk(
    app.sandboxes
      .get('default')
      .store.tenant(s.tenantId)
      ?.feedback.some((f) => f.text === 'via hotel wifi'),
    'nothing stored',
  );
  t.equal(
    (await fetch(`${address}/mobile/oauth-list`)).headers.get('content-type')?.startsWith('text/html'),
    true,
    'without a session too',
  );
  const health = await fetch(`${address}/__admin/health`);
  t.match(health.headers.get('content-type'), /json/, 'the admin side still answers JSON');
});

const rate = 100_000;
const bigText = randomBytes(150_000).toString('base64'); // ~200 KB of JSON that compresses little
const dir = mkdtempSync(join(tmpdir(), 'pm-net-'));
writeFileSync(
  join(dir, 'thin.json'),
  JSON.stringify({
    name: 'thin',
    description: 'a thin link and a big answer',
    bandwidth: { bytesPerSecond: rate },
    stubs: [{ operationId: 'mobileOauthList', status: 200, body: { big: bigText } }],
  }),
);

t.test(
  'bandwidth: an answer arrives over time, no faster than the limit, whole and correct, with and without gzip',
  async (t) => {
    const app = await build(t, { scenarios: [dir], scenario: 'thin' });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const expected = JSON.stringify({ big: bigText });
    for (const encoding of ['identity', 'gzip']) {
      const res = await raw(`${address}/mobile/oauth-list`, { headers: { 'accept-encoding': encoding } });
      const minMs = (res.wire.length / rate) * 1000;
      t.ok(res.wire.length > 100_000, `${encoding}: ${res.wire.length} bytes on the wire`);
      t.ok(
        res.totalMs >= minMs * 0.9,
        `${encoding}: took ${Math.round(res.totalMs)} ms, the link needs ${Math.round(minMs)} ms`,
      );
      t.ok(
        res.totalMs - res.firstByteMs >= minMs * 0.7,
        `${encoding}: bytes kept arriving for ${Math.round(res.totalMs - res.firstByteMs)} ms after the first`,
      );
      // plain: the length is kept; compressed (a stream, length unknown up front): chunked
      if (encoding === 'gzip') t.equal(res.headers['transfer-encoding'], 'chunked');
      else t.equal(res.headers['content-length'], String(res.wire.length), 'content-length is the bytes sent');
      t.equal(res.headers['content-encoding'], encoding === 'gzip' ? 'gzip' : undefined);
      const body = encoding === 'gzip' ? gunzipSync(res.wire) : res.wire;
      t.ok(body.equals(Buffer.from(expected)), `${encoding}: byte-equal to the answer`);
    }
    t.equal((await raw(`${address}/__admin/health`)).status, 200, 'the admin side answers');
  },
);

t.test('bandwidth: a request body is read no faster than the limit', async (t) => {
  const app = await build(t, { scenarios: [dir], scenario: 'thin' });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const s = await signIn(app);
  // an unknown field is dropped after parsing: the body is big on the wire and valid
  const body = JSON.stringify({
    type: 'user',
    id: accounts.noRights.userId,
    score: 5,
    text: 'slow upload',
    padding: 'x'.repeat(150_000),
  });
  const res = await raw(`${address}/feedback/add`, {
    method: 'POST',
    headers: { ...s.headers, 'content-type': 'application/json' },
    body,
  });
  t.equal(res.status, 200, `the whole body arrived and was accepted: ${res.wire.toString().slice(0, 300)}`);
  t.ok(
    app.sandboxes
      .get('default')
      .store.tenant(s.tenantId)
      ?.feedback.some((f) => f.text === 'slow upload'),
    'stored',
  );
  const minMs = (Buffer.byteLength(body) / rate) * 1000;
  t.ok(
    res.totalMs >= minMs * 0.9,
    `the upload took ${Math.round(res.totalMs)} ms, the link needs ${Math.round(minMs)} ms`,
  );
});

t.test('slow-3g (shipped): latency plus a body at 50,000 bytes a second', async (t) => {
  const app = await build(t);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const s = await signIn(app);
  const headers = { ...s.headers, 'x-mock-scenario': 'slow-3g', 'accept-encoding': 'gzip' };
  const res = await raw(`${address}/user/index?per-page=20`, { headers });
  t.equal(res.status, 200);
  const plain = await raw(`${address}/user/index?per-page=20`, {
    headers: { ...s.headers, 'accept-encoding': 'gzip' },
  });
  t.ok(res.wire.equals(plain.wire), `the same ${res.wire.length} bytes as without the scenario`);
  const minMs = 2000 + (res.wire.length / 50_000) * 1000;
  t.ok(res.totalMs >= minMs * 0.9, `took ${Math.round(res.totalMs)} ms, latency and link need ${Math.round(minMs)} ms`);
});
