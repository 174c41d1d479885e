// Push notifications of the current user: list, badge, mark seen; createNotification for other groups.
import { fail } from '../errors.js';
import type { BadgeResult, Notification } from '../schemas/people.js';
import type { NotificationRecord } from '../schemas/people-records.js';
import type { UserRecord } from '../schemas/records.js';
import type { Tenant } from '../store/store.js';
import { newUuid } from '../store/ids.js';
import { absolute, type DomainContext } from './context.js';
import { pageOf, recordById, type ListQuery, type Paged } from './lists.js';
import { dayFormat } from './collate.js';
import { byStampThenId, groupedBy } from './grouped.js';

/** Today (yyyy-MM-dd) by the sandbox clock in the tenant's time zone. */
export function tenantToday(ctx: Pick<DomainContext, 'now'>, tenant: Tenant): string {
  try {
    return dayFormat(tenant.tenant.timezone).format(ctx.now);
  } catch {
    return ctx.now.toISOString().slice(0, 10);
  }
}

const byUser = (n: NotificationRecord) => n.userId;
const own = (tenant: Tenant, user: UserRecord) => groupedBy(tenant.notifications, byUser, user.id);

/** Delivered by the sandbox clock: notifications "from the future" of a moved-back clock are not sent yet. */
const delivered = (ctx: Pick<DomainContext, 'now'>, tenant: Tenant, user: UserRecord) => {
  const now = ctx.now.toISOString();
  return own(tenant, user).filter((n) => n.createdAt <= now);
};

/** Unseen delivered notifications of the user: the badge counts what the list shows, at every clock. */
export const unseenCount = (ctx: Pick<DomainContext, 'now'>, tenant: Tenant, user: UserRecord) =>
  delivered(ctx, tenant, user).filter((n) => n.seenAt === null).length;

const view = (ctx: DomainContext, n: NotificationRecord): Notification => ({
  id: n.id,
  title: n.title,
  body: n.body,
  kind: n.kind,
  url: n.url === null ? null : absolute(ctx, n.url),
  isSeen: n.seenAt !== null,
  createdAt: n.createdAt,
});

export function notificationsPushes(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  q: ListQuery,
  url: string,
): Paged<Notification> {
  // newest first
  const items = byStampThenId(
    delivered(ctx, tenant, user),
    (n) => n.createdAt,
    (n) => n.id,
    'newest',
  );
  return pageOf(items, q, url, (n) => view(ctx, n), 10);
}

export function notificationsMarkSeen(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  input: { notificationId: string },
): BadgeResult {
  const n = tenant.notifications.find((x) => x.id === input.notificationId && x.userId === user.id);
  if (!n) throw fail.notFound(`notification ${input.notificationId.slice(0, 64)} not found`);
  if (n.seenAt === null) ctx.store.update(tenant, 'notifications', n, { seenAt: ctx.now.toISOString() });
  return { badge: unseenCount(ctx, tenant, user), date: tenantToday(ctx, tenant) };
}

export function notificationsMarkSeenAll(ctx: DomainContext, tenant: Tenant, user: UserRecord): BadgeResult {
  // the delivered ones: one not sent yet cannot have been seen
  const at = ctx.now.toISOString();
  ctx.store.updateWhere(
    tenant,
    'notifications',
    (n) => n.userId === user.id && n.seenAt === null && n.createdAt <= at,
    () => ({ seenAt: at }),
  );
  return { badge: 0, date: tenantToday(ctx, tenant) };
}

/**
 * Stores a notification for a user and "sends" it as a push to each of the user's push tokens (the outbox).
 * Used by other groups (admin, content …).
 */
export function createNotification(
  ctx: DomainContext,
  tenant: Tenant,
  userId: string,
  input: { title: string; body: string; kind?: string; url?: string | null },
): NotificationRecord {
  const user = recordById(tenant.users, userId, 'user');
  const record: NotificationRecord = {
    id: newUuid(ctx.store, 'notification'),
    userId,
    title: input.title,
    body: input.body,
    kind: input.kind ?? 'system',
    url: input.url ?? null,
    createdAt: ctx.now.toISOString(),
    seenAt: null,
  };
  ctx.store.insert(tenant, 'notifications', record);
  const badge = unseenCount(ctx, tenant, user);
  for (const token of tenant.pushTokens.filter((p) => p.userId === userId)) {
    ctx.outbox.add({
      at: record.createdAt,
      kind: 'push',
      tenantId: tenant.tenant.id,
      userId,
      to: token.token,
      payload: {
        notification: { title: record.title, body: record.body },
        data: {
          notificationId: record.id,
          kind: record.kind,
          url: record.url === null ? null : absolute(ctx, record.url),
          tenantId: tenant.tenant.id,
        },
        badge,
      },
    });
  }
  return record;
}
