// Moderation: ideas waiting approval and comments waiting approval, decided by users with the right user-edit.
import { fail } from '../errors.js';
import {
  IdeaStatusCode,
  type ArrayOfIds,
  type IdeaCommentRecord,
  type IdeaRecord,
  type Moderation,
  type ModerationItem,
} from '../schemas/ideas.js';
import type { UserRecord } from '../schemas/records.js';
import { LazyList } from '../shared/json-stream.js';
import { findById, type Tenant } from '../store/store.js';
import { absolute, type DomainContext, personBrief } from './context.js';
import { byStampThenId } from './grouped.js';

const texts = {
  ru: { accepted: (n: number) => `Одобрено: ${n}`, rejected: (n: number) => `Отклонено: ${n}` },
  en: { accepted: (n: number) => `Accepted: ${n}`, rejected: (n: number) => `Rejected: ${n}` },
};

type Waiting = { kind: 'idea'; record: IdeaRecord } | { kind: 'comment'; record: IdeaCommentRecord };

/** What waits for a moderator, oldest first (ties by id). */
function waiting(tenant: Tenant): Waiting[] {
  const ideas = tenant.ideas
    .filter((i) => i.statusId === IdeaStatusCode.moderation)
    .map((record): Waiting => ({ kind: 'idea', record }));
  const comments = tenant.ideaComments
    .filter((c) => c.status === 'pending')
    .map((record): Waiting => ({ kind: 'comment', record }));
  return byStampThenId(
    [...ideas, ...comments],
    (w) => w.record.createdAt,
    (w) => w.record.id,
    'oldest',
  );
}

/** The queue's item for what waits, made when it is written. */
function itemOf(ctx: DomainContext, tenant: Tenant, w: Waiting): ModerationItem {
  if (w.kind === 'idea') {
    const idea = w.record;
    return {
      id: idea.id,
      type: 'idea',
      title: idea.title,
      text: idea.description,
      idea_id: idea.id,
      created_at: idea.createdAt,
      user: personBrief(ctx, tenant, idea.authorId),
      url: absolute(ctx, `/pages/idea/${idea.id}`),
    };
  }
  const c = w.record;
  return {
    id: c.id,
    type: 'comment',
    // by id, not a scan of the ideas per comment (10,000 of each took 262 ms in one turn)
    title: findById(tenant.ideas, c.ideaId)?.title ?? '',
    text: c.text,
    idea_id: c.ideaId,
    created_at: c.createdAt,
    user: personBrief(ctx, tenant, c.userId),
    url: absolute(ctx, `/pages/idea/${c.ideaId}#comment-${c.id}`),
  };
}

/** The queue, its items made only when they are written (a LazyList: a large queue is streamed). */
export type LazyModeration = Omit<Moderation, 'data'> & { data: LazyList<Waiting, ModerationItem> };

/**
 * The queue of the current user: everything pending for a moderator, nothing
 * for anybody else. `id` picks one item (404 when not in the queue).
 */
export function lazyModeration(
  ctx: DomainContext,
  tenant: Tenant,
  _user: UserRecord,
  moderator: boolean,
  id?: string,
): LazyModeration {
  const all = moderator ? waiting(tenant) : [];
  const picked = id === undefined ? all : all.filter((w) => w.record.id === id);
  if (id !== undefined && picked.length === 0) throw fail.notFound(`moderation item ${id} not found in your queue`);
  return { count: picked.length, data: new LazyList(picked, (w) => itemOf(ctx, tenant, w)) };
}

/** lazyModeration, its items made at once. */
export function moderationIndex(...args: Parameters<typeof lazyModeration>): Moderation {
  const queue = lazyModeration(...args);
  return { ...queue, data: queue.data.toJSON() };
}

/** Accepts or rejects items of the queue, all or none: an id not waiting for moderation is a 404 naming it. */
export function moderationDecide(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  moderator: boolean,
  body: ArrayOfIds,
  decision: 'accept' | 'reject',
) {
  if (!moderator) throw fail.forbidden('only moderators (right user-edit) accept or reject');
  const ids = [...new Set(Array.isArray(body) ? body : body.ids)];
  const ideas = tenant.ideas.filter((i) => i.statusId === IdeaStatusCode.moderation && ids.includes(i.id));
  const comments = tenant.ideaComments.filter((c) => c.status === 'pending' && ids.includes(c.id));
  const found = new Set([...ideas.map((i) => i.id), ...comments.map((c) => c.id)]);
  const missing = ids.filter((i) => !found.has(i));
  if (missing.length > 0) throw fail.notFound(`not waiting for moderation: ${missing.join(', ')}`);
  const now = ctx.now.toISOString();
  const statusId = decision === 'accept' ? IdeaStatusCode.new : IdeaStatusCode.rejected;
  ctx.store.transaction(() => {
    ctx.store.updateWhere(
      tenant,
      'ideas',
      (i) => ideas.includes(i),
      () => ({ statusId, moderatedBy: user.id, moderatedAt: now, updatedAt: now }),
    );
    ctx.store.updateWhere(
      tenant,
      'ideaComments',
      (c) => comments.includes(c),
      () => ({ status: decision === 'accept' ? ('published' as const) : ('rejected' as const) }),
    );
  });
  const t = texts[tenant.tenant.locale];
  return { success: true, message: decision === 'accept' ? t.accepted(ids.length) : t.rejected(ids.length) };
}
