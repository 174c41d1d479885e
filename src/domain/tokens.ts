// Personal API tokens: created in a session, sent as `Authorization: Bearer pmt_<id>_<secret>`.
// Only a hash of the clear value is stored; the clear value is answered once, by create.
import { fail } from '../errors.js';
import type { PersonalTokenRecord, UserRecord } from '../schemas/records.js';
import type { CreatedPersonalToken, PersonalToken } from '../schemas/admin-api.js';
import type { SandboxStore, Tenant } from '../store/store.js';
import { hashSecret, newSecret, newUuid } from '../store/ids.js';
import { type DomainContext, personBrief } from './context.js';
import { idList, matchesText, paginate, recordById, type PageRequest } from './lists.js';
import { byStampThenId } from './grouped.js';

export const tokenPrefix = 'pmt_';

export function tokenView(ctx: DomainContext, tenant: Tenant, t: PersonalTokenRecord): PersonalToken {
  const active = t.revokedAt === null && (t.expiresAt === null || Date.parse(t.expiresAt) > ctx.now.getTime());
  return {
    id: t.id,
    name: t.name,
    user_id: t.userId,
    user: personBrief(ctx, tenant, t.userId),
    created_at: t.createdAt,
    last_used_at: t.lastUsedAt,
    expires_at: t.expiresAt,
    revoked_at: t.revokedAt,
    active,
  };
}

const newestFirst = (tokens: readonly PersonalTokenRecord[]) =>
  byStampThenId(
    tokens,
    (t) => t.createdAt,
    (t) => t.id,
    'newest',
  );

export function listOwnTokens(ctx: DomainContext, tenant: Tenant, user: UserRecord): { data: PersonalToken[] } {
  return {
    data: newestFirst(tenant.personalTokens.filter((t) => t.userId === user.id)).map((t) => tokenView(ctx, tenant, t)),
  };
}

export function createToken(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  input: { name?: string | undefined; expiresAt?: string | null | undefined },
) {
  const errors: string[] = [];
  const name = (input.name ?? '').trim();
  if (name === '' || name.length > 100) errors.push('name: must be 1 to 100 characters');
  let expiresAt: string | null = null;
  if (input.expiresAt !== undefined && input.expiresAt !== null && input.expiresAt !== '') {
    const at = Date.parse(input.expiresAt);
    if (Number.isNaN(at) || !/^\d{4}-\d{2}-\d{2}T/.test(input.expiresAt))
      errors.push('expiresAt: must be an ISO 8601 date-time');
    else if (at <= ctx.now.getTime()) errors.push('expiresAt: must be in the future');
    else expiresAt = new Date(at).toISOString();
  }
  if (errors.length > 0) return { success: false, message: 'the token was not created', errors, data: null };
  const id = newUuid(ctx.store, 'personal-token');
  const token = `${tokenPrefix}${id}_${newSecret(ctx.store, 'personal-token-secret')}`;
  const record: PersonalTokenRecord = {
    id,
    userId: user.id,
    name,
    secretHash: hashSecret(token),
    createdAt: ctx.now.toISOString(),
    lastUsedAt: null,
    revokedAt: null,
    expiresAt,
  };
  ctx.store.insert(tenant, 'personalTokens', record);
  const data: CreatedPersonalToken = { token, record: tokenView(ctx, tenant, record) };
  return { success: true, message: 'token created: copy it now, it is not shown again', errors: null, data };
}

function revoke(ctx: DomainContext, tenant: Tenant, id: string, record: PersonalTokenRecord | undefined) {
  if (!record) throw fail.notFound(`personal token ${id} not found`);
  const revoked =
    record.revokedAt === null
      ? ctx.store.update(tenant, 'personalTokens', record, { revokedAt: ctx.now.toISOString() })
      : record;
  return { success: true, message: 'token revoked', errors: null, data: tokenView(ctx, tenant, revoked) };
}

/** Revokes one of the caller's tokens; another user's or an unknown id is a 404. Revoking twice is harmless. */
export function revokeOwnToken(ctx: DomainContext, tenant: Tenant, user: UserRecord, id: string) {
  return revoke(
    ctx,
    tenant,
    id,
    tenant.personalTokens.find((t) => t.id === id && t.userId === user.id),
  );
}

export function adminRevokeToken(ctx: DomainContext, tenant: Tenant, _admin: UserRecord, id: string) {
  return revoke(
    ctx,
    tenant,
    id,
    tenant.personalTokens.find((t) => t.id === id),
  );
}

export type AdminTokenQuery = PageRequest & {
  userId?: string | undefined;
  active?: string | undefined;
  name?: string | undefined;
  url: string;
};

export function adminListTokens(ctx: DomainContext, tenant: Tenant, _admin: UserRecord, q: AdminTokenQuery) {
  const users = idList(q.userId);
  const active = q.active === undefined ? null : q.active === '1' || q.active === 'true';
  const views = newestFirst(tenant.personalTokens.filter((t) => users === null || users.has(t.userId)))
    .map((t) => tokenView(ctx, tenant, t))
    .filter((v) => (active === null || v.active === active) && matchesText(q.name, [v.name, v.user.name]));
  return paginate(views, q, { defaultPerPage: 20, maxPerPage: 100 }, q.url);
}

/**
 * Blocks a user (admin side): the state becomes 'blocked' and every personal token of the user is revoked,
 * as the API description says ("revoked automatically when its owner is blocked").
 */
export function blockUser(store: SandboxStore, tenant: Tenant, userId: string, now: Date): UserRecord {
  const user = recordById(tenant.users, userId, 'user');
  const at = now.toISOString();
  return store.transaction(() => {
    store.updateWhere(
      tenant,
      'personalTokens',
      (t) => t.userId === userId && t.revokedAt === null,
      () => ({ revokedAt: at }),
    );
    return store.update(tenant, 'users', user, { state: 'blocked' });
  });
}

/** A personal token's use: its `lastUsedAt` moves to now (the admin's token list shows it). */
export function stampTokenUse(store: SandboxStore, tenant: Tenant, token: PersonalTokenRecord, now: string): void {
  store.update(tenant, 'personalTokens', token, { lastUsedAt: now });
}

/**
 * A QR bind link for a user (src/control/fixtures.ts gives its addresses): single-use unless said, expiring after
 * `ttlSeconds` when given. Its id and token are minted from the sandbox's seed, so a replay mints the same ones.
 */
export function createBindLink(
  store: SandboxStore,
  tenant: Tenant,
  userId: string,
  now: Date,
  { singleUse, ttlSeconds }: { singleUse: boolean; ttlSeconds?: number | undefined },
) {
  return store.insert(tenant, 'bindLinks', {
    id: `bind-${newUuid(store, 'bind-link').slice(0, 8)}`,
    token: newSecret(store, 'bind-token'),
    userId,
    singleUse,
    usedAt: null,
    createdAt: now.toISOString(),
    expiresAt: ttlSeconds ? new Date(now.getTime() + ttlSeconds * 1000).toISOString() : null,
  });
}
