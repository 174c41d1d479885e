import t from 'tap';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accounts, build, expectError, json, signIn } from '../helper.js';
import { ScenarioRegistry } from '../../src/scenarios/registry.js';
import { buildApp } from '../../src/app.js';
import { logCapture, waitFor } from '../support/wait.js';

const ops = new Set(['mobileTenantInfo', 'mobileAuth']);
const dirWith = (files: Record<string, unknown>) => {
  const dir = mkdtempSync(join(tmpdir(), 'pm-scen-'));
  for (const [name, body] of Object.entries(files))
    writeFileSync(join(dir, name), typeof body === 'string' ? body : JSON.stringify(body));
  return dir;
};

t.test('shipped scenarios load and keep their names', async (t) => {
  const app = await build(t);
  const names = json<Array<{ name: string; description: string }>>(await app.inject({ url: '/__admin/scenarios' })).map(
    (s) => s.name,
  );
  for (const n of [
    'default',
    'two-factor-required',
    'expired-session',
    'no-rights',
    'server-errors',
    'slow-network',
    'flaky',
    'new-employee',
    'wallet-disabled',
  ]) {
    t.ok(names.includes(n), n);
  }
});

t.test('bad scenario files are refused with file, JSON path and what was expected', async (t) => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['not JSON', { 'x.json': '{oops' }, /x\.json: not valid JSON/],
    [
      'wrong type',
      { 'x.json': { name: 'x', description: 'd', twoFactor: 'yes' } },
      /x\.json: at \/twoFactor: Expected boolean/,
    ],
    ['unknown field', { 'x.json': { name: 'x', description: 'd', colour: 1 } }, /x\.json: at \/colour/],
    [
      'unknown operationId',
      { 'x.json': { name: 'x', description: 'd', stubs: [{ operationId: 'nope', status: 500 }] } },
      /x\.json: at \/stubs\/0\/operationId: unknown operationId "nope"/,
    ],
    ['name not the file name', { 'x.json': { name: 'y', description: 'd' } }, /at \/name: expected "x"/],
    [
      'unknown parent',
      { 'x.json': { name: 'x', description: 'd', extends: 'ghost' } },
      /at \/extends: unknown scenario "ghost"/,
    ],
    [
      'cycle',
      {
        'a.json': { name: 'a', description: 'd', extends: 'b' },
        'b.json': { name: 'b', description: 'd', extends: 'a' },
      },
      /cycle/,
    ],
  ];
  for (const [name, files, message] of cases) {
    t.throws(() => new ScenarioRegistry([dirWith(files)], ops), { message }, name);
  }
});

t.test('extends composes scenarios', async (t) => {
  const dir = dirWith({
    'base.json': {
      name: 'base',
      description: 'b',
      twoFactor: true,
      stubs: [{ operationId: 'mobileTenantInfo', status: 503 }],
    },
    'child.json': { name: 'child', description: 'c', extends: 'base', revokeRights: 'all', latency: [{ fixedMs: 5 }] },
  });
  const reg = new ScenarioRegistry([dir], ops);
  const child = reg.get('child')!;
  t.equal(child.twoFactor, true);
  t.equal(child.revokeRights, 'all');
  t.equal(child.stubs?.length, 1);
  t.same(child.chain, ['base', 'child']);
});

t.test('an unknown --scenario stops start-up listing the names', async (t) => {
  await t.rejects(buildApp({ scenario: 'nope' }), { message: /unknown scenario "nope"; known: .*two-factor-required/ });
});

t.test('two-factor-required: every account needs a code, taken from the outbox', async (t) => {
  const app = await build(t, { scenario: 'two-factor-required' });
  const res = await app.inject({
    method: 'POST',
    url: '/mobile/request-two-factor',
    payload: { email: accounts.admin.email, password: 'demo1234' },
  });
  t.equal(json(res).codeRequired, true);
  expectError(
    t,
    await app.inject({
      method: 'POST',
      url: '/mobile/manual-bind',
      payload: { email: accounts.admin.email, password: 'demo1234', device: {} },
    }),
    403,
  );
  const outbox = json<Array<{ code: string; to: string }>>(
    await app.inject({ url: `/__admin/outbox?to=${accounts.admin.email}` }),
  );
  t.equal(outbox.length, 1);
  const ok = await app.inject({
    method: 'POST',
    url: '/mobile/manual-bind',
    payload: { email: accounts.admin.email, password: 'demo1234', code: outbox[0]!.code, device: {} },
  });
  t.equal(ok.statusCode, 200);
});

