// How the active scenario changes what the stateful mock already does. Handlers never ask
// which scenario is active; they call these, and the domain functions take the result.
import type { FastifyRequest } from 'fastify';
import type { Right } from '../schemas/common.js';
import { lifetimes, type SignInPolicy } from '../domain/mobile.js';
import type { AuthPolicy } from '../auth/plugin.js';
import type { Scenario } from './schema.js';
import type { TenantOptions } from '../schemas/records.js';
import type { Tenant } from '../store/store.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** the scenario that applies to this request: x-mock-scenario header, else the sandbox's */
    scenario: Scenario | null;
    scenarioFromHeader: boolean;
  }
}

export function signInPolicy(req: FastifyRequest): SignInPolicy {
  const s = req.scenario;
  return { twoFactor: s?.twoFactor ?? null, sessionSeconds: s?.sessions?.lifetimeSeconds ?? lifetimes.sessionSeconds };
}

const none: readonly Right[] = [];

export const authPolicy: AuthPolicy = {
  revokedRights: (req) => req.scenario?.revokeRights ?? none,
  // Only a per-request override expires every session; an active scenario expired them once, when applied.
  sessionsExpired: (req) => req.scenarioFromHeader === true && req.scenario?.sessions?.expired === true,
};

/** The tenant's options as the active scenario presents them (e.g. wallet-disabled turns enableWallet off). */
export function tenantOptions(req: FastifyRequest, tenant: Tenant): TenantOptions {
  return { ...tenant.tenant.options, ...req.scenario?.tenantOptions };
}

/** Workflow tickets stand still (scenario holdTickets): the domain does not move them on with the clock. */
export function ticketsHeld(req: FastifyRequest): boolean {
  return req.scenario?.holdTickets === true;
}
