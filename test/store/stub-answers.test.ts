// A stub's answer is valid HTTP or the stub is refused where it is defined (issue 46, finding 2): header names and
// values Node cannot send, 1xx statuses, framing and hop-by-hop headers, a body with a no-body status. Every entry
// point: PUT /__admin/scenarios/NAME, an inline scenario (PUT /__admin/scenario), a scenario file at start and at
// reload (logged, the last good version kept). Over real sockets.
import t from 'tap';
import { request } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, httpCaller } from '../helper.js';
import { start, startFails } from '../support/process.js';
import { waitFor } from '../support/wait.js';

t.setTimeout(10 * 60_000);

/** One call over a real socket (test/helper.ts's httpCaller, with the base first) */
const call = (base: string, method: string, path: string, body?: unknown) => httpCaller(base)(method, path, body);

/** What a client gets for GET `path`: a status and body, or the socket error that ended it. */
function raw(base: string, path: string): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = request(`${base}${path}`, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (d: string) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end();
  });
}

const stubbed = (stub: Record<string, unknown>) => ({
  name: 'bad-answer',
  description: 'a stub whose answer is not valid HTTP',
  stubs: [{ operationId: 'mobileOauthList', ...stub }],
});

/** Each refused stub answer and the JSON path its 400 names. */
const refused: Array<{ why: string; stub: Record<string, unknown>; path: string }> = [
  {
    why: 'a Cyrillic header value',
    stub: { status: 200, headers: { 'x-note': 'Привет' } },
    path: '/stubs/0/headers/x-note',
  },
  {
    why: 'a CRLF in a value',
    stub: { status: 200, headers: { 'x-note': 'a\r\nset-cookie: x=1' } },
    path: '/stubs/0/headers/x-note',
  },
  {
    why: 'a NUL in a value',
    stub: { status: 200, headers: { 'x-note': 'a\u0000b' } },
    path: '/stubs/0/headers/x-note',
  },
  { why: 'a space in a name', stub: { status: 200, headers: { 'x bad': '1' } }, path: '/stubs/0/headers/x bad' },
  { why: 'an empty name', stub: { status: 200, headers: { '': '1' } }, path: '/stubs/0/headers/' },
  { why: 'status 100', stub: { status: 100 }, path: '/stubs/0/status' },
  { why: 'status 103', stub: { status: 103, body: { a: 1 } }, path: '/stubs/0/status' },
  { why: 'status 101', stub: { status: 101 }, path: '/stubs/0/status' },
  {
    why: 'transfer-encoding',
    stub: { status: 200, headers: { 'Transfer-Encoding': 'chunked' }, body: { a: 1 } },
    path: '/stubs/0/headers/Transfer-Encoding',
  },
  {
    why: 'content-length',
    stub: { status: 200, headers: { 'content-length': '999' }, body: 'x' },
    path: '/stubs/0/headers/content-length',
  },
  { why: 'connection', stub: { status: 200, headers: { connection: 'upgrade' } }, path: '/stubs/0/headers/connection' },
  { why: 'upgrade', stub: { status: 200, headers: { upgrade: 'websocket' } }, path: '/stubs/0/headers/upgrade' },
  {
    why: 'keep-alive',
    stub: { status: 200, headers: { 'keep-alive': 'timeout=1' } },
    path: '/stubs/0/headers/keep-alive',
  },
  {
    why: 'content-encoding',
    stub: { status: 200, headers: { 'content-encoding': 'gzip' }, body: 'x' },
    path: '/stubs/0/headers/content-encoding',
  },
  { why: 'a body with 204', stub: { status: 204, body: { a: 1 } }, path: '/stubs/0/body' },
  { why: 'a body with 304', stub: { status: 304, body: 'x' }, path: '/stubs/0/body' },
];

