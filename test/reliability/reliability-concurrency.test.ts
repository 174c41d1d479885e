// Concurrency through a real socket: hundreds of simultaneous state changes lose nothing, counters and lists agree,
// and sandboxes under concurrent use stay isolated.
import t from 'tap';
import { accounts, build, tenants } from '../helper.js';
import { httpSignIn } from '../support/process.js';
import { IdeaStatusCode } from '../../src/schemas/ideas.js';

t.test('simultaneous state changes over HTTP', async (t) => {
  const app = await build(t);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const data = () => app.sandboxes.get('default').store.tenant(tenants.romashka)!;
  const admin = { ...(await httpSignIn(base, accounts.admin.email, 'conc-admin')), 'content-type': 'application/json' };
  const post = (path: string, body: unknown, headers: Record<string, string> = admin) =>
    fetch(base + path, {
      method: 'POST',
      headers:
        body === undefined
          ? Object.fromEntries(Object.entries(headers).filter(([k]) => k !== 'content-type'))
          : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  // 1. idea votes from 40 accounts at once
  const voters = data()
    .users.filter((u) => u.state === 'active' && !u.twoFactor && u.id !== accounts.admin.userId)
    .slice(0, 40);
  const sessions = await Promise.all(voters.map((u, i) => httpSignIn(base, u.email, `voter-${i}`)));
  const idea = data().ideas.find(
    (i) =>
      i.statusId !== IdeaStatusCode.moderation &&
      i.statusId !== IdeaStatusCode.rejected &&
      voters.every((v) => !i.voterIds.includes(v.id)),
  )!;
  const votesBefore = idea.voterIds.length;
  const votes = await Promise.all(sessions.map((h) => post(`/idea/vote?id=${idea.id}`, undefined, h)));
  t.same(
    votes.filter((v) => v.status !== 200),
    [],
    '40 votes answered 200',
  );
  const view = await fetch(`${base}/idea/view?id=${idea.id}`, { headers: admin }).then((r) => r.json() as Promise<any>);
  t.equal(
    data().ideas.find((i) => i.id === idea.id)!.voterIds.length,
    votesBefore + 40,
    'every vote counted in the store',
  );
  t.equal(new Set(idea.voterIds).size, idea.voterIds.length, 'no voter twice');
  t.equal(JSON.stringify(view).includes(String(votesBefore + 40)), true, 'the view shows the same count');

  // 2. 150 tickets at once, in two sandboxes at the same time
  const process = data().wfProcesses[0]!;
  const fieldValues = Object.fromEntries(
    process.fields
      .filter((f) => f.required)
      .map((f) => [
        f.id,
        (
          {
            select: f.values[0],
            date: '2026-04-01',
            number: '3',
            checkbox: 'true',
            file: '00000000-0000-4000-8000-000000000001',
          } as Record<string, string | undefined>
        )[f.type] ?? 'text',
      ]),
  );
  const adminB = {
    ...(await httpSignIn(base, accounts.admin.email, 'conc-admin-b', 'conc-b')),
    'content-type': 'application/json',
  };
  const ticketsBefore = data().wfTickets.length;
  const ticketsBeforeB = app.sandboxes.get('conc-b').store.tenant(tenants.romashka)!.wfTickets.length;
  const [a, b] = await Promise.all([
    Promise.all(Array.from({ length: 150 }, () => post(`/workflow/start/${process.id}`, { fieldValues }))),
    Promise.all(Array.from({ length: 60 }, () => post(`/workflow/start/${process.id}`, { fieldValues }, adminB))),
  ]);
  t.same(
    [...a, ...b].filter((r) => r.status !== 201).map((r) => r.body),
    [],
    '210 tickets created (201)',
  );
  t.equal(new Set(a.map((r) => r.body.id)).size, 150, '150 distinct ticket ids');
  t.equal(data().wfTickets.length, ticketsBefore + 150, 'default sandbox holds exactly its 150 new tickets');
  t.equal(
    app.sandboxes.get('conc-b').store.tenant(tenants.romashka)!.wfTickets.length,
    ticketsBeforeB + 60,
    'sandbox conc-b holds exactly its 60',
  );
  const list = await fetch(`${base}/workflow-ticket/?per-page=1`, { headers: admin }).then(
    (r) => r.json() as Promise<any>,
  );
  t.ok(JSON.stringify(list).length > 0, 'the ticket list answers after the burst');

  // 3. mark-seen of 100 notifications at once
  const unseen = data()
    .notifications.filter((n) => n.userId === accounts.admin.userId && n.seenAt === null)
    .slice(0, 100);
  const marks = await Promise.all(
    unseen.map((n) => post(`/notifications/mark-seen?notificationId=${n.id}`, undefined)),
  );
  t.same(
    marks.filter((m) => m.status !== 200),
    [],
    `${unseen.length} mark-seen answered 200`,
  );
  t.ok(
    unseen.every((n) => data().notifications.find((x) => x.id === n.id)!.seenAt !== null),
    'every one is seen in the store',
  );

  // 4. 200 wallet credits of 1 at once to one user
  await post('/user-list-cache/set-user-list', { key: 'conc-pay', userList: { usersId: [accounts.noRights.userId] } });
  const wallet = data().wallets.find((w) => w.userId === accounts.noRights.userId)!;
  const balance = wallet.balance;
  const txBefore = data().walletTransactions.length;
  const credits = await Promise.all(
    Array.from({ length: 200 }, (_v, i) =>
      post('/admin/wallet-transaction/create', {
        usersListKey: 'conc-pay',
        amount: 1,
        operation_type_id: 1,
        comment: `c${i}`,
      }),
    ),
  );
  t.same(credits.filter((c) => c.status !== 200 || c.body.success === false).slice(0, 3), [], '200 credits accepted');
  t.equal(
    data().wallets.find((w) => w.userId === accounts.noRights.userId)!.balance,
    balance + 200,
    'balance grew by exactly 200',
  );
  t.equal(data().walletTransactions.length, txBefore + 200, 'exactly 200 transactions recorded');

  // 5. 40 uploads at once: prepare → PUT → finish
  const filesBefore = data().files.length;
  const uploads = await Promise.all(
    Array.from({ length: 40 }, async (_v, i) => {
      const p = await post('/file/prepare-upload', { name: `c${i}.txt`, is_public: false });
      const put = await fetch(p.body.uploadUrl, {
        method: 'PUT',
        headers: { 'content-type': 'text/plain' },
        body: `content ${i}`,
      });
      await put.arrayBuffer();
      return post(`/file/finish-upload?id=${p.body.id}`, undefined);
    }),
  );
  t.same(
    uploads.filter((u) => u.status !== 200).map((u) => u.body),
    [],
    '40 uploads finished',
  );
  t.equal(data().files.length, filesBefore + 40, '40 new files in the store');
  const count = await fetch(`${base}/file/count`, { headers: admin }).then((r) => r.json() as Promise<any>);
  t.ok(count, 'file count answers');
});
