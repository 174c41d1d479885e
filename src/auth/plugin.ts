import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fail } from '../errors.js';
import type { Right } from '../schemas/common.js';
import { noAuth, type AuthContext, type AuthMode } from '../http/context.js';
import { secretChecker } from '../store/ids.js';
import type { Tenant } from '../store/store.js';
import type { Sandbox } from '../store/sandbox.js';
import type { UserRecord } from '../schemas/records.js';
import { peopleIndex } from '../domain/people-index.js';
import type { SessionRecord } from '../schemas/records.js';

const header = (req: FastifyRequest, name: string): string | undefined => {
  const v = req.headers[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
};

/** Effective rights: the user's, less what the active scenario revokes. */
function rightsOf(user: UserRecord, revoked: readonly Right[] | 'all'): Set<Right> {
  if (revoked === 'all') return new Set();
  return new Set(user.rights.filter((r) => !revoked.includes(r)));
}

/**
 * What auth looks up on every request, kept per app (keyed by the records: nothing outlives them): secrets that
 * matched, sessions by id per tenant (rebuilt when the data version moves: sign-ins add sessions), session expiries,
 * and each user's effective rights (rights arrays are replaced, never changed in place).
 */
function authMemo() {
  const sessionIndexes = new WeakMap<Tenant, { version: number; byId: Map<string, SessionRecord> }>();
  const rights = new WeakMap<UserRecord, { of: readonly Right[]; revoked: readonly Right[] | 'all'; set: ReadonlySet<Right> }>();
  const expiries = new WeakMap<SessionRecord, { text: string; ms: number }>();
  return {
    check: secretChecker(),
    session(version: number, tenant: Tenant, id: string): SessionRecord | undefined {
      let index = sessionIndexes.get(tenant);
      if (!index || index.version !== version) {
        index = { version, byId: new Map(tenant.sessions.map((s) => [s.id, s])) };
        sessionIndexes.set(tenant, index);
      }
      return index.byId.get(id);
    },
    /** the session's expiry in ms (parsing the ISO text on every request showed in profiles) */
    expiresMs(session: SessionRecord): number {
      const known = expiries.get(session);
      if (known && known.text === session.expiresAt) return known.ms;
      const ms = Date.parse(session.expiresAt);
      expiries.set(session, { text: session.expiresAt, ms });
      return ms;
    },
    rights(user: UserRecord, revoked: readonly Right[] | 'all'): ReadonlySet<Right> {
      const known = rights.get(user);
      if (known && known.of === user.rights && known.revoked === revoked) return known.set;
      const set = rightsOf(user, revoked);
      rights.set(user, { of: user.rights, revoked, set });
      return set;
    },
  };
}
type AuthMemo = ReturnType<typeof authMemo>;

function activeUser(tenant: Tenant, userId: string): UserRecord {
  const user = peopleIndex(tenant).byId.get(userId);
  if (!user || user.state !== 'active') throw fail.unauthorized('the user of this credential is blocked or no longer exists');
  return user;
}

/** Hooks that let a scenario change how auth behaves without handlers knowing. */
export type AuthPolicy = {
  /** the scenario's list (kept as it is: auth keeps each user's rights per list) */
  revokedRights(req: FastifyRequest): readonly Right[] | 'all';
  sessionsExpired(req: FastifyRequest): boolean;
};

const sessionHeaders = ['x-service-tenant-id', 'x-service-device-id', 'x-service-session-id', 'x-service-session-code'] as const;

function sessionAuth(req: FastifyRequest, sandbox: Sandbox, policy: AuthPolicy, memo: AuthMemo): AuthContext {
  const tenantId = header(req, 'x-service-tenant-id');
  const deviceId = header(req, 'x-service-device-id');
  const sessionId = header(req, 'x-service-session-id');
  const code = header(req, 'x-service-session-code');
  if (tenantId === undefined || deviceId === undefined || sessionId === undefined || code === undefined) {
    const missing = sessionHeaders.filter((name) => header(req, name) === undefined);
    throw fail.unauthorized(`missing session header(s): ${missing.join(', ')}`);
  }
  const tenant = sandbox.tenant(tenantId);
  // The same answer for an unknown tenant and a foreign session: a caller learns nothing about other tenants.
  const session = tenant ? memo.session(sandbox.store.version, tenant, sessionId) : undefined;
  if (!tenant || !session || !memo.check(session, code, session.secretHash)) throw fail.unauthorized('session not found or session code invalid');
  if (session.deviceId !== deviceId) throw fail.unauthorized('session does not belong to this device');
  const device = tenant.devices.find((d) => d.id === deviceId && d.userId === session.userId);
  if (!device) throw fail.unauthorized('device is no longer bound; bind it again');
  if (policy.sessionsExpired(req) || memo.expiresMs(session) <= sandbox.clock.nowMs()) {
    throw fail.unauthorized('session expired; authorize again with POST /mobile/auth');
  }
  const user = activeUser(tenant, session.userId);
  return { kind: 'session', tenant, user, session, device, apiKeyClientId: null, rights: memo.rights(user, policy.revokedRights(req)) };
}

/** Personal tokens look like `pmt_<tokenId>_<secret>`; the id finds the record, the secret is compared in constant time. */
function bearerAuth(req: FastifyRequest, sandbox: Sandbox, token: string, policy: AuthPolicy, memo: AuthMemo): AuthContext {
  const m = /^pmt_([0-9a-f-]{36})_([A-Za-z0-9_-]+)$/.exec(token);
  const tenantHeader = header(req, 'x-service-tenant-id');
  if (m) {
    for (const tenant of sandbox.store.tenants()) {
      if (tenantHeader && tenant.tenant.id !== tenantHeader) continue;
      const record = tenant.personalTokens.find((t) => t.id === m[1]);
      if (!record) continue;
      if (!memo.check(record, token, record.secretHash)) break;
      const now = sandbox.clock.now().getTime();
      if (record.revokedAt) throw fail.unauthorized('personal token revoked');
      if (record.expiresAt && Date.parse(record.expiresAt) <= now) throw fail.unauthorized('personal token expired');
      const user = activeUser(tenant, record.userId);
      sandbox.store.update(tenant, 'personalTokens', record, { lastUsedAt: sandbox.clock.iso() });
      return { kind: 'bearer', tenant, user, session: null, device: null, apiKeyClientId: null, rights: memo.rights(user, policy.revokedRights(req)) };
    }
  }
  throw fail.unauthorized('bearer token invalid');
}

function apiKeyAuth(req: FastifyRequest, sandbox: Sandbox, clientId: string, memo: AuthMemo): AuthContext {
  const secret = header(req, 'x-service-client-secret') ?? '';
  const tenantHeader = header(req, 'x-service-tenant-id');
  for (const tenant of sandbox.store.tenants()) {
    if (tenantHeader && tenant.tenant.id !== tenantHeader) continue;
    const key = tenant.apiKeys.find((k) => k.clientId === clientId);
    if (key && memo.check(key, secret, key.secretHash)) {
      return { kind: 'apikey', tenant, user: null, session: null, device: null, apiKeyClientId: clientId, rights: new Set() };
    }
  }
  throw fail.unauthorized('API key (X-Service-Client-Id / X-Service-Client-Secret) invalid');
}

export function authenticate(req: FastifyRequest, mode: AuthMode, policy: AuthPolicy, memo: AuthMemo): AuthContext {
  const sandbox = req.sandbox;
  if (mode === 'none') return noAuth;
  if (mode === 'tenant') {
    const tenantId = header(req, 'x-service-tenant-id');
    if (!tenantId) throw fail.validation('header x-service-tenant-id is required', [{ field: 'headers.x-service-tenant-id', message: 'is required' }]);
    const tenant = sandbox.tenant(tenantId);
    if (!tenant) throw fail.notFound(`tenant ${tenantId} not found`);
    return { ...noAuth, kind: 'tenant', tenant };
  }
  const authorization = header(req, 'authorization');
  if (authorization?.toLowerCase().startsWith('bearer ')) {
    if (mode === 'session-only') throw fail.forbidden('this operation requires session authorization; personal tokens are not accepted');
    return bearerAuth(req, sandbox, authorization.slice(7).trim(), policy, memo);
  }
  const clientId = header(req, 'x-service-client-id');
  if (clientId && mode === 'session-or-apikey' && !header(req, 'x-service-session-id')) return apiKeyAuth(req, sandbox, clientId, memo);
  return sessionAuth(req, sandbox, policy, memo);
}

/** One place that authorizes every route from its config: `config: { auth: 'session', rights: [...] }`. */
export const authPlugin = fp(async (app: FastifyInstance, opts: { policy: AuthPolicy }) => {
  app.decorateRequest('auth', null as unknown as AuthContext);
  const memo = authMemo();
  // a step of every request (src/http/pipeline.ts); a thrown error reaches the handler of errors
  app.pipeline.onRequest((req) => {
    req.auth = noAuth;
    const config = req.routeConfig;
    const mode = config?.auth ?? 'none';
    req.auth = authenticate(req, mode, opts.policy, memo);
    const rights = config?.rights;
    if (rights && rights.length > 0) {
      const missing = rights.filter((r) => !req.auth.rights.has(r));
      if (missing.length > 0) throw fail.forbidden(`missing access right(s): ${missing.join(', ')}`);
    }
  });
}, { name: 'auth', dependencies: ['pipeline', 'request-context'] });