t.test('expired-session: existing sessions answer 401, a new auth works', async (t) => {
  const app = await build(t);
  const s = await signIn(app);
  t.equal((await app.inject({ url: '/mobile/tenant-info', headers: s.headers })).statusCode, 200);
  t.equal(
    (await app.inject({ method: 'PUT', url: '/__admin/scenario', payload: { name: 'expired-session' } })).statusCode,
    200,
  );
  expectError(t, await app.inject({ url: '/mobile/tenant-info', headers: s.headers }), 401);
  const again = await signIn(app, accounts.admin);
  t.equal(
    (await app.inject({ url: '/mobile/tenant-info', headers: again.headers })).statusCode,
    200,
    'a fresh session works',
  );
  // sessions made under it are short: 5 minutes
  app.sandboxes.get('default').clock.state = { mode: 'frozen', at: '2026-03-02T09:06:00.000Z' };
  expectError(t, await app.inject({ url: '/mobile/tenant-info', headers: again.headers }), 401);
});

t.test('stubs: status, body, headers, times; probability from the seeded source', async (t) => {
  const dir = dirWith({
    'stubbed.json': {
      name: 'stubbed',
      description: 's',
      stubs: [
        {
          operationId: 'mobileTenantInfo',
          status: 418,
          body: { teapot: true },
          headers: { 'x-stub': 'yes' },
          times: 2,
        },
      ],
    },
    'coin.json': {
      name: 'coin',
      description: 'c',
      stubs: [{ operationId: 'mobileTenantInfo', status: 503, probability: 0.5 }],
    },
  });
  const app = await build(t, { scenarios: [dir] });
  const s = await signIn(app);
  await app.inject({ method: 'PUT', url: '/__admin/scenario', payload: { name: 'stubbed' } });
  const first = await app.inject({ url: '/mobile/tenant-info', headers: s.headers });
  t.equal(first.statusCode, 418);
  t.same(json(first), { teapot: true });
  t.equal(first.headers['x-stub'], 'yes');
  t.equal((await app.inject({ url: '/mobile/tenant-info' })).statusCode, 418, 'stubs answer before auth');
  t.equal((await app.inject({ url: '/mobile/tenant-info', headers: s.headers })).statusCode, 200, 'used up after 2');

  const run = async () => {
    await app.inject({ method: 'POST', url: '/__admin/reset', payload: {} });
    const fresh = await signIn(app);
    await app.inject({ method: 'PUT', url: '/__admin/scenario', payload: { name: 'coin' } });
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++)
      statuses.push((await app.inject({ url: '/mobile/tenant-info', headers: fresh.headers })).statusCode);
    return statuses;
  };
  const a = await run();
  const b = await run();
  t.ok(a.includes(503) && a.includes(200), `a mix: ${a.join(',')}`);
  t.same(a, b, 'the same seed replays the same flaky run');
});

t.test('tenant options: wallet-disabled for one request by header, then for the sandbox', async (t) => {
  const app = await build(t);
  const s = await signIn(app);
  t.equal(json(await app.inject({ url: '/mobile/tenant-info', headers: s.headers })).options.enableWallet, true);
  t.equal(
    json(
      await app.inject({ url: '/mobile/tenant-info', headers: { ...s.headers, 'x-mock-scenario': 'wallet-disabled' } }),
    ).options.enableWallet,
    false,
  );
  t.equal(
    json(await app.inject({ url: '/mobile/tenant-info', headers: s.headers })).options.enableWallet,
    true,
    'the header applied to that request only',
  );
  await app.inject({ method: 'PUT', url: '/__admin/scenario', payload: { name: 'wallet-disabled' } });
  t.equal(json(await app.inject({ url: '/mobile/tenant-info', headers: s.headers })).options.enableWallet, false);
  expectError(
    t,
    await app.inject({ url: '/mobile/tenant-info', headers: { ...s.headers, 'x-mock-scenario': 'no-such' } }),
    400,
  );
});

