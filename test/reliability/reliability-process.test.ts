// The real process (node dist/portal-mock.mjs, built by `npm run build`) with --data: acknowledged changes are on disk,
// a SIGKILL in the middle of a burst of writes loses none of them, a corrupt or hand-edited data file stops
// start-up with exit 2 and is never replaced, SIGTERM under load finishes in-flight requests and exits 0.
import t from 'tap';
import { mkdtempSync, readFileSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accounts } from '../helper.js';
import { start, startFails, httpSignIn, serverJs } from '../support/process.js';
import { waitFor } from '../support/wait.js';

// the titles of ideas in the default sandbox's files (its snapshot and its log of changes)
const ideaTitles = (dir: string): Set<string> => {
  const text = ['default.json', 'default.log']
    .map((f) => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8') : ''))
    .join('\n');
  return new Set([...text.matchAll(/"title":\s*"([^"]*)"/g)].map((m) => m[1]!));
};

t.test('the built server exists', async (t) => {
  t.ok(existsSync(serverJs), 'dist/portal-mock.mjs (run npm run build first)');
});

t.test('SIGKILL in the middle of a burst of writes loses no acknowledged change', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pm-kill-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const c = await start(['--data', dir, '--users', '20']);
  t.teardown(() => {
    c.proc.kill('SIGKILL');
  });
  const headers = {
    ...(await httpSignIn(c.base, accounts.admin.email, 'kill-device')),
    'content-type': 'application/json',
  };
  // one acknowledged change is on disk before the reply
  const first = await fetch(`${c.base}/idea/edit`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ title: 'before-burst', description: 'd', idea_purpose_id: 1 }),
  });
  t.equal(first.status, 200);
  t.ok(ideaTitles(dir).has('before-burst'), 'an acknowledged change is in the file when the reply arrives');

  const acknowledged: string[] = [];
  let n = 0;
  let killed = false;
  const worker = async () => {
    while (!killed) {
      const title = `burst-${n++}`;
      try {
        const res = await fetch(`${c.base}/idea/edit`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ title, description: 'd', idea_purpose_id: 1 }),
        });
        if (res.status === 200) {
          await res.arrayBuffer();
          acknowledged.push(title);
        }
      } catch {
        /* the process is gone */
      }
    }
  };
  const workers = Array.from({ length: 16 }, worker);
  let exited = false;
  void c.exited.then(() => {
    exited = true;
  });
  await waitFor(() => acknowledged.length >= 60 || exited);
  c.proc.kill('SIGKILL');
  killed = true;
  await c.exited;
  await Promise.all(workers);
  t.ok(acknowledged.length >= 60, `${acknowledged.length} writes acknowledged before SIGKILL`);

  const again = await start(['--data', dir, '--users', '20']);
  t.teardown(() => {
    again.proc.kill('SIGKILL');
  });
  const titles = ideaTitles(dir);
  const lost = acknowledged.filter((x) => !titles.has(x));
  t.same(lost, [], 'every acknowledged change survived the SIGKILL and the restart');
  const health = await fetch(`${again.base}/__admin/health`);
  t.equal(health.status, 200, 'restarted on the same files');
  again.proc.kill('SIGTERM');
  t.equal((await again.exited).code, 0);
});

t.test('a corrupt or hand-edited data file is refused at start and never replaced', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pm-corrupt-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'default.json');
  writeFileSync(file, '{"meta": {"schemaVersion": 1, "seed": 4');
  const truncated = await startFails(['--data', dir]);
  t.equal(truncated.code, 2, 'exit 2 on a truncated file');
  t.match(truncated.out, /default\.json.*not valid JSON.*move it away or delete it/s);
  t.equal(readFileSync(file, 'utf8'), '{"meta": {"schemaVersion": 1, "seed": 4', 'the file is left as it was');

  writeFileSync(
    file,
    JSON.stringify({
      meta: { schemaVersion: 1, seed: 42, refDate: '2026-03-02T09:00:00.000Z', sequence: -1 },
      tenants: {},
    }),
  );
  const edited = await startFails(['--data', dir]);
  t.equal(edited.code, 2, 'exit 2 on a file that does not validate');
  t.match(edited.out, /default\.json/);
  t.match(edited.out, /sequence/, 'names what is wrong');
  rmSync(file);
  const fresh = await start(['--data', dir, '--users', '20']);
  t.teardown(() => {
    fresh.proc.kill('SIGKILL');
  });
  t.equal((await fetch(`${fresh.base}/__admin/health`)).status, 200, 'moving the file away starts that sandbox fresh');
  await httpSignIn(fresh.base, accounts.admin.email, 'fresh-device');
  t.ok(existsSync(file), 'its first write makes a new data file');
  fresh.proc.kill('SIGTERM');
  t.equal((await fresh.exited).code, 0);
});

t.test('SIGTERM under load: in-flight requests finish, data is flushed, exit 0 in bounded time', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pm-term-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // info: Fastify logs each request's arrival ("incoming request"), which tells when all 40 are in flight
  const c = await start(['--data', dir, '--users', '20', '--log-level', 'info', '--log-format', 'json']);
  t.teardown(() => {
    c.proc.kill('SIGKILL');
  });
  const headers = {
    ...(await httpSignIn(c.base, accounts.admin.email, 'term-device')),
    'content-type': 'application/json',
  };
  const results = Array.from({ length: 40 }, (_v, i) =>
    fetch(`${c.base}/idea/edit`, {
      method: 'POST',
      headers: { ...headers, 'x-mock-scenario': 'slow-network' },
      body: JSON.stringify({ title: `term-${i}`, description: 'd', idea_purpose_id: 1 }),
    }).then(
      async (r) => ({ i, status: r.status, body: await r.text() }),
      (err: Error) => ({ i, status: 0, body: err.message }),
    ),
  );
  // slow-network holds each request 0.1–3 s in an onRequest hook, after Fastify logged its arrival: once the 40
  // arrivals are logged, all 40 are in flight when SIGTERM comes
  const arrived = (out: string) =>
    out.split('\n').filter((line) => line.includes('"url":"/idea/edit"') && line.includes('"msg":"incoming request"'))
      .length;
  await Promise.race([c.waitForOutput((out) => arrived(out) >= 40), Promise.all(results)]); // (all failed: no wait)
  c.proc.kill('SIGTERM');
  const settled = await Promise.all(results);
  const { code } = await c.exited;
  // the bound is the server's own: a stop that takes longer than 10 s exits 1 (src/server.ts)
  t.equal(code, 0, 'exit 0');
  const ok = settled.filter((r) => r.status === 200).map((r) => `term-${r.i}`);
  const broken = settled.filter((r) => r.status !== 200);
  t.same(broken, [], 'every in-flight request is answered 200');
  t.comment(`statuses: ${JSON.stringify(settled.map((r) => r.status))}`);
  t.equal(ok.length, 40, `${ok.length} of 40 in-flight writes acknowledged`);
  const titles = ideaTitles(dir);
  t.same(
    ok.filter((x) => !titles.has(x)),
    [],
    'every acknowledged write is in the file after the stop',
  );
});
