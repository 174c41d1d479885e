import t from 'tap';
import { accounts, build, expectError, json, signIn, sharedApp, tenants } from '../helper.js';
import { moderationIndex } from '../../src/domain/moderation.js';
import type { DomainContext } from '../../src/domain/context.js';
import { IdeaStatusCode } from '../../src/schemas/ideas.js';
import type { Tenant } from '../../src/store/store.js';

// one app for the file's tests, each in a sandbox of its own
const ownSandbox = sharedApp(t);

const uuidZero = '00000000-0000-4000-8000-000000000000';

t.test('queue: moderators see pending ideas and comments, others nothing', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const admin = await signIn(app, accounts.admin, { sandbox });
  const petr = await signIn(app, accounts.noRights, { sandbox });
  const q = json(await inject({ url: '/moderation', headers: admin.headers }));
  t.equal(q.count, 6, 'three ideas and three comments seeded');
  t.same(q.data.map((i: { type: string }) => i.type).sort(), ['comment', 'comment', 'comment', 'idea', 'idea', 'idea']);
  t.match(q.data[0], {
    id: String,
    title: String,
    text: String,
    idea_id: String,
    user: { id: String, name: String },
    url: /pages\/idea/,
  });
  t.same(json(await inject({ url: '/moderation', headers: petr.headers })), { count: 0, data: [] });
  const nw = json(
    await inject({ url: '/moderation', headers: (await signIn(app, accounts.nwAdmin, { sandbox })).headers }),
  );
  t.equal(nw.count, 6);
  t.notOk(
    nw.data.some((i: { id: string }) => q.data.some((j: { id: string }) => j.id === i.id)),
    "only the caller's tenant",
  );

  const one = json(await inject({ url: `/moderation?id=${q.data[0].id}`, headers: admin.headers }));
  t.equal(one.count, 1);
  t.equal(one.data[0].id, q.data[0].id);
  expectError(t, await inject({ url: `/moderation?id=${uuidZero}`, headers: admin.headers }), 404);
  expectError(t, await inject({ url: `/moderation?id=${q.data[0].id}`, headers: petr.headers }), 404);
  expectError(t, await inject({ url: '/moderation?id=bad', headers: admin.headers }), 400);
  expectError(t, await inject({ url: '/moderation' }), 401);
});

t.test('accept publishes an idea for everyone; reject gives it the status rejected', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const admin = await signIn(app, accounts.admin, { sandbox });
  const petr = await signIn(app, accounts.noRights, { sandbox });
  const other = await signIn(app, accounts.twoFactor, { sandbox });
  const mk = async (title: string) =>
    json(
      await inject({
        method: 'POST',
        url: '/idea/edit',
        headers: petr.headers,
        payload: { title, description: 'D', idea_purpose_id: 3 },
      }),
    );
  const a = await mk('Accept me');
  const b = await mk('Reject me');
  const q = json(await inject({ url: '/moderation', headers: admin.headers }));
  t.ok(q.data.some((i: { id: string }) => i.id === a.id) && q.data.some((i: { id: string }) => i.id === b.id));

  const acc = await inject({
    method: 'POST',
    url: '/moderation/accept',
    headers: admin.headers,
    payload: { ids: [a.id] },
  });
  t.match(json(acc), { success: true, message: 'Одобрено: 1' });
  const seen = json(await inject({ url: '/idea/index', headers: other.headers })).data;
  t.match(
    seen.find((i: { id: string }) => i.id === a.id),
    { idea_status_id: 2 },
    'visible to everyone',
  );
  t.match(json(await inject({ url: `/idea/view?id=${a.id}`, headers: other.headers })), {
    moderated_at: '2026-03-02T09:00:00.000Z',
  });

  const rej = await inject({ method: 'POST', url: '/moderation/reject', headers: admin.headers, payload: [b.id] });
  t.match(json(rej), { success: true, message: 'Отклонено: 1' });
  t.match(json(await inject({ url: `/idea/view?id=${b.id}`, headers: petr.headers })), {
    idea_status_id: 7,
    status: { name: 'Отклонена' },
  });
  const after = json(await inject({ url: '/moderation', headers: admin.headers }));
  t.notOk(
    after.data.some((i: { id: string }) => i.id === a.id || i.id === b.id),
    'both left the queue',
  );
  t.equal(after.count, q.count - 2);

  expectError(
    t,
    await inject({ method: 'POST', url: '/moderation/accept', headers: admin.headers, payload: { ids: [a.id] } }),
    404,
  ); // already decided
});

