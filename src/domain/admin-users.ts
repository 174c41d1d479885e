// The people the control plane acts on (a notification, a block, a bind link), named by e-mail or id in any tenant.
import { fail } from '../errors.js';
import type { SandboxStore } from '../store/store.js';

/**
 * The user named by `userId` or `email` (either; both must name the same one) in any tenant of the sandbox, with
 * that tenant; a 400 when neither is given or they disagree, a 404 when there is none.
 */
export function userByEmailOrId(store: SandboxStore, { email, userId }: { email?: string; userId?: string }) {
  if (!email && !userId)
    throw fail.validation('give email or userId', [{ field: 'body.email', message: 'email or userId is required' }]);
  const find = (matches: (u: { id: string; email: string }) => boolean) => {
    for (const tenant of store.tenants()) {
      const user = tenant.users.find(matches);
      if (user) return { tenant, user };
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
  throw fail.notFound(`no user ${email ?? userId} in sandbox ${store.sandbox}`);
}
