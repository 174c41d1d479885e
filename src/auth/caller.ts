import type { FastifyRequest } from 'fastify';
import type { Tenant } from '../store/store.js';
import type { UserRecord } from '../schemas/records.js';

/** The signed-in caller's tenant and user; for handlers of session routes, where the auth plugin guarantees both. */
export function caller(req: FastifyRequest): { tenant: Tenant; user: UserRecord } {
  const { tenant, user } = req.mock.auth;
  if (!tenant || !user)
    throw new Error(`route ${req.routeOptions.url} reads a user but is not configured with a session auth mode`);
  return { tenant, user };
}

/** The caller's tenant; for handlers of routes with a tenant or session auth mode. */
export function callerTenant(req: FastifyRequest): Tenant {
  const { tenant } = req.mock.auth;
  if (!tenant) throw new Error(`route ${req.routeOptions.url} reads a tenant but has no tenant auth mode`);
  return tenant;
}
