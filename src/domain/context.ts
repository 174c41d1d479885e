import type { Data, TenantData } from '../store/data.js';
import type { Outbox } from '../store/outbox.js';
import type { TenantOptions } from '../schemas/records.js';
import type { PersonBrief } from '../schemas/common.js';
import { peopleIndex } from './people-index.js';

/** What a domain function may use: the sandbox's data (for minting ids), its time, outbox and public address. */
export type DomainContext = {
  data: Data;
  now: Date;
  outbox: Outbox;
  /** the address the client used, with the sandbox prefix: absolute URLs in answers start here */
  baseUrl: string;
  /** tenant options the active scenario overrides (e.g. enableWallet off) */
  tenantOptions?: Partial<TenantOptions>;
};

/** An absolute address for a path stored relative to the tenant endpoint. */
export const absolute = (ctx: Pick<DomainContext, 'baseUrl'>, path: string) =>
  // a stored path starts with '/' (no regular expression for those: the dashboard makes dozens per request)
  path.charCodeAt(0) === 47 ? ctx.baseUrl + path : /^[a-z]+:\/\//i.test(path) ? path : `${ctx.baseUrl}/${path}`;

export const findTenantByEmail = (data: Data, email: string, tenantId?: string): { tenant: TenantData; index: number } | null => {
  const wanted = email.trim().toLowerCase();
  for (const tenant of Object.values(data.tenants)) {
    if (tenantId && tenant.tenant.id !== tenantId) continue;
    const index = tenant.users.findIndex((u) => u.email.toLowerCase() === wanted);
    if (index >= 0) return { tenant, index };
  }
  return null;
};

/**
 * A user as other records show them ({id, name, faceUrl}); one no longer in the tenant shows as deleted.
 * @example personBrief(ctx, tenant, ticket.userId) → { id, name: 'Петров Иван Сергеевич', faceUrl: 'http://…/images/avatar/….svg' }
 */
export function personBrief(ctx: Pick<DomainContext, 'baseUrl'> & Partial<Pick<DomainContext, 'data'>>, tenant: TenantData, userId: string): PersonBrief {
  // a large tenant's index finds the user without a scan of 100 000
  const ix = ctx.data ? peopleIndex(ctx.data, tenant) : null;
  const u = ix ? ix.byId.get(userId) : tenant.users.find((x) => x.id === userId);
  const name = u?.name ?? (tenant.tenant.locale === 'ru' ? 'Удалённый пользователь' : 'Deleted user');
  return { id: userId, name, faceUrl: absolute(ctx, u?.faceUrl ?? `/images/avatar/${userId}.svg`) };
}
