// requests.assert of the typed client (issue 34, part 3): over a real socket, the app's calls and the client's.
// It answers the matching entries, and on a mismatch throws a message saying what was expected, how many matched and
// what came closest.
import t from 'tap';
import { adminClient } from '../../src/client/control.js';
import { build } from '../helper.js';

t.test('requests.assert: the matching entries, or a readable error', async (t) => {
  const app = await build(t);
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  const admin = adminClient({ baseUrl, sandbox: 'assert-1' });
  await admin.sandboxCreate(); // a read never makes a sandbox (issue 46)
  const fixtures = await admin.fixtures();
  const device = fixtures.devices[0]!;
  const auth = (secret: string) =>
    fetch(`${baseUrl}/sandbox/assert-1/mobile/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-tenant-id': device.tenantId },
      body: JSON.stringify({ secret, userId: device.userId, deviceId: device.id }),
    });
  t.equal((await auth('wrong-secret')).status, 401, 'one failed sign-in');
  t.equal((await auth(device.secret)).status, 200, 'one sign-in');

  const ok = await admin.requests.assert({ operationId: 'mobileAuth', status: 200, times: 1 });
  t.equal(ok.length, 1, 'times: 1 answers the one entry');
  t.match(ok[0], { operationId: 'mobileAuth', status: 200, path: '/mobile/auth' });
  t.equal((await admin.requests.assert({ operationId: 'mobileAuth', atLeast: 2 })).length, 2, 'atLeast');
  t.equal((await admin.requests.assert({ path: '/mobile/*' })).length, 2, 'neither: at least one');
  t.same(await admin.requests.assert({ operationId: 'mobileUnbind', times: 0 }), [], 'times: 0 passes when none');
  t.equal(await admin.requests.count({ operationId: 'mobileAuth' }), 2, 'count is kept');

  const tooMany = await admin.requests.assert({ operationId: 'mobileAuth', times: 1 }).catch((e: Error) => e);
  t.ok(tooMany instanceof Error, 'two where one was expected throws');
  t.match(
    String((tooMany as Error).message),
    /expected exactly 1 request\(s\) matching \{"operationId":"mobileAuth"\} in sandbox assert-1; 2 matched/,
    'the message says what was expected and how many matched',
  );
  t.match((tooMany as Error).message, /#\d+ POST \/mobile\/auth mobileAuth -> 401/, 'and lists them');

  const missing = await admin.requests
    .assert({ operationId: 'mobileAuth', status: 403, atLeast: 1 })
    .catch((e: Error) => e);
  t.ok(missing instanceof Error, 'none where one was expected throws');
  const message = (missing as Error).message;
  t.match(message, /expected at least 1 request\(s\) matching \{"operationId":"mobileAuth","status":403\}/);
  t.match(message, /0 matched/);
  t.match(message, /closest:/, 'it shows what came closest');
  t.match(message, /POST \/mobile\/auth mobileAuth -> 401 {2}\(all but status\)/, 'the 401 of the same operation');
  t.match(message, /POST \/mobile\/auth mobileAuth -> 200 {2}\(all but status\)/, 'and the 200');

  await admin.sandbox('assert-empty').sandboxCreate(); // a read never makes a sandbox (issue 46)
  const nothing = await admin
    .sandbox('assert-empty')
    .requests.assert({ operationId: 'mobileAuth', times: 1 })
    .catch((e: Error) => e);
  t.match((nothing as Error).message, /0 matched\n {2}the journal is empty$/, 'an empty journal: it says so');

  await fetch(`${baseUrl}/sandbox/assert-1/mobile/oauth-list`, { headers: { 'x-service-tenant-id': device.tenantId } });
  const other = await admin.requests.assert({ operationId: 'mobileUnbind', method: 'DELETE' }).catch((e: Error) => e);
  t.match(
    (other as Error).message,
    /the latest requests:\n {2}#\d+ GET \/mobile\/oauth-list mobileOauthList -> 200/,
    'nothing near: the latest requests, newest first',
  );
});
