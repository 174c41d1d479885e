import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fail } from '../errors.js';
import { checkSandboxName, type Sandbox } from '../store/sandbox.js';
import { sandboxKey } from '../http/context.js';
import { findingsOf } from '../findings/plugin.js';
import { forwardToOwner } from './peers.js';

/**
 * The name an admin call is about: the sandbox key (header, path prefix, `sandbox` query, default); a `sandbox`
 * field of the body only when none of those names one (a balancer cannot see bodies: name it in the query).
 */
export function adminSandboxName(req: FastifyRequest): string {
  const q = (req.query as Record<string, unknown> | undefined)?.sandbox;
  return sandboxKey(
    req.headers['x-mock-sandbox'],
    req.mock.prefix.sandbox,
    q ?? (req.body as Record<string, unknown> | undefined)?.sandbox,
  );
}

/** The one error of a sandbox that does not exist (names it; says how to make one); nothing is created. */
export function sandboxNotFound(req: FastifyRequest, name: string, peersAsked = true) {
  const where =
    peersAsked && req.server.config.peers.length > 0 ? ` on instance ${req.server.instance.name} or its peers` : '';
  return fail.sandboxNotFound(
    `sandbox "${name.slice(0, 80)}" does not exist${where} (nothing was created: make it with ` +
      `PUT /__admin/sandboxes/${encodeURIComponent(name.slice(0, 80))}, or by any portal request that names it)`,
  );
}

function checkedName(req: FastifyRequest): string {
  const name = adminSandboxName(req);
  checkSandboxName(name);
  return name;
}

/**
 * The sandbox an admin WRITE is about (adminSandboxName), made on demand: setting its scenario, clock, state… is an
 * explicit act on a named sandbox (docs/sandboxes.md). Reads use existingSandbox. With --peers, made here only when
 * no peer holds it (ownerFirst, the control plane's hook, ran first).
 */
export function adminSandbox(req: FastifyRequest): Sandbox {
  const name = checkedName(req);
  return req.server.sandboxes.find(name) ?? req.server.sandboxes.get(name);
}

/**
 * Runs an admin write on the sandbox of its key (adminSandbox, made on demand). When the write is refused (it throws),
 * a sandbox made for it is deleted again: a refused write leaves no sandbox behind. Checks come first in `work`.
 */
export function adminWrite<T>(req: FastifyRequest, work: (sandbox: Sandbox) => T): T {
  const name = checkedName(req);
  const existed = req.server.sandboxes.find(name) !== undefined;
  const sandbox = adminSandbox(req);
  try {
    return work(sandbox);
  } catch (err) {
    if (!existed) req.server.sandboxes.delete(name);
    throw err;
  }
}

/**
 * The sandbox an admin READ is about (adminSandboxName); one that does not exist is a 404 SANDBOX_NOT_FOUND naming
 * it, and nothing is created, so a misspelt name never reads as an empty sandbox. With --peers, the 404 is said only
 * when no peer holds it either (ownerFirst ran first).
 */
export function existingSandbox(req: FastifyRequest, { peersAsked = true } = {}): Sandbox {
  const name = checkedName(req);
  const found = req.server.sandboxes.find(name);
  if (!found) throw sandboxNotFound(req, name, peersAsked);
  return found;
}

/**
 * The control plane's hook (preValidation, once the body is parsed: an old script may name the sandbox there): with
 * --peers, a call about a sandbox this instance does not hold is done by the instance that does, or is a 503 while a
 * peer that may hold it cannot be asked (forwardToOwner), so no second copy of a sandbox is ever made. It covers every
 * route of the control plane by where it is registered, whatever the route does with the sandbox, as the balancer
 * routes every call by its key; a route that answers for the instance reached says so (`config: { answersHere: true }`).
 */
export async function ownerFirst(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  if (req.mock.routeConfig.answersHere) return undefined;
  return (await forwardToOwner(req, reply, adminSandboxName(req))) ? reply : undefined;
}

/** The findings of a sandbox, less the codes its scenario turns off. */
export const sandboxFindings = (req: FastifyRequest, sandbox: Sandbox) =>
  findingsOf(sandbox, req.server.scenarios.get(sandbox.scenario)?.findings?.off);

export const SandboxQuery = Type.Object({
  sandbox: Type.Optional(
    Type.String({
      description: 'the sandbox, when neither x-mock-sandbox nor a /sandbox/NAME prefix names one (else default)',
    }),
  ),
});

/**
 * The sandbox of an admin call (made on demand: notifications, blocking are writes) and its user named by id or
 * e-mail, with their tenant; 404 when there is none.
 */
export function adminUser(
  req: FastifyRequest,
  { email, userId }: { email?: string | undefined; userId?: string | undefined },
) {
  if (!email && !userId)
    throw fail.validation('give email or userId', [{ field: 'body.email', message: 'email or userId is required' }]);
  // a user that is not there, or two that do not agree, make no sandbox
  return adminWrite(req, (sandbox) => {
    const find = (matches: (u: { id: string; email: string }) => boolean) => {
      for (const tenant of sandbox.store.tenants()) {
        const user = tenant.users.find(matches);
        if (user) return { sandbox, tenant, user };
      }
      return undefined;
    };
    const byId = userId ? find((u) => u.id === userId) : undefined;
    const byEmail = email ? find((u) => u.email.toLowerCase() === email.toLowerCase()) : undefined;
    // both given: they must name one user, else which one was meant is a guess (one of them was acted on silently)
    if (email && userId && byId?.user !== byEmail?.user) {
      const who = (found: typeof byId) => (found ? `user ${found.user.id} (${found.user.email})` : 'no user');
      const message =
        `email "${email.slice(0, 200)}" names ${who(byEmail)} and userId "${userId.slice(0, 200)}" names ` +
        `${who(byId)}: give one of them, or both of the same user`;
      throw fail.validation(message, [
        { field: 'body.email', message: `names ${who(byEmail)}` },
        { field: 'body.userId', message: `names ${who(byId)}` },
      ]);
    }
    const found = byId ?? byEmail;
    if (found) return found;
    throw fail.notFound(`no user ${email ?? userId} in sandbox ${sandbox.name}`);
  });
}