t.test('accepting a comment shows it on its idea', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const admin = await signIn(app, accounts.admin, { sandbox });
  const q = json(await inject({ url: '/moderation', headers: admin.headers }));
  const comment = q.data.find((i: { type: string }) => i.type === 'comment');
  const before = json(await inject({ url: `/idea/view?id=${comment.idea_id}`, headers: admin.headers }));
  t.notOk(before.comments.some((c: { id: string }) => c.id === comment.id));
  t.equal(
    json(
      await inject({
        method: 'POST',
        url: '/moderation/accept',
        headers: admin.headers,
        payload: { ids: [comment.id] },
      }),
    ).success,
    true,
  );
  const after = json(await inject({ url: `/idea/view?id=${comment.idea_id}`, headers: admin.headers }));
  t.ok(after.comments.some((c: { id: string }) => c.id === comment.id));
  t.equal(after.commentsCount, before.commentsCount + 1);
});

t.test('accept/reject errors', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const admin = await signIn(app, accounts.admin, { sandbox });
  const petr = await signIn(app, accounts.noRights, { sandbox });
  const q = json(await inject({ url: '/moderation', headers: admin.headers }));
  const id = q.data[0].id;
  expectError(
    t,
    await inject({ method: 'POST', url: '/moderation/accept', headers: petr.headers, payload: { ids: [id] } }),
    403,
  );
  const missing = expectError(
    t,
    await inject({
      method: 'POST',
      url: '/moderation/reject',
      headers: admin.headers,
      payload: { ids: [id, uuidZero] },
    }),
    404,
  );
  t.match(missing.message, uuidZero);
  t.equal(json(await inject({ url: '/moderation', headers: admin.headers })).count, q.count, 'all or nothing');
  expectError(
    t,
    await inject({ method: 'POST', url: '/moderation/accept', headers: admin.headers, payload: { ids: [] } }),
    400,
  );
  expectError(
    t,
    await inject({ method: 'POST', url: '/moderation/accept', headers: admin.headers, payload: { ids: ['bad'] } }),
    400,
  );
  expectError(
    t,
    await inject({ method: 'POST', url: '/moderation/accept', headers: admin.headers, payload: { foo: 1 } }),
    400,
  );
  expectError(t, await inject({ method: 'POST', url: '/moderation/accept', payload: { ids: [id] } }), 401);
});

t.test("the queue names each comment's idea by id, not by a scan of the ideas per comment", async (t) => {
  // 1,000 ideas and 1,000 pending comments: reads of the ideas list are counted (no time asserted). A scan per
  // comment reads about half the list each time (some 500,000 reads; 10,000 of each held the loop 262 ms); a look-up
  // by id reads it once to index it.
  const app = await build(t);
  const seeded = app.sandboxes.get('default').store.tenant(tenants.romashka)!;
  const ideas = Array.from({ length: 1000 }, (_, i) => ({
    ...seeded.ideas[0]!,
    id: `idea-${i}`,
    title: `idea ${i}`,
    statusId: IdeaStatusCode.new,
  }));
  const comments = Array.from({ length: 1000 }, (_, i) => ({
    ...seeded.ideaComments[0]!,
    id: `comment-${i}`,
    ideaId: `idea-${(i * 7) % 1000}`,
    status: 'pending' as const,
    createdAt: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.000Z`,
  }));
  let reads = 0;
  const counted = new Proxy(ideas, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  const tenant = { ...seeded, ideas: counted, ideaComments: comments } as Tenant;
  const ctx = { baseUrl: 'http://portal.test' } as DomainContext;
  const queue = moderationIndex(ctx, tenant, seeded.users[0]!, true);
  t.equal(queue.count, 1000, 'every pending comment is in the queue');
  const named = queue.data.find((item) => item.id === 'comment-3');
  t.equal(named?.title, 'idea 21', "a comment is titled with its idea's title");
  t.ok(reads < 5000, `the ideas were read ${reads} times for 1,000 comments`);
});
