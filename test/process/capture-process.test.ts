// A bug capture between two built servers (dist/portal-mock.mjs, `npm run build` first) started on different days:
// the capture file is given to the second with --scenarios DIR --scenario NAME, so its default sandbox is the
// captured one, and the tester's session headers read the same bytes from it.
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accounts, tenants } from '../helper.js';
import { httpSignIn, start } from '../support/process.js';

t.test('--scenario with a capture file: another day, the same answers', async (t) => {
  const origin = await start(['--now', '2026-03-02T09:00:00Z']);
  t.teardown(() => origin.proc.kill('SIGKILL'));
  const headers = await httpSignIn(origin.base, accounts.admin.email, 'phone-bug-7', 'bug-7');
  const notify = await fetch(`${origin.base}/__admin/data/${tenants.romashka}/notifications?sandbox=bug-7`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userId: accounts.admin.userId, title: 'Ticket rejected' }),
  });
  t.equal(notify.status, 201);
  const capture = await fetch(`${origin.base}/__admin/sandboxes/bug-7/capture`);
  t.equal(capture.status, 200);
  t.match(capture.headers.get('content-disposition'), /filename="capture-bug-7\.json"/);
  const dir = mkdtempSync(join(tmpdir(), 'capture-process-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'capture-bug-7.json'), await capture.text());

  const replay = await start([
    '--now',
    '2027-01-15T18:45:00Z',
    '--seed',
    '9',
    '--scenarios',
    dir,
    '--scenario',
    'capture-bug-7',
  ]);
  t.teardown(() => replay.proc.kill('SIGKILL'));
  const { 'x-mock-sandbox': _sandbox, ...session } = headers;
  const host = { 'x-forwarded-host': 'portal.test' };
  const urls = [
    '/notifications/pushes?per-page=30',
    '/dashboard?widgets=myTeam,updBirthday&info=profileBrief,notificationsBadge',
    '/workflow-ticket?per-page=20',
    `/user/profile?id=${accounts.admin.userId}`,
    '/mobile/tenant-info',
  ];
  for (const url of urls) {
    const a = await fetch(origin.base + url, { headers: { ...headers, ...host } });
    const b = await fetch(replay.base + url, { headers: { ...session, ...host } });
    const [bodyA, bodyB] = [await a.text(), await b.text()];
    t.equal(a.status, 200, `${url} on the origin`);
    t.equal(b.status, a.status, `${url}: the same status`);
    t.ok(bodyA === bodyB, `${url}: the same ${bodyA.length} bytes`);
  }
});
