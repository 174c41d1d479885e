// What the control-plane routes answer besides the records of control.ts, as TypeBox records: the routes declare
// them as their responses and the typed client (src/client/control.ts) takes its answer types from them, so the two
// cannot drift. No $id: the OpenAPI document shows them inline, as before.
import { Type, type Static } from '@sinclair/typebox';

/** DELETE /__admin/sandboxes/NAME */
export const SandboxDeleted = Type.Object({ deleted: Type.String() });
export type SandboxDeleted = Static<typeof SandboxDeleted>;

/** DELETE /__admin/sandboxes */
export const SandboxesDeleted = Type.Object({
  instance: Type.String({ description: 'the instance that deleted them (its x-mock-instance)' }),
  deleted: Type.Array(Type.String(), { description: 'the names deleted, sorted' }),
});
export type SandboxesDeleted = Static<typeof SandboxesDeleted>;

/** POST /__admin/sandboxes/reset */
export const SandboxesReset = Type.Object({
  instance: Type.String({ description: 'the instance that reset them (its x-mock-instance)' }),
  reset: Type.Array(Type.String(), { description: 'the names reset, sorted' }),
});
export type SandboxesReset = Static<typeof SandboxesReset>;

/** POST /__admin/sessions/expire */
export const SessionsExpired = Type.Object({ expired: Type.Integer() });
export type SessionsExpired = Static<typeof SessionsExpired>;

/** POST /__admin/notifications */
export const NotificationCreated = Type.Object({
  id: Type.String(),
  userId: Type.String(),
  tenantId: Type.String(),
  pushes: Type.Integer({ description: 'push messages sent to the outbox' }),
});
export type NotificationCreated = Static<typeof NotificationCreated>;

/** POST /__admin/users/block */
export const UserBlocked = Type.Object({ userId: Type.String(), state: Type.String() });
export type UserBlocked = Static<typeof UserBlocked>;

/** DELETE /__admin/findings */
export const FindingsCleared = Type.Object({
  cleared: Type.Integer({ description: 'how many findings were dropped' }),
});
export type FindingsCleared = Static<typeof FindingsCleared>;

/** GET /__admin/requests/count */
export const JournalCount = Type.Object({ count: Type.Integer() });
export type JournalCount = Static<typeof JournalCount>;

/** DELETE /__admin/requests */
export const JournalCleared = Type.Object({ cleared: Type.Boolean() });
export type JournalCleared = Static<typeof JournalCleared>;
