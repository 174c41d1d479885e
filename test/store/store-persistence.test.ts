// --data: an append-only log per sandbox and a compacted snapshot. Every acknowledged write survives SIGKILL at any
// moment; a torn last line is dropped with a warning; other damage stops start-up (exit 2); compaction keeps the state.
import t, { type Test } from 'tap';
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { accounts, build, json, signIn } from '../helper.js';
import { httpSignIn, start, startFails, type Child } from '../support/process.js';
import { waitFor } from '../support/wait.js';
import { tempDir } from '../support/temp-dir.js';

// 24 starts of the server: about 10 minutes on a 2-core machine with a load of 20+ (a guard against a hang only)
t.setTimeout(1_200_000);

// The files a refused or warned start reads are written by the app in-process (the same options as the CLI's flags:
// --users 20, --now): a start of the server costs about 1.2 s of CPU, and what these tests check is the start that
// reads the files, which stays the real process. The app writes each line as the process does and closes the log
// without compacting it.
const cliWorld = { users: 20, now: '2026-03-02T09:00:00.000Z' };

/** Ideas written by an app over `dir`, closed afterwards as a stopped process leaves its files. */
async function ideasWritten(t: Test, dir: string, titles: string[]): Promise<void> {
  const app = await build(t, { ...cliWorld, data: dir });
  const s = await signIn(app, accounts.admin, { deviceId: 'writer' });
  for (const title of titles) {
    const res = await app.inject({
      method: 'POST',
      url: '/idea/edit',
      headers: s.headers,
      payload: { title, description: 'd', idea_purpose_id: 1 },
    });
    t.equal(res.statusCode, 200, `idea ${title} written`);
  }
  await app.close();
}

/** The titles of the ideas of the default sandbox, as its export shows them after a restart. */
async function titlesOf(c: Child): Promise<Set<string>> {
  const state = (await (await fetch(`${c.base}/__admin/state`)).json()) as {
    data: { tenants: Record<string, { ideas: Array<{ title: string }> }> };
  };
  return new Set(Object.values(state.data.tenants).flatMap((tenant) => tenant.ideas.map((i) => i.title)));
}

t.test(
  '20 rounds of SIGKILL at random moments of a burst of writes: every acknowledged write is there after restart',
  async (t) => {
    const dir = tempDir(t, 'pm-rounds-');
    const args = ['--data', dir, '--users', '20', '--now', '2026-03-02T09:00:00Z'];
    let c = await start(args);
    t.teardown(() => {
      c.proc.kill('SIGKILL');
    });
    const acknowledged: string[] = [];
    for (let round = 0; round < 20; round++) {
      const headers = {
        ...(await httpSignIn(c.base, accounts.admin.email, `round-${round}`)),
        'content-type': 'application/json',
      };
      let stop = false;
      let n = 0;
      const worker = async () => {
        while (!stop) {
          const title = `r${round}-${n++}`;
          try {
            const res = await fetch(`${c.base}/idea/edit`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ title, description: 'd', idea_purpose_id: 1 }),
            });
            const body = await res.text();
            if (res.status === 200 && body.includes(title)) acknowledged.push(title);
          } catch {
            /* the process is gone */
          }
        }
      };
      const workers = Array.from({ length: 8 }, worker);
      // a random moment counted in acknowledged writes, not in time: on a busy machine 150 ms may see none; the
      // workers keep 8 writes in flight whenever it comes
      const killAfter = acknowledged.length + 5 + Math.floor(Math.random() * 26);
      let exited = false;
      void c.exited.then(() => {
        exited = true;
      });
      await waitFor(() => acknowledged.length >= killAfter || exited);
      c.proc.kill('SIGKILL');
      stop = true;
      await c.exited;
      await Promise.all(workers);
      c = await start(args);
      const titles = await titlesOf(c);
      const lost = acknowledged.filter((x) => !titles.has(x));
      if (lost.length > 0)
        t.fail(`round ${round}: ${lost.length} acknowledged writes lost: ${lost.slice(0, 5).join(', ')}`);
    }
    t.ok(acknowledged.length >= 100, `${acknowledged.length} writes acknowledged over 20 rounds, none lost`);
    c.proc.kill('SIGTERM');
    t.equal((await c.exited).code, 0);
  },
);

