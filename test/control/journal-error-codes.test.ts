// Issue 46, finding 8: the journal and its HAR export show an error body's code (UNAUTHORIZED, VALIDATION_FAILED) as
// the client got it; secrets (passwords, confirmation codes, session codes, account secrets) stay redacted.
import t from 'tap';
import { startMock } from '../../src/start-mock.js';
import { accounts } from '../helper.js';

t.test('a 401 and a 400: their codes in the journal and the HAR, secrets still redacted', async (t) => {
  const mock = await startMock({ logger: false, now: '2026-03-02T09:00:00.000Z' });
  t.teardown(() => mock.close());
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(mock.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const password = 'demo1234';
  const bind = await post('/mobile/manual-bind', {
    email: accounts.admin.email,
    password,
    device: { id: 'codes-1' },
  });
  t.equal(bind.status, 200, 'a bind, whose answer holds an account secret');
  const account = bind.body.accountSecret;
  const tenant = { 'x-service-tenant-id': account.tenantId };
  const refused = await post(
    '/mobile/auth',
    { secret: 'x'.repeat(account.secret.length), userId: account.userId, deviceId: 'codes-1' },
    tenant,
  );
  t.equal(refused.status, 401);
  t.equal(refused.body.code, 'UNAUTHORIZED', 'the client got UNAUTHORIZED');
  const invalid = await post('/mobile/manual-bind', { email: accounts.admin.email, password, code: '123456' });
  t.equal(invalid.status, 400);
  t.equal(invalid.body.code, 'VALIDATION_FAILED', 'the client got VALIDATION_FAILED');
  const auth = await post(
    '/mobile/auth',
    { secret: account.secret, userId: account.userId, deviceId: 'codes-1' },
    tenant,
  );
  t.equal(auth.status, 200);
  const me = await fetch(`${mock.url}/mobile/oauth-list`, {
    headers: {
      ...tenant,
      'x-service-device-id': 'codes-1',
      'x-service-session-id': auth.body.sessionId,
      'x-service-session-code': auth.body.sessionSecret,
    },
  });
  t.equal(me.status, 200);

  const journal = await mock.admin.requests.list();
  const entry = (status: number) => journal.find((e) => e.status === status)!;
  t.match(entry(401).responseBody, { statusCode: 401, code: 'UNAUTHORIZED' }, 'the journal shows UNAUTHORIZED');
  t.match(entry(400).responseBody, { statusCode: 400, code: 'VALIDATION_FAILED' }, 'and VALIDATION_FAILED');

  const text = JSON.stringify(journal);
  const har = JSON.stringify(await mock.admin.requests.har());
  for (const [what, shown] of [
    ['journal', text],
    ['HAR', har],
  ] as const) {
    t.match(shown, /UNAUTHORIZED/, `${what}: UNAUTHORIZED`);
    t.match(shown, /VALIDATION_FAILED/, `${what}: VALIDATION_FAILED`);
    for (const [secret, value] of [
      ['password', password],
      ['confirmation code', '123456'],
      ['account secret', account.secret],
      ['session secret', auth.body.sessionSecret],
    ])
      t.notOk(shown.includes(value), `${what}: the ${secret} is redacted`);
  }
  t.equal(entry(400).requestBody && (entry(400).requestBody as any).code, '[redacted]', 'a request code stays secret');
});
