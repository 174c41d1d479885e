// Issue 31, the trial finding: POST /mobile/request-two-factor (no session needed) with `[` x 5000 then `]` x 5000
// ended the process: the journal's 'close' listener serialized the parsed body again (JSON.stringify overflowed the
// stack) outside Fastify's error handling, and every later request got ECONNREFUSED. The real process
// (dist/portal-mock.mjs: run `npm run build` first) and raw bytes on a real socket, since only a real connection's
// 'close' ran that listener.
import t from 'tap';
import { existsSync } from 'node:fs';
import { start, serverJs } from '../support/process.js';
import { exchange } from '../support/raw-http.js';

const json = { 'content-type': 'application/json' };

t.test('the built server exists', async (t) => {
  t.ok(existsSync(serverJs), 'dist/portal-mock.mjs (run npm run build first)');
});

t.test('a body nested 5000 deep is refused with 400 and the process lives on', async (t) => {
  const c = await start(['--users', '10']);
  t.teardown(() => {
    c.proc.kill('SIGKILL');
  });
  const port = Number(new URL(c.base).port);
  const bodies = {
    arrays: `${'['.repeat(5000)}${']'.repeat(5000)}`, // the trial's input
    objects: `{"password":"hunter2","email":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`,
  };
  for (const [what, body] of Object.entries(bodies)) {
    const answer = await exchange(port, {
      method: 'POST',
      target: '/mobile/request-two-factor',
      headers: Object.entries(json),
      body: Buffer.from(body),
    });
    t.equal(answer.problem, null, `${what}: a whole answer, not a dropped connection`);
    t.equal(answer.status, 400, `${what}: the status the route declares for a bad body`);
    t.match(JSON.parse(answer.body.toString('utf8')), { statusCode: 400, code: 'VALIDATION_FAILED', message: String });
    const health = await fetch(`${c.base}/__admin/health`).then(
      (res) => res.status,
      (err: Error & { cause?: { code?: string } }) => err.cause?.code ?? err.message,
    );
    t.equal(health, 200, `${what}: the process still answers (not ECONNREFUSED)`);
  }
  t.equal(c.proc.exitCode, null, 'the process has not exited');

  // the journal kept the bodies as text, cut, with the password redacted; both forms of the journal read
  const journal = await fetch(`${c.base}/__admin/requests?operationId=mobileRequestTwoFactor`);
  const entries = (await journal.json()) as Array<{ requestBody: string }>;
  t.equal(entries.length, 2);
  const [objects, arrays] = entries.map((e) => e.requestBody);
  t.match(
    arrays,
    /^\[{5000}\]{3192}…\[cut: 10000 characters in all\]$/,
    'arrays: the first 8192 characters, the length',
  );
  t.match(
    objects,
    /^\{"password":"\[redacted\]","email":\{"a":\{"a":/,
    'objects: the text as it came, password masked',
  );
  t.ok(objects!.length < 8300, 'the objects: cut as well');
  t.notMatch(JSON.stringify(entries), /hunter2/, 'no password in the journal');
  const har = await fetch(`${c.base}/__admin/requests?format=har`);
  t.equal(har.status, 200, 'the HAR export reads');
  t.match(await har.json(), { log: { entries: [{ request: { postData: { text: /^\[\[\[/ } } }, {}] } });
});