t.test('latency: fixed, uniform and long-tailed delays', async (t) => {
  const dir = dirWith({
    'slow.json': { name: 'slow', description: 's', latency: [{ operations: ['mobileTenantInfo'], fixedMs: 150 }] },
  });
  const app = await build(t, { scenarios: [dir] });
  const s = await signIn(app);
  const started = performance.now();
  await app.inject({ url: '/mobile/tenant-info', headers: { ...s.headers, 'x-mock-scenario': 'slow' } });
  t.ok(performance.now() - started >= 140, 'delayed by the fixed latency');
  const { delayOf } = await import('../../src/scenarios/runtime.js');
  const { SeededRandom } = await import('../../src/store/random.js');
  const r = new SeededRandom(1);
  const uniform = Array.from({ length: 200 }, () => delayOf({ uniformMs: { min: 10, max: 20 } }, r));
  t.ok(uniform.every((d) => d >= 10 && d <= 20));
  const tail = Array.from({ length: 2000 }, () => delayOf({ longTailMs: { median: 100, p99: 1000 } }, r)).sort(
    (x, y) => x - y,
  );
  t.ok(tail[1000]! > 70 && tail[1000]! < 140, `median near 100: ${tail[1000]}`);
  t.ok(tail[1980]! > 500, `p99 well above the median: ${tail[1980]}`);
});

t.test('faults over a real socket: reset, empty, truncated, malformed', async (t) => {
  const dir = dirWith(
    Object.fromEntries(
      ['reset', 'empty', 'truncated', 'malformed'].map((k) => [
        `f-${k}.json`,
        { name: `f-${k}`, description: k, faults: [{ operations: ['mobileTenantInfo'], kind: k }] },
      ]),
    ),
  );
  const app = await build(t, { scenarios: [dir] });
  const s = await signIn(app);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const call = (kind: string) =>
    fetch(`${address}/mobile/tenant-info`, { headers: { ...s.headers, 'x-mock-scenario': `f-${kind}` } });
  await t.rejects(call('reset'), 'reset: the request fails');
  await t.rejects(call('empty'), 'empty: no reply');
  await t.rejects(
    call('truncated').then((r) => r.text()),
    'truncated: the body breaks off',
  );
  const malformed = await call('malformed');
  t.equal(malformed.status, 200);
  const text = await malformed.text();
  t.throws(() => JSON.parse(text) as unknown, 'malformed: not JSON');
  t.equal(
    (await fetch(`${address}/mobile/tenant-info`, { headers: s.headers })).status,
    200,
    'the server still answers',
  );
  // every faulted request is in the journal, the dropped ones with status 0 (no answer, as HAR has it)
  type Entry = { scenario: string | null; status: number; stubbed: boolean; operationId: string | null };
  const entries = json<Entry[]>(await app.inject({ url: '/__admin/requests?operationId=mobileTenantInfo' }));
  const byScenario = Object.fromEntries(entries.map((e) => [e.scenario, e]));
  for (const [kind, status] of [
    ['reset', 0],
    ['empty', 0],
    ['truncated', 200],
    ['malformed', 200],
  ] as const) {
    t.match(
      byScenario[`f-${kind}`],
      { status, stubbed: true, operationId: 'mobileTenantInfo' },
      `${kind} is in the journal`,
    );
  }
  t.match(byScenario.default, { status: 200, stubbed: false });
});

t.test('new-employee empties personal data but keeps sign-in working', async (t) => {
  const app = await build(t, { scenario: 'new-employee' });
  const s = await signIn(app);
  const user = app.sandboxes
    .get('default')
    .store.tenant(s.tenantId)!
    .users.find((u) => u.id === s.userId)!;
  t.equal(user.hiredAt, '2026-03-02', 'hired today by the sandbox clock');
});

t.test('a bad edit of a scenario file is reported and the last good version kept', async (t) => {
  const dir = dirWith({ 'live.json': { name: 'live', description: 'v1' } });
  const logs = logCapture('info');
  const app = await buildApp({ scenarios: [dir], watchScenarios: true, logger: logs.logger });
  t.teardown(() => app.close());
  writeFileSync(join(dir, 'live.json'), JSON.stringify({ name: 'live', description: 'v2' }));
  await waitFor(() => app.scenarios.get('live')?.description === 'v2');
  t.equal(app.scenarios.get('live')?.description, 'v2', 'a change is reloaded');
  const reported = logs.next(/scenario reload failed/);
  writeFileSync(join(dir, 'live.json'), '{"name": "live", "description": ');
  // the reload of the bad edit has run once it is reported: only then does "kept" mean anything
  t.match(await reported, /live\.json/, 'the bad edit is reported, naming the file');
  t.equal(app.scenarios.get('live')?.description, 'v2', 'the last good version is kept');
});
