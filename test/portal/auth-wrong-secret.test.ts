// A wrong credential of the right length answers 401 also after the right one was accepted on the same session,
// token or key: src/auth/plugin.ts keeps the codes it has checked per session record, and a cache keyed on the session
// that skipped the compare would pass every other auth test (their wrong codes are short strings, refused for their
// length). Each wrong value here differs from the right one in one character only, at the start, middle or end.
import t from 'tap';
import { accounts, build, expectError, json, signIn } from '../helper.js';

/** The same text with the character at `i` changed to another of the same alphabet: same length, same shape. */
function oneOff(text: string, i: number): string {
  const c = text[i]!;
  const other = c === 'A' ? 'B' : c === '0' ? '1' : /[0-9]/.test(c) ? '0' : 'A';
  return text.slice(0, i) + other + text.slice(i + 1);
}
const positions = (text: string) => [0, Math.floor(text.length / 2), text.length - 1];

t.test('session code: a wrong code of the right length after a good call on the same session is 401', async (t) => {
  const app = await build(t);
  const s = await signIn(app);
  const other = await signIn(app, accounts.admin);
  t.equal(other.sessionSecret.length, s.sessionSecret.length, 'session codes all have one length');
  const calls = [
    { method: 'GET' as const, url: '/mobile/tenant-info' },
    { method: 'GET' as const, url: '/dashboard?info=notificationsBadge' },
    { method: 'POST' as const, url: '/notifications/mark-seen-all' },
  ];
  for (const call of calls) {
    const good = await app.inject({ ...call, headers: s.headers });
    t.equal(good.statusCode, 200, `${call.method} ${call.url} with the right code`);
    const wrongCodes = [...positions(s.sessionSecret).map((i) => oneOff(s.sessionSecret, i)), other.sessionSecret];
    for (const code of wrongCodes) {
      t.equal(code.length, s.sessionSecret.length);
      const res = await app.inject({ ...call, headers: { ...s.headers, 'x-service-session-code': code } });
      expectError(t, res, 401);
      t.match(json(res).message, /session code invalid/);
    }
    t.equal((await app.inject({ ...call, headers: s.headers })).statusCode, 200, 'the right code still works');
  }
});

t.test('personal token and API key: a wrong secret of the right length after a good call is 401', async (t) => {
  const app = await build(t);
  const s = await signIn(app);
  const created = await app.inject({
    method: 'POST',
    url: '/user-api-token/create',
    headers: s.headers,
    payload: { name: 'CI' },
  });
  const token = json(created).data.token as string;
  const bearer = (value: string) => ({ authorization: `Bearer ${value}`, 'x-service-tenant-id': s.tenantId });
  t.equal((await app.inject({ url: '/mobile/tenant-info', headers: bearer(token) })).statusCode, 200);
  // in the secret after the record id: a changed id finds no record at all
  for (const i of [token.length - 8, token.length - 1]) {
    expectError(t, await app.inject({ url: '/mobile/tenant-info', headers: bearer(oneOff(token, i)) }), 401);
  }

  const key = { 'x-service-client-id': 'romashka-integration', 'x-service-client-secret': 'romashka-secret-0001' };
  t.equal((await app.inject({ url: '/api/v2/workflow-ticket/', headers: key })).statusCode, 200);
  for (const i of positions(key['x-service-client-secret'])) {
    const wrong = { ...key, 'x-service-client-secret': oneOff(key['x-service-client-secret'], i) };
    expectError(t, await app.inject({ url: '/api/v2/workflow-ticket/', headers: wrong }), 401);
  }
});
