// How the active scenario changes what the stateful mock already does. Handlers never ask
// which scenario is active; they call these, and the domain functions take the result.
import type { FastifyRequest } from 'fastify';
import { lifetimes, type SignInPolicy } from '../domain/mobile.js';
import type { TenantOptions } from '../schemas/records.js';
import type { Tenant } from '../store/store.js';

export function signInPolicy(req: FastifyRequest): SignInPolicy {
  const s = req.mock.scenario;
  return { twoFactor: s?.twoFactor ?? null, sessionSeconds: s?.sessions?.lifetimeSeconds ?? lifetimes.sessionSeconds };
}

/** The tenant's options as the active scenario presents them (e.g. wallet-disabled turns enableWallet off). */
export function tenantOptions(req: FastifyRequest, tenant: Tenant): TenantOptions {
  return { ...tenant.tenant.options, ...req.mock.scenario?.tenantOptions };
}

/** Workflow tickets stand still (scenario holdTickets): the domain does not move them on with the clock. */
export function ticketsHeld(req: FastifyRequest): boolean {
  return req.mock.scenario?.holdTickets === true;
}
