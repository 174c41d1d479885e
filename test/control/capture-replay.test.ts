// A bug capture replays byte for byte (issue 46, finding 9): a sandbox arranged on one server, captured with
// GET /__admin/sandboxes/{name}/capture, applied on a server started on another day with another --now, answers
// every GET operation of the portal (enumerated from the OpenAPI document, with the inputs of
// test/support/valid-inputs.ts) with the same status, type and bytes, to the same arranged session.
import t from 'tap';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { accounts, build, json, signIn, tenants } from '../helper.js';
import { loadDoc, operations } from '../support/openapi.js';
import { makeCtx, validInputs } from '../support/valid-inputs.js';
import { AdminError, adminClient } from '../../src/client/control.js';
import { buildApp } from '../../src/app.js';
import type { ScenarioFile } from '../../src/schemas/scenario.js';

const sandbox = 'bug-7';
// every server of this file generates the smallest world (10 users a tenant, the flag's minimum): a capture pins the
// seed and the clock, not the size, so origin and replay must agree on it; what is replayed does not depend on it
const users = 10;
// both servers hand out addresses of the host the phone used: the same one, so absolute URLs compare
const host = { 'x-forwarded-host': 'portal.test', 'x-forwarded-proto': 'http' };

type Tap = { equal: Function };
type Answer = { status: number; type: string; body: string };
async function get(base: string, req: InjectOptions): Promise<Answer> {
  const res = await fetch(`${base}${String(req.url)}`, {
    headers: { ...(req.headers as Record<string, string>), ...host },
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
}

/** What the arranged bug is: a user's notifications, rejected tickets. */
async function arrange(t: Tap, app: FastifyInstance) {
  const admin = (method: InjectOptions['method'], url: string, payload?: object) =>
    app.inject({ method, url: `${url}${url.includes('?') ? '&' : '?'}sandbox=${sandbox}`, payload });
  const notifications = `/__admin/data/${tenants.romashka}/notifications`;
  for (const title of ['Payslip ready', 'Ticket rejected', 'Survey closes today'])
    t.equal((await admin('POST', notifications, { userId: accounts.admin.userId, title })).statusCode, 201, title);
  const tickets = `/__admin/data/${tenants.romashka}/wfTickets`;
  const mine = json(await admin('GET', `${tickets}?userId=${accounts.admin.userId}&limit=3`));
  for (const ticket of mine.records) {
    const patched = await admin('PATCH', `${tickets}/${ticket.id}`, { statusId: 3 });
    t.equal(patched.statusCode, 200, `ticket ${ticket.id} rejected`);
  }
}

t.test('a capture applied on a server started on another day answers every GET with the same bytes', async (t) => {
  const origin = await build(t, { users, now: '2026-03-02T09:00:00.000Z' });
  const replay = await build(t, { users, now: '2026-11-27T15:30:00.000Z', seed: 7 });
  const originUrl = await origin.listen({ port: 0, host: '127.0.0.1' });
  const replayUrl = await replay.listen({ port: 0, host: '127.0.0.1' });

  // arranged on the origin, its clock days after the seed: the session of the valid inputs, what their preparation
  // writes, and the bug itself
  const later = { advanceMs: 3 * 86_400_000 + 3_600_000 };
  t.equal(
    (await origin.inject({ method: 'PUT', url: `/__admin/clock?sandbox=${sandbox}`, payload: later })).statusCode,
    200,
  );
  const ctx = await makeCtx(origin, sandbox);
  await arrange(t, origin);
  const gets = operations(await loadDoc(origin)).filter((o) => o.method === 'GET' && !o.tags.includes('mock'));
  t.ok(gets.length >= 60, `${gets.length} GET operations of the portal`);
  const requests: Array<{ id: string; req: InjectOptions }> = [];
  for (const op of gets) {
    const req = await validInputs[op.operationId]!(ctx);
    // as the contract test sends them: an entry without headers of its own is a call of the signed-in session
    const own = req.headers && Object.keys(req.headers).length > 0;
    requests.push({ id: op.operationId, req: { ...req, headers: own ? req.headers : ctx.s.headers } });
  }

  const capture = await adminClient({ baseUrl: originUrl, sandbox }).capture();
  t.match(capture, {
    name: 'capture-bug-7',
    pin: { seed: 42, refDate: '2026-03-02T09:00:00.000Z', clock: { mode: 'frozen', at: '2026-03-05T10:00:00.000Z' } },
  });
  t.ok(capture.data!.length > 0, `${capture.data!.length} data entries`);

  // applied on the other server as a scenario defined inline (its seed and --now are another's)
  const applied = await replay.inject({
    method: 'PUT',
    url: `/__admin/scenario?sandbox=${sandbox}`,
    payload: { scenario: capture },
  });
  t.equal(applied.statusCode, 200, applied.body.slice(0, 300));
  t.same(json(await replay.inject({ url: `/__admin/clock?sandbox=${sandbox}` })).now, '2026-03-05T10:00:00.000Z');

  const differ: string[] = [];
  const refused: string[] = [];
  for (const { id, req } of requests) {
    const a = await get(originUrl, req);
    const b = await get(replayUrl, req);
    if (a.status >= 300) refused.push(`${id} ${a.status}`);
    if (a.status !== b.status || a.type !== b.type || a.body !== b.body)
      differ.push(`${id} ${req.url}: ${a.status} ${a.body.slice(0, 120)} | ${b.status} ${b.body.slice(0, 120)}`);
  }
  t.same(refused, [], 'every valid input answers 2xx on the origin');
  t.same(differ, [], `${requests.length} GET operations answer the same bytes on both servers`);
  const pushes = requests.find((r) => r.id === 'notificationsPushes')!;
  const shown = (await get(replayUrl, pushes.req)).body;
  t.match(shown, /Survey closes today/, `the arranged notifications are there: ${shown.slice(0, 600)}`);

  // a capture of the replay pins the same world: capturing again is stable
  const again = (await adminClient({ baseUrl: replayUrl, sandbox }).capture()) as ScenarioFile;
  t.same(again.pin, capture.pin, 'the replay captured again pins the same world');
});

t.test('a capture pins a real clock frozen at its instant; a reset goes back to the start world', async (t) => {
  const origin = await build(t, { users, now: undefined });
  const replay = await build(t, { users, now: '2027-01-10T00:00:00.000Z' });
  await origin.inject({ method: 'PUT', url: '/__admin/sandboxes/real-1' });
  const before = Date.now();
  const capture = json<ScenarioFile>(await origin.inject({ url: '/__admin/sandboxes/real-1/capture?as=real-bug' }));
  const after = Date.now();
  t.equal(capture.name, 'real-bug');
  t.equal(capture.pin!.clock.mode, 'frozen');
  const at = Date.parse(capture.pin!.clock.at);
  t.ok(at >= before && at <= after, 'frozen at the instant of the capture');
  t.equal(capture.pin!.refDate, `${new Date(before).toISOString().slice(0, 10)}T00:00:00.000Z`, 'the day it started');

  const put = await replay.inject({ method: 'PUT', url: '/__admin/scenarios/real-bug', payload: capture });
  t.equal(put.statusCode, 201, put.body.slice(0, 300));
  const made = await replay.inject({ method: 'PUT', url: '/__admin/sandboxes/r', payload: { scenario: 'real-bug' } });
  t.equal(made.statusCode, 201, made.body.slice(0, 300));
  t.equal(json(made).clock.mode, 'frozen');
  t.equal(json(made).now, capture.pin!.clock.at);
  const reset = await replay.inject({ method: 'POST', url: '/__admin/reset?sandbox=r' });
  t.equal(reset.statusCode, 200);
  t.equal(json(reset).now, '2027-01-10T00:00:00.000Z', 'a reset: the start scenario and clock of this server');
});

t.test('unknown sandbox: 404 and nothing made; a bad name: 400', async (t) => {
  const app = await build(t, { users });
  const missing = await app.inject({ url: '/__admin/sandboxes/bug-8/capture' });
  t.equal(missing.statusCode, 404);
  t.equal(json(missing).code, 'SANDBOX_NOT_FOUND');
  t.equal((await app.inject({ url: '/__admin/sandboxes/bug-8' })).statusCode, 404, 'not made by the read');
  t.equal((await app.inject({ url: '/__admin/sandboxes/default/capture?as=Bad_Name' })).statusCode, 400);
  const client = adminClient({ baseUrl: await app.listen({ port: 0, host: '127.0.0.1' }), sandbox: 'bug-9' });
  const err = await client.capture().catch((e: unknown) => e);
  t.ok(err instanceof AdminError && err.status === 404, 'the typed client: an AdminError 404');
  t.equal((await app.inject({ url: '/__admin/sandboxes/bug-9' })).statusCode, 404, 'not made by the client');
});

t.test('a capture whose data does not apply changes nothing: data, clock and scenario stay', async (t) => {
  const app = await build(t, { users });
  await app.inject({ method: 'PUT', url: '/__admin/sandboxes/keep' });
  const capture = json<ScenarioFile>(await app.inject({ url: '/__admin/sandboxes/keep/capture' }));
  const broken = {
    ...capture,
    name: 'broken-capture',
    pin: { ...capture.pin!, clock: { mode: 'frozen' as const, at: '2030-01-01T00:00:00.000Z' } },
    data: [{ patch: 'users' as const, id: 'no-such-user', set: { statusText: 'x' } }],
  };
  const before = json(await app.inject({ url: '/__admin/state?sandbox=keep' }));
  const res = await app.inject({ method: 'PUT', url: '/__admin/scenario?sandbox=keep', payload: { scenario: broken } });
  t.equal(res.statusCode, 422, res.body.slice(0, 200));
  t.same(json(await app.inject({ url: '/__admin/state?sandbox=keep' })), before, 'data, clock and scenario as before');
  t.equal((await app.inject({ url: '/__admin/scenarios/broken-capture' })).statusCode, 404, 'not defined either');
});

t.test('--max-worlds: unused base worlds are dropped, and past the bound with all in use a 429', async (t) => {
  const app = await build(t, { users, maxWorlds: 2 });
  const reset = (sandbox: string, seed: number) =>
    app.inject({ method: 'POST', url: `/__admin/reset?sandbox=${sandbox}`, payload: { seed } });
  await app.inject({ method: 'PUT', url: '/__admin/sandboxes/w1' });
  t.equal((await reset('w1', 1)).statusCode, 200, 'a second world (seed 1): within the bound');
  const refused = await reset('default', 2);
  t.equal(refused.statusCode, 429, 'a third while both are in use');
  t.match(json(refused).message, /2 base worlds are in use, the limit is 2 \(--max-worlds\)/);
  t.equal(json(await app.inject({ url: '/__admin/state' })).data.meta.seed, 42, 'the refused reset changed nothing');
  t.equal(app.worlds.size, 2);
  t.equal((await reset('w1', 42)).statusCode, 200, 'w1 back on the start world: seed 1 is no longer used');
  t.equal((await reset('default', 3)).statusCode, 200, 'so a new one fits: the unused one was dropped');
  t.equal(app.worlds.size, 2);
});

t.test('under --data a replayed capture survives a restart on yet another day', async (t) => {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'capture-data-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const origin = await build(t, { users, now: '2026-03-02T09:00:00.000Z' });
  const s = await makeCtx(origin, sandbox);
  await arrange(t, origin);
  const capture = json<ScenarioFile>(await origin.inject({ url: `/__admin/sandboxes/${sandbox}/capture` }));
  const pushes = { url: '/notifications/pushes?per-page=20', headers: s.s.headers };
  const want = (await origin.inject(pushes)).body;

  const first = await buildApp({ users, now: '2026-06-01T00:00:00.000Z', data: dir });
  const applied = await first.inject({
    method: 'PUT',
    url: `/__admin/scenario?sandbox=${sandbox}`,
    payload: { scenario: capture },
  });
  t.equal(applied.statusCode, 200, applied.body.slice(0, 200));
  t.equal((await first.inject(pushes)).body, want, 'replayed');
  await first.close();
  const again = await buildApp({ users, now: '2026-09-01T00:00:00.000Z', data: dir });
  t.teardown(() => again.close());
  t.equal((await again.inject(pushes)).body, want, 'the same bytes after a restart with another --now');
});

t.test('a --data directory using more base worlds than --max-worlds does not start, naming the limit', async (t) => {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'capture-worlds-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const first = await buildApp({ users, now: '2026-03-02T09:00:00.000Z', data: dir });
  await first.inject({ method: 'PUT', url: '/__admin/sandboxes/other-seed' });
  t.equal(
    (await first.inject({ method: 'POST', url: '/__admin/reset?sandbox=other-seed', payload: { seed: 5 } })).statusCode,
    200,
  );
  await first.close();
  await t.rejects(
    buildApp({ users, now: '2026-03-02T09:00:00.000Z', data: dir, maxWorlds: 1 }),
    /base worlds are in use, the limit is 1 \(--max-worlds\)/,
  );
  const again = await buildApp({ users, now: '2026-03-02T09:00:00.000Z', data: dir, maxWorlds: 2 });
  t.equal(json(await again.inject({ url: '/__admin/state?sandbox=other-seed' })).data.meta.seed, 5, 'within the bound');
  await again.close();
});

t.test("a capture keeps the scenario's tenant options, and the replay answers with them", async (t) => {
  const origin = await build(t, { users });
  const replay = await build(t, { users, now: '2026-11-27T15:30:00.000Z' });
  const set = await origin.inject({
    method: 'PUT',
    url: '/__admin/scenario?sandbox=opts',
    payload: {
      scenario: {
        name: 'no-wallet-ideas',
        description: 'wallet and ideas off',
        extends: 'wallet-disabled',
        tenantOptions: { enableIdeas: false },
      },
    },
  });
  t.equal(set.statusCode, 200, set.body.slice(0, 200));
  const capture = json<ScenarioFile>(await origin.inject({ url: '/__admin/sandboxes/opts/capture' }));
  t.same(capture.tenantOptions, { enableWallet: false, enableIdeas: false }, 'flattened: its own and what it extends');
  const replayed = await replay.inject({
    method: 'PUT',
    url: '/__admin/scenario?sandbox=r',
    payload: { scenario: capture },
  });
  t.equal(replayed.statusCode, 200, replayed.body.slice(0, 200));
  for (const [app, sandbox] of [
    [origin, 'opts'],
    [replay, 'r'],
  ] as const) {
    const s = await signIn(app, accounts.admin, { sandbox });
    const info = json(await app.inject({ url: '/mobile/tenant-info', headers: s.headers }));
    t.match(info.options, { enableWallet: false, enableIdeas: false }, `${sandbox}: the tenant's options as set`);
  }
});
