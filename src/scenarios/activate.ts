// The data side of a scenario, applied once when it becomes active in a sandbox (when the sandbox is made, by the admin
// route, after a reset; not when --data brings a sandbox back). A per-request x-mock-scenario header applies only the
// behaviour side.
import type { Sandbox } from '../store/sandbox.js';
import type { Fixtures } from '../store/fixtures.js';
import type { Scenario } from '../schemas/scenario.js';
import { collectionNames, type CollectionName } from '../store/store.js';

/** Collections a fresh employee needs to sign in: never emptied. */
const signInCollections = new Set<CollectionName>([
  'departments',
  'users',
  'devices',
  'sessions',
  'pushTokens',
  'bindLinks',
  'twoFactorChallenges',
  'apiKeys',
  'personalTokens',
  'employments',
  'userGroups',
  'meetingPlaces',
]);
/** Fields by which a record belongs to a person. */
const ownerFields = [
  'userId',
  'user_id',
  'recipientId',
  'recipient_id',
  'ownerId',
  'createdUserId',
  'created_user_id',
  'authorId',
];

export function expireSessions(sandbox: Sandbox): number {
  const now = sandbox.clock.iso();
  let n = 0;
  for (const tenant of sandbox.store.tenants())
    n += sandbox.store.updateWhere(
      tenant,
      'sessions',
      (s) => s.expiresAt > now,
      () => ({ expiresAt: now }),
    );
  return n;
}

/** The demo accounts become employees hired today with nothing of their own yet. */
function makeNewEmployees(sandbox: Sandbox, fixtures: Fixtures): void {
  const today = sandbox.clock.iso().slice(0, 10);
  for (const fixture of fixtures.tenants) {
    const tenant = sandbox.store.tenant(fixture.id);
    if (!tenant) continue;
    const ids = new Set(fixture.accounts.map((a) => a.userId));
    sandbox.store.updateWhere(
      tenant,
      'users',
      (u) => ids.has(u.id),
      () => ({ hiredAt: today, statusText: '', activeStatusTypes: [] }),
    );
    for (const key of collectionNames) {
      if (!signInCollections.has(key)) sandbox.store.remove(tenant, key, (record: unknown) => ownedBy(record, ids));
    }
  }
}

const ownedBy = (record: unknown, ids: ReadonlySet<string>) =>
  typeof record === 'object' &&
  record !== null &&
  ownerFields.some((f) => ids.has(String((record as Record<string, unknown>)[f])));

/**
 * Makes `scenario` the sandbox's and applies its data side. Under --data the name and the data it changed are one
 * log line: a restart sets the name again without applying the data side twice (it is in the log).
 */
export function activateScenario(sandbox: Sandbox, scenario: Scenario, fixtures: Fixtures): void {
  sandbox.change(() => {
    sandbox.scenario = scenario.name;
    sandbox.stubUses.clear();
    if (scenario.sessions?.expired) expireSessions(sandbox);
    if (scenario.emptyData) makeNewEmployees(sandbox, fixtures);
  });
}
