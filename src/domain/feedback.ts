// Feedback about users and departments: add and view. Anonymous feedback never shows its author.
import { fail } from '../errors.js';
import type { Feedback, FeedbackAdd, FeedbackRecord } from '../schemas/feedback.js';
import type { UserRecord } from '../schemas/records.js';
import { findById, type Tenant } from '../store/store.js';
import { newUuid } from '../store/ids.js';
import { type DomainContext, personBrief } from './context.js';
import { recordById } from './lists.js';

const thanks = { ru: 'Спасибо за отзыв!', en: 'Thank you for your feedback!' };

function toFeedback(ctx: DomainContext, tenant: Tenant, f: FeedbackRecord): Feedback {
  const entity: Feedback['entity'] =
    f.targetType === 'user'
      ? personBrief(ctx, tenant, f.targetId)
      : { id: f.targetId, name: findById(tenant.departments, f.targetId)?.name ?? '—', faceUrl: null };
  const author = f.isAnonymous ? null : findById(tenant.users, f.authorId);
  return {
    id: f.id,
    type: f.targetType,
    entity_id: f.targetId,
    entity,
    score: f.score,
    text: f.text,
    isAnonymous: f.isAnonymous,
    author: author ? personBrief(ctx, tenant, author.id) : null,
    created_at: f.createdAt,
  };
}

export function feedbackAdd(ctx: DomainContext, tenant: Tenant, user: UserRecord, body: FeedbackAdd) {
  if (body.userId !== undefined && body.userId !== user.id)
    throw fail.forbidden('feedback can only be given on behalf of the current user');
  const exists =
    body.type === 'user'
      ? tenant.users.some((u) => u.id === body.id && u.state !== 'hidden')
      : tenant.departments.some((d) => d.id === body.id);
  if (!exists) throw fail.notFound(`${body.type} ${body.id} not found`);
  if (body.type === 'user' && body.id === user.id) {
    throw fail.validation('you cannot give feedback about yourself', [
      { field: 'body.id', message: 'must not be the current user' },
    ]);
  }
  const record: FeedbackRecord = {
    id: newUuid(ctx.store, 'feedback'),
    authorId: user.id,
    targetType: body.type,
    targetId: body.id,
    score: body.score,
    text: body.text.trim(),
    isAnonymous: body.isAnonymous ?? false,
    createdAt: ctx.now.toISOString(),
  };
  ctx.store.insert(tenant, 'feedback', record);
  return { success: true, feedback: toFeedback(ctx, tenant, record), message: thanks[tenant.tenant.locale] };
}

export function feedbackView(ctx: DomainContext, tenant: Tenant, _user: UserRecord, id: string): Feedback {
  return toFeedback(ctx, tenant, recordById(tenant.feedback, id, 'feedback'));
}
