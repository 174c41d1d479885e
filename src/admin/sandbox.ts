import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { fail } from '../errors.js';
import { isSandboxName, type Sandbox } from '../store/sandbox.js';

/** The sandbox an admin call is about: `sandbox` query, else x-mock-sandbox, else the path prefix, else default. */
export function adminSandbox(req: FastifyRequest, create = true): Sandbox {
  const q = (req.query as Record<string, unknown> | undefined)?.sandbox;
  const b = (req.body as Record<string, unknown> | undefined)?.sandbox;
  const h = req.headers['x-mock-sandbox'];
  const pick = [q, b, h].find((v): v is string => typeof v === 'string' && v !== '');
  const name = pick ?? req.sandbox.name;
  if (!isSandboxName(name)) throw fail.badRequest(`sandbox name "${name.slice(0, 80)}" is invalid: use 1 to 64 letters, digits, "-" or "_"`);
  const found = req.server.sandboxes.find(name);
  if (found) return found;
  if (!create) throw fail.notFound(`sandbox "${name}" not found`);
  return req.server.sandboxes.get(name);
}

export const SandboxQuery = Type.Object({ sandbox: Type.Optional(Type.String({ description: 'the sandbox (else x-mock-sandbox, else default)' })) });

/** A user of the sandbox by id or e-mail, with their tenant; 404 when there is none. */
export function findUser(sandbox: Sandbox, who: { email?: string | undefined; userId?: string | undefined }) {
  const { email, userId } = who;
  if (!email && !userId) throw fail.validation('give email or userId', [{ field: 'body.email', message: 'email or userId is required' }]);
  for (const tenant of sandbox.store.tenants()) {
    const user = tenant.users.find((u) => (userId && u.id === userId) || (email && u.email.toLowerCase() === email.toLowerCase()));
    if (user) return { tenant, user };
  }
  throw fail.notFound(`no user ${email ?? userId} in sandbox ${sandbox.name}`);
}
