// The data side of a scenario, applied once when it becomes active in a sandbox (at start, by the admin route,
// after a reset). A per-request x-mock-scenario header applies only the behaviour side.
import type { Sandbox } from '../store/sandbox.js';
import type { Fixtures } from '../store/fixtures.js';
import type { Scenario } from './schema.js';

/** Collections a fresh employee needs to sign in: never emptied. */
const signInCollections = new Set(['tenant', 'departments', 'users', 'devices', 'sessions', 'pushTokens', 'bindLinks', 'twoFactorChallenges', 'apiKeys', 'personalTokens', 'employments', 'userGroups', 'meetingPlaces']);
/** Fields by which a record belongs to a person. */
const ownerFields = ['userId', 'user_id', 'recipientId', 'recipient_id', 'ownerId', 'createdUserId', 'created_user_id', 'authorId'];

export function expireSessions(sandbox: Sandbox): number {
  const now = sandbox.clock.iso();
  let n = 0;
  for (const tenant of Object.values(sandbox.data.tenants)) {
    for (const s of tenant.sessions) if (s.expiresAt > now) { s.expiresAt = now; n++; }
  }
  return n;
}

/** The demo accounts become employees hired today with nothing of their own yet. */
function makeNewEmployees(sandbox: Sandbox, fixtures: Fixtures): void {
  const today = sandbox.clock.iso().slice(0, 10);
  for (const fixture of fixtures.tenants) {
    const tenant = sandbox.tenant(fixture.id);
    if (!tenant) continue;
    const ids = new Set(fixture.accounts.map((a) => a.userId));
    for (const user of tenant.users) if (ids.has(user.id)) { user.hiredAt = today; user.statusText = ''; user.activeStatusTypes = []; }
    const collections = tenant as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(collections)) {
      if (signInCollections.has(key) || !Array.isArray(value)) continue;
      collections[key] = value.filter((record: unknown) => !ownedBy(record, ids));
    }
  }
}

const ownedBy = (record: unknown, ids: ReadonlySet<string>) =>
  typeof record === 'object' && record !== null && ownerFields.some((f) => ids.has(String((record as Record<string, unknown>)[f])));

export function activateScenario(sandbox: Sandbox, scenario: Scenario, fixtures: Fixtures): void {
  sandbox.scenario = scenario.name;
  sandbox.stubUses.clear();
  if (scenario.sessions?.expired) expireSessions(sandbox);
  if (scenario.emptyData) makeNewEmployees(sandbox, fixtures);
}

