import type { SandboxStore, Tenant } from '../store/store.js';
import type { Outbox } from '../store/outbox.js';
import type { TenantOptions } from '../schemas/records.js';
import type { PersonBrief } from '../schemas/common.js';
import { peopleIndex } from './people-index.js';

/**
 * What a domain function may use: the sandbox's store (reads,
 * writes, minting ids), its time, outbox and public address.
 */
export type DomainContext = {
  store: SandboxStore;
  now: Date;
  outbox: Outbox;
  /** the address the client used, with the sandbox prefix: absolute URLs in answers start here */
  baseUrl: string;
  /** what the request's scenario changes in the domain (src/domain/effects.ts), the one way it reaches it */
  effects: ScenarioEffects;
};

/** What a scenario changes in the domain; built once, with the domain context (effectsOf). */
export type ScenarioEffects = {
  /** tenant options it overrides (wallet-disabled turns enableWallet off) */
  tenantOptions: Partial<TenantOptions>;
  /** two-factor on (true) or off (false) for every account; null: each account's own setting */
  twoFactor: boolean | null;
  /** how long a session made by /mobile/auth lives */
  sessionSeconds: number;
  /** workflow tickets stand still (holdTickets): they do not move on with the clock */
  ticketsHeld: boolean;
};

/** A tenant's options as the request's scenario presents them. */
export const tenantOptionsOf = (ctx: Pick<DomainContext, 'effects'>, tenant: Tenant): TenantOptions => ({
  ...tenant.tenant.options,
  ...ctx.effects.tenantOptions,
});

/** An absolute address for a path stored relative to the tenant endpoint. */
export const absolute = (ctx: Pick<DomainContext, 'baseUrl'>, path: string) =>
  // a stored path starts with '/' (no regular expression for those: the dashboard makes dozens per request)
  path.charCodeAt(0) === 47 ? ctx.baseUrl + path : /^[a-z]+:\/\//i.test(path) ? path : `${ctx.baseUrl}/${path}`;

/**
 * A user as other records show them ({id, name, faceUrl}); one no longer in the tenant shows as deleted.
 * @example personBrief(ctx, tenant, ticket.userId)
 *   // → { id, name: 'Петров Иван Сергеевич', faceUrl: 'http://…/images/avatar/….svg' }
 */
export function personBrief(ctx: Pick<DomainContext, 'baseUrl'>, tenant: Tenant, userId: string): PersonBrief {
  const u = peopleIndex(tenant).byId.get(userId);
  const name = u?.name ?? (tenant.tenant.locale === 'ru' ? 'Удалённый пользователь' : 'Deleted user');
  return { id: userId, name, faceUrl: absolute(ctx, u?.faceUrl ?? `/images/avatar/${userId}.svg`) };
}
