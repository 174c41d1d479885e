// Faults after the commit: the handler runs and its write is committed, then the answer is lost or broken, so an
// app's retry meets a change that already happened. Real sockets throughout: inject has no connection to drop.
import t from 'tap';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { accounts, build, json, signIn, type Session } from '../helper.js';
import { ScenarioRegistry } from '../../src/scenarios/registry.js';

type Entry = {
  id: number;
  operationId: string | null;
  status: number;
  fault?: string;
  afterCommit?: boolean;
  scenario: string | null;
};

const dirWith = (files: Record<string, unknown>) => {
  const dir = mkdtempSync(join(tmpdir(), 'pm-after-'));
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), JSON.stringify(body));
  return dir;
};
const faultScenarios = dirWith(
  Object.fromEntries(
    ['reset', 'empty', 'truncated'].flatMap((kind) => [
      [
        `${kind}-after.json`,
        {
          name: `${kind}-after`,
          description: kind,
          faults: [{ operations: ['feedbackAdd'], kind, phase: 'after-commit' }],
        },
      ],
      [
        `${kind}-before.json`,
        { name: `${kind}-before`, description: kind, faults: [{ operations: ['feedbackAdd'], kind }] },
      ],
    ]),
  ),
);

/** POST /feedback/add over the socket; the body is read whole, so a truncated answer rejects too. */
const addFeedback = async (address: string, s: Session, text: string, scenario?: string) => {
  const res = await fetch(`${address}/feedback/add`, {
    method: 'POST',
    body: JSON.stringify({ type: 'user', id: accounts.noRights.userId, score: 4, text }),
    headers: { ...s.headers, 'content-type': 'application/json', ...(scenario ? { 'x-mock-scenario': scenario } : {}) },
  });
  return { status: res.status, body: (await res.json()) as { success: boolean } };
};
const feedbackWith = (app: FastifyInstance, s: Session, text: string) =>
  app.sandboxes
    .get('default')
    .store.tenant(s.tenantId)!
    .feedback.filter((f) => f.text === text);
const journal = async (app: FastifyInstance) =>
  json<Entry[]>(await app.inject({ url: '/__admin/requests?operationId=feedbackAdd' }));

t.test('a retry after an answer lost after the commit creates a second record', async (t) => {
  const app = await build(t, { scenarios: [faultScenarios] });
  const s = await signIn(app);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  // what the client sees: a reset connection, a connection closed with no reply, a body that breaks off
  const seen = { reset: 'ECONNRESET', empty: 'UND_ERR_SOCKET', truncated: 'UND_ERR_SOCKET' };
  for (const kind of ['reset', 'empty', 'truncated'] as const) {
    const text = `retried after ${kind}`;
    // the app's first attempt: the write happens, the answer does not arrive whole
    await t.rejects(
      addFeedback(address, s, text, `${kind}-after`),
      { cause: { code: seen[kind] } },
      `${kind}: the client gets no usable answer`,
    );
    t.equal(feedbackWith(app, s, text).length, 1, `${kind}: yet the feedback was stored`);
    // the app retries the same POST, which succeeds
    const retry = await addFeedback(address, s, text);
    t.match(retry, { status: 200, body: { success: true } }, `${kind}: the retry succeeds`);
    t.equal(feedbackWith(app, s, text).length, 2, `${kind}: two records, as the real portal would have`);
    const [second, first] = await journal(app);
    t.match(
      first,
      { operationId: 'feedbackAdd', status: 200, fault: kind, afterCommit: true, scenario: `${kind}-after` },
      `${kind}: the lost answer is marked in the journal`,
    );
    t.match(second, { operationId: 'feedbackAdd', status: 200, scenario: 'default' });
    t.notOk(second!.fault ?? second!.afterCommit, 'the retry carries no fault');
    const duplicates = json<Array<{ code: string; requestId: number }>>(
      await app.inject({ url: '/__admin/findings?code=retry-created-duplicate' }),
    );
    t.ok(
      duplicates.some((f) => f.requestId === second!.id),
      `${kind}: findings name the retry that created a second record`,
    );
  }
});