t.test('every stub answer that is not valid HTTP is refused where it is defined, naming the JSON path', async (t) => {
  const app = await build(t, { users: 10 });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const scenariosBefore = await call(base, 'GET', '/__admin/scenarios');
  for (const { why, stub, path } of refused) {
    const defined = await call(base, 'PUT', '/__admin/scenarios/bad-answer', stubbed(stub));
    t.equal(defined.status, 400, `${why}: PUT /__admin/scenarios/NAME is a 400`);
    t.match(defined.body?.message, path, `${why}: the message names ${path}`);
    const inline = await call(base, 'PUT', '/__admin/scenario?sandbox=inline', { scenario: stubbed(stub) });
    t.equal(inline.status, 400, `${why}: an inline scenario is a 400`);
    t.match(inline.body?.message, path, `${why}: naming ${path}`);
  }
  t.same(await call(base, 'GET', '/__admin/scenarios'), scenariosBefore, 'no definition was made');
  t.equal((await call(base, 'GET', '/__admin/sandboxes/inline')).status, 404, 'no sandbox was made');
  t.equal((await call(base, 'GET', '/__admin/scenario')).body.name, 'default', 'the default sandbox is untouched');

  // what is allowed answers as defined, over a socket
  const fine = stubbed({
    status: 299,
    headers: { 'x-note': 'café, tab\tok', 'cache-control': 'no-store', 'Retry-After': '1' },
    body: { ok: true },
  });
  t.equal((await call(base, 'PUT', '/__admin/scenarios/fine', { ...fine, name: 'fine' })).status, 201);
  t.equal((await call(base, 'PUT', '/__admin/scenario', { name: 'fine' })).status, 200);
  const res = await fetch(`${base}/mobile/oauth-list`);
  t.equal(res.status, 299);
  t.equal(res.headers.get('retry-after'), '1');
  t.equal(res.headers.get('cache-control'), 'no-store');
  t.same(await res.json(), { ok: true });
  const noBody = stubbed({ status: 204, headers: { 'x-note': 'empty' } });
  t.equal((await call(base, 'PUT', '/__admin/scenarios/no-body', { ...noBody, name: 'no-body' })).status, 201);
  t.equal((await call(base, 'PUT', '/__admin/scenario', { name: 'no-body' })).status, 200);
  t.same(await raw(base, '/mobile/oauth-list'), { status: 204, body: '' }, 'a 204 without a body');
});

t.test(
  'a scenario file with a stub answer that is not valid HTTP: exit 2 at start, kept last good at reload',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'pm-stub-answer-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'bad-answer.json');
    writeFileSync(file, JSON.stringify(stubbed({ status: 200, headers: { 'x-note': 'Привет' } })));
    const failed = await startFails(['--scenarios', dir, '--no-banner']);
    t.equal(failed.code, 2, 'the start is refused');
    t.match(failed.out, `${file}: at /stubs/0/headers/x-note`, 'naming the file and the JSON path');

    writeFileSync(file, JSON.stringify(stubbed({ status: 418, body: { version: 'good' } })));
    const c = await start([
      '--scenarios',
      dir,
      '--scenario',
      'bad-answer',
      '--log-level',
      'info',
      '--log-format',
      'json',
      '--no-banner',
    ]);
    t.teardown(() => {
      c.proc.kill('SIGKILL');
    });
    t.same(await raw(c.base, '/mobile/oauth-list'), { status: 418, body: '{"version":"good"}' });
    writeFileSync(file, JSON.stringify(stubbed({ status: 103, body: { version: 'bad' } })));
    const line = (out: string) =>
      out.split('\n').find((l) => l.includes('scenario reload failed') && l.includes('/stubs/0/status'));
    t.ok(await waitFor(() => line(c.out()) !== undefined, { everyMs: 50, limitMs: 120_000 }), 'the bad edit is logged');
    t.same(
      await raw(c.base, '/mobile/oauth-list'),
      { status: 418, body: '{"version":"good"}' },
      'the last good answers',
    );
  },
);
