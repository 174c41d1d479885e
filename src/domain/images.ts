import type { DomainContext } from './context.js';
import type { Tenant } from '../store/store.js';

/**
 * The label of the record an image address names, looked up in every tenant of the sandbox (an image is fetched
 * without a session, so without a tenant), and the seed its colours derive from; null when no record has that id.
 */
export function imageSubject(ctx: DomainContext, label: (tenant: Tenant, id: string) => string | undefined, id: string): { label: string; seed: number } | null {
  for (const tenant of ctx.store.tenants()) {
    const found = label(tenant, id);
    if (found !== undefined) return { label: found, seed: ctx.store.meta.seed };
  }
  return null;
}