t.test('control: a fault before the handler (the default phase) writes nothing', async (t) => {
  const app = await build(t, { scenarios: [faultScenarios] });
  const s = await signIn(app);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  for (const kind of ['reset', 'empty']) {
    await t.rejects(addFeedback(address, s, `before ${kind}`, `${kind}-before`));
    t.equal(feedbackWith(app, s, `before ${kind}`).length, 0, `${kind} before the handler: nothing stored`);
  }
  const entries = await journal(app);
  t.match(entries, [
    { status: 0, fault: 'empty', afterCommit: false },
    { status: 0, fault: 'reset', afterCommit: false },
  ]);
  // truncated has no "before": its half body is the handler's answer, so it is marked after-commit
  await t.rejects(addFeedback(address, s, 'truncated default', 'truncated-before'));
  t.equal(feedbackWith(app, s, 'truncated default').length, 1);
  t.match((await journal(app))[0], { fault: 'truncated', afterCommit: true });
});

t.test('the lost write is durable: it is in the --data log and survives a restart', async (t) => {
  const data = mkdtempSync(join(tmpdir(), 'pm-after-data-'));
  const app = await build(t, { scenarios: [faultScenarios], data });
  const s = await signIn(app);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  await t.rejects(addFeedback(address, s, 'durable but unanswered', 'reset-after'));
  t.match(
    readFileSync(join(data, 'default.log'), 'utf8'),
    /durable but unanswered/,
    'logged before the connection was reset',
  );
  await app.close();
  const again = await build(t, { data });
  t.equal(feedbackWith(again, s, 'durable but unanswered').length, 1, 'there after a restart');
});

t.test('the HAR export says the answer was lost after the commit', async (t) => {
  const app = await build(t, { scenarios: [faultScenarios] });
  const s = await signIn(app);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  await t.rejects(addFeedback(address, s, 'har', 'reset-after'));
  const har = json<{ log: { entries: Array<{ comment: string }> } }>(
    await app.inject({ url: '/__admin/requests?format=har&operationId=feedbackAdd' }),
  );
  t.match(har.log.entries[0]!.comment, /fault reset after the commit/);
});

t.test('a phase that does not fit the fault kind stops the scenario load with a clear message', async (t) => {
  const ops = new Set(['feedbackAdd']);
  for (const kind of ['truncated', 'malformed']) {
    const dir = dirWith({ 'x.json': { name: 'x', description: 'd', faults: [{ kind, phase: 'before' }] } });
    t.throws(
      () => new ScenarioRegistry([dir], ops),
      new RegExp(`x\\.json: at /faults/0/phase: a ${kind} answer is one the handler made`),
    );
  }
  const dir = dirWith({ 'x.json': { name: 'x', description: 'd', faults: [{ kind: 'reset', phase: 'later' }] } });
  t.throws(() => new ScenarioRegistry([dir], ops), /x\.json: at \/faults\/0\/phase/);
});

/** N feedback creates over the socket in lost-answers; answers which were lost. */
async function lostAnswersRun(
  t: { teardown(fn: () => unknown): void },
  seed: number,
  n: number,
): Promise<{ lost: number[]; app: FastifyInstance; s: Session }> {
  const app = await build(t, { seed, scenario: 'lost-answers' });
  const s = await signIn(app);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const lost: number[] = [];
  for (let i = 0; i < n; i++) {
    try {
      await addFeedback(address, s, `create ${i}`);
    } catch {
      lost.push(i);
    }
  }
  return { lost, app, s };
}

t.test(
  'lost-answers: some creates lose their answer, every one was stored, and a seed replays the same losses',
  async (t) => {
    const n = 30;
    const first = await lostAnswersRun(t, 7, n);
    t.ok(first.lost.length > 0 && first.lost.length < n, `some answers lost: ${first.lost.join(', ')}`);
    for (let i = 0; i < n; i++)
      t.equal(feedbackWith(first.app, first.s, `create ${i}`).length, 1, `create ${i} stored once`);
    const marked = (await journal(first.app)).filter((e) => e.afterCommit).map((e) => e.fault);
    t.equal(marked.length, first.lost.length, 'each lost answer is marked in the journal');
    t.ok(marked.every((f) => f === 'reset' || f === 'empty'));
    // the shipped file acts after the commit on the four create operations only
    const faults = first.app.scenarios.get('lost-answers')!.faults!;
    t.ok(faults.every((f) => f.phase === 'after-commit'));
    t.same(
      new Set(faults.flatMap((f) => f.operations)),
      new Set(['workflowStart', 'ideaEdit', 'feedbackAdd', 'calendarEventRequestCreate']),
    );
    const again = await lostAnswersRun(t, 7, n);
    t.same(again.lost, first.lost, 'the same seed and requests lose the same answers');
    const other = await lostAnswersRun(t, 8, n);
    t.not(other.lost.join(), first.lost.join(), 'another seed loses others');
  },
);
