// Issue 54: a shared server that CI jobs never clean up stays bounded. Idle sandboxes leave memory by default
// (--sandbox-idle-ttl 24h): deleted in memory, written out under --data and read back exactly on their next use;
// never `default`, a kept one, or one with a request in flight. The clock of idle times is injected: nothing sleeps.
import t from 'tap';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveOptions } from '../../src/config.js';
import { accounts, build, json, signIn, type Session } from '../helper.js';

const hour = 3_600_000;
const clock = () => {
  const c = { ms: Date.parse('2026-03-02T09:00:00Z'), nowMs: () => c.ms };
  return c;
};

/** A typical CI suite in its own sandbox: sign in, a few reads, a write, a journal read; then abandoned. */
async function suite(app: Awaited<ReturnType<typeof build>>, name: string): Promise<Session> {
  const s = await signIn(app, accounts.admin, { sandbox: name });
  for (const url of ['/mobile/tenant-info', '/mobile/tenant-info']) {
    const res = await app.inject({ url, headers: s.headers });
    if (res.statusCode !== 200) throw new Error(`${name} ${url}: ${res.statusCode}`);
  }
  const push = await app.inject({
    method: 'POST',
    url: '/mobile/save-push-token',
    headers: s.headers,
    payload: { token: `tok-${name}`, deviceId: s.deviceId },
  });
  if (push.statusCode !== 200) throw new Error(`${name} push: ${push.statusCode} ${push.body}`);
  const journal = await app.inject({ url: '/__admin/requests?limit=5', headers: { 'x-mock-sandbox': name } });
  if (journal.statusCode !== 200) throw new Error(`${name} journal: ${journal.statusCode}`);
  return s;
}

t.test('the defaults: idle sandboxes leave memory after 24 h; at most 10,000 sandboxes', (t) => {
  const options = resolveOptions({});
  t.equal(options.sandboxIdleTtl, '24h');
  t.equal(options.maxSandboxes, 10_000);
  t.equal(options.journalSandboxMb, 8);
  t.equal(options.journalMb, 256);
  t.equal(resolveOptions({ sandboxIdleTtl: 'off' }).sandboxIdleTtl, 'off', 'off keeps them');
  t.end();
});

t.test(
  '300 abandoned suites over 25 hours: the registry and the journals plateau; the probe stays right',
  async (t) => {
    const c = clock();
    const app = await build(t, { nowMs: c.nowMs });
    const probe = await signIn(app, accounts.admin, { sandbox: 'probe' });
    app.sandboxes.find('probe')!.kept = true;
    const probeAnswer = (await app.inject({ url: '/mobile/tenant-info', headers: probe.headers })).body;
    const sizes: number[] = [];
    const journalBytes: number[] = [];
    for (let i = 0; i < 300; i++) {
      c.ms += 5 * 60_000; // a job every 5 minutes: 288 a day
      await suite(app, `suite-${i}`);
      app.sandboxes.evictIdle(24 * hour);
      sizes.push(app.sandboxes.size);
      journalBytes.push(app.sandboxes.list().reduce((n, s) => n + s.journal.heldBytes, 0));
      if (i % 50 === 0) {
        const res = await app.inject({ url: '/mobile/tenant-info', headers: probe.headers });
        t.equal(res.statusCode, 200, `the probe answers at job ${i}`, { diagnostic: false });
        t.equal(res.body, probeAnswer, 'and answers the same', { diagnostic: false });
      }
    }
    // 24 h of jobs every 5 minutes is 288 sandboxes, plus default and the probe
    const max = Math.max(...sizes);
    t.ok(max <= 288 + 2, `the registry peaked at ${max} sandboxes`);
    t.equal(sizes.at(-1), 288 + 2, 'and stays there: one in, one out');
    t.ok(Math.max(...journalBytes.slice(290)) <= Math.max(...journalBytes.slice(280, 290)) * 1.05, 'journals plateau');
    t.ok(app.sandboxes.find('probe'), 'the kept probe is still there');
    t.notOk(app.sandboxes.has('suite-0'), 'the first suite is gone');
    t.equal((await app.inject({ url: '/__admin/sandboxes/suite-0' })).statusCode, 404);
    t.equal(json(await app.inject({ url: '/__admin/health' })).sandboxes, 290);
    const res = await app.inject({ url: '/mobile/tenant-info', headers: probe.headers });
    t.equal(res.body, probeAnswer, 'the probe answers as it did at the start');
  },
);

