import { timingSafeEqual } from 'node:crypto';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fail } from '../errors.js';
import type { Right } from '../schemas/common.js';
import { header, sessionHeaders } from '../http/context.js';
import { noAuth, type AuthContext, type AuthMode } from '../http/credentials.js';
import { secretMatches } from '../store/ids.js';
import { findById, type Tenant } from '../store/store.js';
import type { Sandbox } from '../store/sandbox.js';
import type { SessionRecord, UserRecord } from '../schemas/records.js';
import { peopleIndex } from '../domain/people-index.js';
import { stampTokenUse } from '../domain/tokens.js';

/** Effective rights: the user's, less what the active scenario revokes. */
function rightsOf(user: UserRecord, revoked: readonly Right[] | 'all'): readonly Right[] {
  if (revoked === 'all') return [];
  return revoked.length === 0 ? user.rights : user.rights.filter((r) => !revoked.includes(r));
}

function activeUser(tenant: Tenant, userId: string): UserRecord {
  const user = peopleIndex(tenant).byId.get(userId);
  if (user?.state !== 'active') throw fail.unauthorized('the user of this credential is blocked or no longer exists');
  return user;
}

/** How the request's scenario changes auth, without handlers knowing. */
type AuthPolicy = {
  /** the rights the active scenario takes away */
  revokedRights(req: FastifyRequest): readonly Right[] | 'all';
  sessionsExpired(req: FastifyRequest): boolean;
};

const noRights: readonly Right[] = [];

const scenarioPolicy: AuthPolicy = {
  revokedRights: (req) => req.mock.scenario?.revokeRights ?? noRights,
  // only a per-request override expires every session; an active scenario expired them once, when applied
  sessionsExpired: (req) => req.mock.scenarioFromHeader && req.mock.scenario?.sessions?.expired === true,
};

/**
 * Session codes already checked, per session record: records are frozen (a change makes a new one), so a code that
 * matched one still does, and the SHA-256 of the code is not taken again on every request. The comparison stays
 * constant-time.
 */
const checkedCodes = new WeakMap<SessionRecord, Buffer>();

function sessionCodeMatches(code: string, session: SessionRecord): boolean {
  const checked = checkedCodes.get(session);
  if (checked !== undefined) {
    const presented = Buffer.from(code);
    return presented.length === checked.length && timingSafeEqual(presented, checked);
  }
  if (!secretMatches(code, session.secretHash)) return false;
  checkedCodes.set(session, Buffer.from(code));
  return true;
}

function sessionAuth(req: FastifyRequest, sandbox: Sandbox, policy: AuthPolicy): AuthContext {
  const [tenantId, deviceId, sessionId, code] = sessionHeaders.map((name) => header(req, name));
  if (tenantId === undefined || deviceId === undefined || sessionId === undefined || code === undefined) {
    const missing = sessionHeaders.filter((name) => header(req, name) === undefined);
    throw fail.unauthorized(`missing session header(s): ${missing.join(', ')}`);
  }
  const tenant = sandbox.store.tenant(tenantId);
  // The same answer for an unknown tenant and a foreign session: a caller learns nothing about other tenants.
  const session = tenant && findById(tenant.sessions, sessionId);
  if (!tenant || !session || !sessionCodeMatches(code, session))
    throw fail.unauthorized('session not found or session code invalid');
  if (session.deviceId !== deviceId) throw fail.unauthorized('session does not belong to this device');
  const device = findById(tenant.devices, deviceId);
  if (device?.userId !== session.userId) throw fail.unauthorized('device is no longer bound; bind it again');
  if (policy.sessionsExpired(req) || Date.parse(session.expiresAt) <= sandbox.clock.nowMs()) {
    throw fail.unauthorized('session expired; authorize again with POST /mobile/auth');
  }
  const user = activeUser(tenant, session.userId);
  return {
    kind: 'session',
    tenant,
    user,
    session,
    device,
    apiKeyClientId: null,
    rights: rightsOf(user, policy.revokedRights(req)),
  };
}

