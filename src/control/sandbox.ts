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
 * explicit act on a named sandbox (docs/sandboxes.md). Reads use existingSandbox.
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
 * it, and nothing is created, so a misspelt name never reads as an empty sandbox. With --peers, give the route
 * `preHandler: ownerFirst` so that the 404 is said only when no peer holds it either.
 */
export function existingSandbox(req: FastifyRequest, { peersAsked = true } = {}): Sandbox {
  const name = checkedName(req);
  const found = req.server.sandboxes.find(name);
  if (!found) throw sandboxNotFound(req, name, peersAsked);
  return found;
}

/**
 * preHandler of an admin route that acts on the sandbox of its key, so that with --peers it never makes a second copy
 * of a sandbox another instance holds: the call is done by that instance, or is a 503 while a peer that may hold it
 * cannot be asked (forwardToOwner). `app.post('/__admin/reset', { schema, preHandler: ownerFirst }, handler)`
 */
export async function ownerFirst(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
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
  // a user that is not there makes no sandbox
  return adminWrite(req, (sandbox) => {
    for (const tenant of sandbox.store.tenants()) {
      const user = tenant.users.find(
        (u) => (userId && u.id === userId) || (email && u.email.toLowerCase() === email.toLowerCase()),
      );
      if (user) return { sandbox, tenant, user };
    }
    throw fail.notFound(`no user ${email ?? userId} in sandbox ${sandbox.name}`);
  });
}