t.test('never a sandbox in flight, default or kept; the TTL counts from the last request', async (t) => {
  const c = clock();
  const app = await build(t, { nowMs: c.nowMs, sandboxIdleTtl: '1h' });
  const busy = app.sandboxes.get('busy');
  app.sandboxes.get('kept').kept = true;
  app.sandboxes.get('idle');
  app.sandboxes.enter(busy); // a request that has not ended
  c.ms += 2 * hour;
  t.same(app.sandboxes.evictIdle(hour), ['idle'], 'only the idle one');
  app.sandboxes.leave(busy);
  c.ms += hour - 1;
  t.same(app.sandboxes.evictIdle(hour), [], 'the hour counts from the end of its last request');
  c.ms += 1;
  t.same(app.sandboxes.evictIdle(hour), ['busy']);
  c.ms += 100 * hour;
  t.same(app.sandboxes.evictIdle(hour), [], 'default and the kept one stay');
  t.same(app.sandboxes.names(), ['default', 'kept']);
});

t.test('under --data an idle sandbox is written out and comes back exactly as it was', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pm-idle-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const c = clock();
  const app = await build(t, { data: dir, nowMs: c.nowMs });
  const names = Array.from({ length: 40 }, (_, i) => `ci-${i}`);
  const sessions = new Map<string, Session>();
  const before = new Map<string, { state: string; info: unknown }>();
  for (const name of names) {
    sessions.set(name, await suite(app, name));
    // one that never wrote, made explicitly: it comes back too
    if (name === 'ci-0') app.sandboxes.get('ci-quiet');
  }
  app.sandboxes.get('ci-kept').kept = true;
  for (const name of [...names, 'ci-quiet']) {
    const h = { 'x-mock-sandbox': name };
    before.set(name, {
      state: (await app.inject({ url: '/__admin/state', headers: h })).body,
      info: json(await app.inject({ url: `/__admin/sandboxes/${name}` })),
    });
  }
  const size = app.sandboxes.size;
  c.ms += 25 * hour;
  const gone = app.sandboxes.evictIdle(24 * hour);
  t.equal(gone.length, names.length + 1, 'every suite and the quiet one left memory');
  t.notOk(gone.includes('ci-kept'), 'not the kept one');
  t.equal(app.sandboxes.size, size, 'they still exist and count');
  t.equal(app.sandboxes.resident, 2, 'only default and the kept one are in memory');
  t.ok(app.sandboxes.isCold('ci-3'));
  t.ok(existsSync(join(dir, 'ci-quiet.json')), 'the one that never wrote has its files now');

  // the listing names every one of them as it was, without reading one back
  const listed = new Map(
    (json(await app.inject({ url: '/__admin/sandboxes' })) as Record<string, unknown>[]).map((s) => [s.name, s]),
  );
  t.equal(listed.size, size, 'every sandbox that exists is listed');
  t.equal(app.sandboxes.resident, 2, 'listing read none back');
  const writtenOutAt = new Date(c.ms).toISOString();
  for (const name of [...names, 'ci-quiet']) {
    const was = before.get(name)!.info as Record<string, unknown>;
    const expected = { ...was, journalEntries: 0, outboxMessages: 0, resident: false, writtenOutAt };
    t.same(listed.get(name), expected, `${name}: listed as written out`, { diagnostic: false });
  }
  t.match(listed.get('ci-kept'), { resident: true, kept: true });
  t.notOk('writtenOutAt' in (listed.get('ci-kept') as object), 'a resident one has no writtenOutAt');

  for (const name of [...names, 'ci-quiet']) {
    const h = { 'x-mock-sandbox': name };
    const state = (await app.inject({ url: '/__admin/state', headers: h })).body;
    t.equal(state, before.get(name)!.state, `${name}: the same state export`, { diagnostic: false });
    const info = json(await app.inject({ url: `/__admin/sandboxes/${name}` }));
    const { journalEntries: _a, ...was } = before.get(name)!.info as Record<string, unknown>;
    const { journalEntries: _b, ...now } = info as Record<string, unknown>;
    t.same(now, was, `${name}: the same record (created at, scenario, clock)`, { diagnostic: false });
  }
  const s = sessions.get('ci-7')!;
  t.equal(
    (await app.inject({ url: '/mobile/tenant-info', headers: s.headers })).statusCode,
    200,
    'its session still opens',
  );
  t.equal(app.sandboxes.size, size, 'coming back made no new sandbox');

  // a cold one deleted loses its files; a kept one stays kept across a restart
  c.ms += 25 * hour;
  app.sandboxes.evictIdle(24 * hour);
  t.ok(app.sandboxes.isCold('ci-9'));
  t.equal((await app.inject({ method: 'DELETE', url: '/__admin/sandboxes/ci-9' })).statusCode, 200);
  t.notOk(existsSync(join(dir, 'ci-9.json')), 'its files are gone');
  t.notOk(app.sandboxes.has('ci-9'));
  await app.close();
  const again = await build(t, { data: dir, nowMs: c.nowMs });
  t.equal(again.sandboxes.find('ci-kept')?.kept, true, 'kept is in its settings');
  t.equal(again.sandboxes.find('ci-8')?.kept, false);
});