/** Personal tokens look like `pmt_<tokenId>_<secret>`; the id finds the record, the secret is compared in constant time. */
function bearerAuth(req: FastifyRequest, sandbox: Sandbox, token: string, policy: AuthPolicy): AuthContext {
  const m = /^pmt_([0-9a-f-]{36})_([A-Za-z0-9_-]+)$/.exec(token);
  const tenantHeader = header(req, 'x-service-tenant-id');
  if (m) {
    for (const tenant of sandbox.store.tenants()) {
      if (tenantHeader && tenant.tenant.id !== tenantHeader) continue;
      const record = tenant.personalTokens.find((t) => t.id === m[1]);
      if (!record) continue;
      if (!secretMatches(token, record.secretHash)) break;
      if (record.revokedAt) throw fail.unauthorized('personal token revoked');
      if (record.expiresAt && Date.parse(record.expiresAt) <= sandbox.clock.nowMs())
        throw fail.unauthorized('personal token expired');
      const user = activeUser(tenant, record.userId);
      stampTokenUse(sandbox.store, tenant, record, sandbox.clock.iso());
      return {
        kind: 'bearer',
        tenant,
        user,
        session: null,
        device: null,
        apiKeyClientId: null,
        rights: rightsOf(user, policy.revokedRights(req)),
      };
    }
  }
  throw fail.unauthorized('bearer token invalid');
}

function apiKeyAuth(req: FastifyRequest, sandbox: Sandbox, clientId: string): AuthContext {
  const secret = header(req, 'x-service-client-secret') ?? '';
  const tenantHeader = header(req, 'x-service-tenant-id');
  for (const tenant of sandbox.store.tenants()) {
    if (tenantHeader && tenant.tenant.id !== tenantHeader) continue;
    const key = tenant.apiKeys.find((k) => k.clientId === clientId);
    if (key && secretMatches(secret, key.secretHash)) {
      return { kind: 'apikey', tenant, user: null, session: null, device: null, apiKeyClientId: clientId, rights: [] };
    }
  }
  throw fail.unauthorized('API key (X-Service-Client-Id / X-Service-Client-Secret) invalid');
}

function authenticate(req: FastifyRequest, mode: AuthMode, policy: AuthPolicy): AuthContext {
  const sandbox = req.mock.sandbox;
  if (mode === 'none') return noAuth;
  if (mode === 'tenant') {
    const tenantId = header(req, 'x-service-tenant-id');
    if (!tenantId)
      throw fail.validation('header x-service-tenant-id is required', [
        { field: 'headers.x-service-tenant-id', message: 'is required' },
      ]);
    const tenant = sandbox.store.tenant(tenantId);
    if (!tenant) throw fail.notFound(`tenant ${tenantId} not found`);
    return { ...noAuth, kind: 'tenant', tenant };
  }
  const authorization = header(req, 'authorization');
  if (authorization?.toLowerCase().startsWith('bearer ')) {
    if (mode === 'session-only')
      throw fail.forbidden('this operation requires session authorization; personal tokens are not accepted');
    return bearerAuth(req, sandbox, authorization.slice(7).trim(), policy);
  }
  const clientId = header(req, 'x-service-client-id');
  if (clientId && mode === 'session-or-apikey' && !header(req, 'x-service-session-id'))
    return apiKeyAuth(req, sandbox, clientId);
  return sessionAuth(req, sandbox, policy);
}

/** One place that authorizes every route from its config: `config: { auth: 'session', rights: [...] }`. */
export const authPlugin = fp(
  async (app: FastifyInstance) => {
    // every portal request, after its sandbox and scenario are known; a thrown error reaches the error handler
    // callback-style: nothing is awaited, so no promise per request (a throw still reaches the error handler)
    app.addHook('onRequest', (req, _reply, done) => {
      const config = req.mock.routeConfig;
      req.mock.auth = authenticate(req, config.auth ?? 'none', scenarioPolicy);
      const missing = config.rights?.filter((r) => !req.mock.auth.rights.includes(r));
      if (missing !== undefined && missing.length > 0)
        throw fail.forbidden(`missing access right(s): ${missing.join(', ')}`);
      done();
    });
  },
  { name: 'auth', dependencies: ['request-context'] },
);
