// Issue 46, findings 6 and 7: the typed client never makes a sandbox on a read (a misspelt name throws instead of
// reading as empty), and the journal's and findings' filter values are checked by the server: an unknown
// operationId, finding code or fault kind, or a status outside 0-599, is a 400 naming the closest known values.
import t from 'tap';
import { AdminError, adminClient } from '../../src/client/control.js';
import { startMock } from '../../src/start-mock.js';

const started = async (t: { teardown(fn: () => Promise<void>): void }) => {
  const mock = await startMock({ logger: false, now: '2026-03-02T09:00:00.000Z' });
  t.teardown(() => mock.close());
  return mock;
};
const names = async (url: string) =>
  ((await (await fetch(`${url}/__admin/sandboxes`)).json()) as Array<{ name: string }>).map((s) => s.name);

t.test('a read of a missing sandbox throws an AdminError naming it and creates nothing', async (t) => {
  const mock = await started(t);
  for (const [what, client] of [
    ['startMock().admin', mock.admin],
    ['adminClient', adminClient({ baseUrl: mock.url })],
  ] as const) {
    const err = await client
      .sandbox('bug-7')
      .requests.count()
      .catch((e: unknown) => e);
    t.ok(err instanceof AdminError, `${what}: requests.count() throws`);
    t.match(err, { status: 404, body: { code: 'SANDBOX_NOT_FOUND' }, message: /"bug-7"/ });
    const reads: Array<[string, () => Promise<unknown>]> = [
      ['requests.list', () => client.sandbox('bug-7').requests.list()],
      ['findings.list', () => client.sandbox('bug-7').findings.list()],
      ['outbox.list', () => client.sandbox('bug-7').outbox.list()],
      ['clock.get', () => client.sandbox('bug-7').clock.get()],
      ['scenario.get', () => client.sandbox('bug-7').scenario.get()],
      ['data.users.list', () => client.sandbox('bug-7').data.users.list()],
    ];
    for (const [name, read] of reads)
      t.match(await read().catch((e: unknown) => e), { status: 404, message: /"bug-7"/ }, `${what}: ${name} throws`);
  }
  t.notOk((await names(mock.url)).includes('bug-7'), 'bug-7 was not made');
  await mock.admin.sandbox('bug-7').scenario.set('flaky');
  t.ok((await names(mock.url)).includes('bug-7'), 'a write makes it, as documented');
  t.equal(await mock.admin.sandbox('bug-7').requests.count(), 0, 'and then it reads');
});

t.test('filter values: an unknown operationId, finding, fault or status is a 400 naming the closest', async (t) => {
  const mock = await started(t);
  const get = async (query: string) => {
    const res = await fetch(`${mock.url}/__admin/${query}`);
    return { status: res.status, body: (await res.json()) as { code?: string; message?: string; count?: number } };
  };
  const operation = await get('requests/count?operationId=mobileAuht');
  t.equal(operation.status, 400, 'GET /__admin/requests/count?operationId=mobileAuht');
  t.match(operation.body, {
    code: 'VALIDATION_FAILED',
    message: /unknown operationId "mobileAuht"; closest: mobileAuth,/,
  });
  t.match((await get('requests?operationId=mobileAuht')).body.message, /closest: mobileAuth/);
  t.match((await get('requests?finding=retry-storms')).body.message, /unknown finding code .*closest: retry-storm,/);
  t.match((await get('findings?code=retry-storms')).body.message, /closest: retry-storm,/);
  t.match(
    (await get('requests/count?fault=truncate')).body.message,
    /unknown fault kind "truncate"; closest: truncated/,
  );
  for (const status of ['600', '-1', '1e2', 'abc'])
    t.match(await get(`requests/count?status=${status}`), { status: 400, body: { message: /0 .* to 599/ } }, status);
  t.same((await get('requests/count?operationId=mobileAuth&status=0&fault=reset')).body, { count: 0 }, 'known values');

  const err = await mock.admin.requests
    // @ts-expect-error: operationId is typed as one of the portal's operationIds
    .assert({ operationId: 'mobileAuht', times: 0 })
    .catch((e: unknown) => e);
  t.ok(err instanceof AdminError, 'requests.assert({ operationId: "mobileAuht", times: 0 }) fails');
  t.match(err, { status: 400, message: /closest: mobileAuth/ });
  await t.resolves(mock.admin.requests.assert({ operationId: 'mobileAuth', times: 0 }), 'a known one passes');
});