t.test('a torn last line is dropped with a warning naming the file and offset; the rest is replayed', async (t) => {
  const dir = tempDir(t, 'pm-torn-');
  const args = ['--data', dir, '--users', '20', '--now', '2026-03-02T09:00:00Z'];
  await ideasWritten(t, dir, ['kept-before-tear']);
  const log = join(dir, 'default.log');
  const whole = statSync(log).size;
  appendFileSync(log, '{"n":999,"seq":12,"ops":[["i","x","ideas",{"title":"half');
  const again = await start([...args, '--log-level', 'warn']);
  t.teardown(() => {
    again.proc.kill('SIGKILL');
  });
  t.match(again.out(), new RegExp(`default\\.log: dropped a torn last line at byte ${whole}`));
  t.equal(statSync(log).size, whole, 'the torn bytes are cut from the file');
  t.ok((await titlesOf(again)).has('kept-before-tear'));
});

t.test('a damaged line before the last one stops start-up with exit 2 and leaves the file as it was', async (t) => {
  const dir = tempDir(t, 'pm-damaged-');
  const args = ['--data', dir, '--users', '20', '--now', '2026-03-02T09:00:00Z'];
  await ideasWritten(t, dir, ['one', 'two']);
  const log = join(dir, 'default.log');
  const lines = readFileSync(log, 'utf8').split('\n');
  lines[1] = lines[1]!.slice(0, 20);
  const damaged = lines.join('\n');
  writeFileSync(log, damaged);
  const refused = await startFails(args);
  t.equal(refused.code, 2);
  t.match(refused.out, /default\.log: line 2 \(byte \d+\) is damaged/);
  t.match(refused.out, /move it away or delete it/);
  t.equal(readFileSync(log, 'utf8'), damaged, 'never silently replaced');
});

t.test('compaction folds the log into the snapshot; a restart gives the same data', async (t) => {
  const dir = tempDir(t, 'pm-compact-');
  const options = { data: dir, now: '2026-03-02T09:00:00.000Z' };
  const app = await build(t, options);
  const s = await signIn(app, accounts.admin, { deviceId: 'compact' });
  // four uploads of 300 KB: the log passes the 1 MB at which compaction starts
  for (let i = 0; i < 4; i++) {
    const prep = json(
      await app.inject({
        method: 'POST',
        url: '/file/prepare-upload',
        headers: s.headers,
        payload: { name: `big-${i}.bin`, size: 300_000, is_public: false },
      }),
    );
    const upload = new URL(prep.uploadUrl);
    const put = await app.inject({
      method: 'PUT',
      url: upload.pathname + upload.search,
      headers: { 'content-type': 'application/octet-stream' },
      payload: Buffer.alloc(300_000, i),
    });
    t.equal(put.statusCode, 200);
  }
  const snapshot = join(dir, 'default.json');
  const log = join(dir, 'default.log');
  // compaction runs in the background: the snapshot is renamed into place, then the log is cut
  const upTo = () => (JSON.parse(readFileSync(snapshot, 'utf8')) as { upTo: number }).upTo;
  await waitFor(() => upTo() > 0 && statSync(log).size < 1024 * 1024);
  const doc = JSON.parse(readFileSync(snapshot, 'utf8')) as { format: string; upTo: number };
  t.equal(doc.format, 'portal-mock-sandbox');
  t.ok(doc.upTo > 0, `the snapshot covers the log up to line ${doc.upTo}`);
  t.ok(statSync(log).size < 1024 * 1024, 'the log holds only what the snapshot does not');
  await app.inject({
    method: 'POST',
    url: '/account/status-text',
    headers: s.headers,
    payload: { activeTypes: 'after compaction' },
  });
  const before = (await app.inject({ url: '/__admin/state' })).body;
  await app.close();
  const again = await build(t, options);
  t.equal((await again.inject({ url: '/__admin/state' })).body, before, 'snapshot + log replay to the same export');
});

t.test('a data directory of another base world is refused (exit 2), not replayed onto the wrong records', async (t) => {
  const dir = tempDir(t, 'pm-world-');
  await ideasWritten(t, dir, []);
  const refused = await startFails(['--data', dir, '--users', '30', '--now', '2026-03-02T09:00:00Z']);
  t.equal(refused.code, 2);
  t.match(refused.out, /default\.json: written for another base world/);
});
