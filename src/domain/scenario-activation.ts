// The data side of a scenario, applied once when it becomes active in a sandbox (when the sandbox is made, by the admin
// route, after a reset; not when --data brings a sandbox back). A per-request x-mock-scenario header applies only the
// behaviour side.
import { Sandbox } from '../store/sandbox.js';
import type { Fixtures } from '../store/fixtures.js';
import type { DataEntry, Scenario } from '../schemas/scenario.js';
import type { ClockState } from '../schemas/control.js';
import { collectionNames, SandboxStore, type CollectionName } from '../store/store.js';
import type { BaseWorld, Worlds } from '../store/world.js';
import { SeededRandom } from '../store/random.js';
import { ApiError, type Detail, fail } from '../errors.js';
import type { Tenant } from '../store/store.js';
import { createRecords, deleteRecord, getRecord, patchRecord, recordTenant } from './records.js';

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

/** A data block that does not apply to the sandbox: a 422 naming the entry (a stopped start, at start-up). */
export class ScenarioDataError extends ApiError {
  constructor(message: string, details?: Detail[]) {
    super('unprocessable', message, details);
  }
}

/** An entry as its error names it: `data[2] (patch users ID)`. */
function entryLabel(entry: DataEntry, at: string): string {
  if ('create' in entry) return `${at} (create ${entry.create}${entry.count ? ` ×${entry.count}` : ''})`;
  if ('patch' in entry) return `${at} (patch ${entry.patch} ${entry.id})`;
  return `${at} (remove ${entry.remove} ${entry.id})`;
}

type DataPatch = Extract<DataEntry, { patch: string }>;

/**
 * The fields a patch entry sets: `set` as given, and each list `drop` and `add` name made from the record's list
 * (its items less those dropped, then those added). A dropped item the list lacks means the entry was made against
 * another world: refused, as a patch of a record it lacks is.
 */
function patchedFields(tenant: Tenant, entry: DataPatch): Record<string, unknown> {
  const { set, drop = {}, add = {} } = entry;
  if (set === undefined && Object.keys(drop).length === 0 && Object.keys(add).length === 0)
    throw fail.unprocessable('a patch changes nothing: give set, drop or add', [
      { field: 'set', message: 'set, drop or add is required' },
    ]);
  const fields: Record<string, unknown> = { ...set };
  const current = getRecord(tenant, entry.patch, entry.id);
  for (const field of new Set([...Object.keys(drop), ...Object.keys(add)])) {
    const how = field in drop ? 'drop' : 'add';
    const problem = (message: string) =>
      fail.unprocessable(`${field}: ${message}`, [{ field: `${how}.${field}`, message }]);
    if (field in fields) throw problem('given in set and changed by drop or add: give it one way');
    const list: unknown = current[field];
    if (!Array.isArray(list)) throw problem(`the record's ${field} is not a list`);
    const dropped = new Set(drop[field] ?? []);
    const present = new Set(list); // a Set: a list of 100,000 members and a long drop stay linear
    const missing = [...dropped].find((item) => !present.has(item));
    if (missing !== undefined) throw problem(`the list holds no "${missing.slice(0, 80)}" to drop`);
    fields[field] = [...list.filter((item) => !dropped.has(item as string)), ...(add[field] ?? [])];
  }
  return fields;
}

/** Where an entry's record fields are, for an error's details: the records API names them `body.FIELD`. */
const entryFields = (entry: DataEntry) => ('create' in entry ? 'record' : 'set');

/**
 * Applies a scenario's data block (`data`, then a capture's `followed`) through the records API's domain functions,
 * in order. A tenant left out is the first tenant of the fixtures. An entry that fails throws a 422 naming it; the
 * caller's transaction undoes the rest.
 */
function applyData(store: SandboxStore, scenario: Scenario, fixtures: Fixtures, now: Date): void {
  const firstTenant = fixtures.tenants[0]!.id; // the fixtures schema has minItems 1
  const blocks = [
    ['data', scenario.data ?? []],
    ['followed', scenario.followed ?? []],
  ] as const;
  for (const [block, entries] of blocks)
    for (const [i, entry] of entries.entries()) {
      const at = `${block}[${i}]`;
      try {
        const tenant = recordTenant(store, entry.tenant ?? firstTenant);
        // records are stamped by the sandbox clock, as the records API stamps them
        if ('create' in entry) {
          const { count, dependents } = entry;
          createRecords(store, tenant, entry.create, entry.record ?? {}, { count, now, dependents });
        } else if ('patch' in entry) patchRecord(store, tenant, entry.patch, entry.id, patchedFields(tenant, entry));
        else deleteRecord(store, tenant, entry.remove, entry.id);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        // the data does not fit this sandbox: 422 whatever the records API would have answered (a 404 here is not
        // an unknown scenario)
        const details = err.details?.map((d) => ({
          field: `${at}.${d.field.replace(/^body\./, `${entryFields(entry)}.`)}`,
          message: d.message,
        }));
        throw new ScenarioDataError(`scenario "${scenario.name}": ${entryLabel(entry, at)}: ${err.message}`, details);
      }
    }
}

/** The id-less collections a capture pins, whole, in place of the base world's; an unknown tenant is a 422. */
function applyPinnedCollections(store: SandboxStore, scenario: Scenario): void {
  for (const [tenantId, collections] of Object.entries(scenario.pin?.collections ?? {})) {
    const tenant = store.tenant(tenantId);
    if (!tenant)
      throw new ScenarioDataError(
        `scenario "${scenario.name}": pin.collections names tenant ${tenantId.slice(0, 80)}, which the fixtures do not have`,
        [{ field: `pin.collections.${tenantId.slice(0, 80)}`, message: 'unknown tenant' }],
      );
    for (const [name, records] of Object.entries(collections) as Array<[CollectionName, unknown[]]>) {
      store.remove(tenant, name, () => true);
      for (const record of records) store.insert(tenant, name, record as never);
    }
  }
}

/** The base world and clock a bug capture pins (`pin`), or null for a scenario that pins nothing. */
function pinnedWorld(scenario: Scenario, worlds: Worlds): { world: BaseWorld; clock: ClockState } | null {
  const { pin } = scenario;
  return pin ? { world: worlds.get(pin.seed, new Date(pin.refDate)), clock: pin.clock } : null;
}

/**
 * Makes `scenario` the sandbox's and applies its data side, all or nothing: when an entry of its data block fails
 * (a 422 naming it), the sandbox keeps its previous scenario, data, clock and stubs. A scenario that pins the world (a
 * bug capture: `pin`) first puts the sandbox back on the base world of its seed and reference date and freezes its
 * clock there. `stubs` become the sandbox's WireMock mappings and scenario states, as the scenario registry made
 * them (`ScenarioRegistry.wiremockOf`: those of --wiremock followed by the scenario's, every WireMock scenario in
 * "Started"; a capture's own, whole, with its states; this part does not read WireMock mappings). Under --data the
 * name and the data it changed are one log line: a restart sets the name again without applying the data side twice
 * (it is in the log).
 */
export function activateScenario(
  sandbox: Sandbox,
  scenario: Scenario,
  fixtures: Fixtures,
  worlds: Worlds,
  stubs: Sandbox['wiremock'],
): void {
  const pinned = pinnedWorld(scenario, worlds); // a 429 past --max-worlds, before anything changes
  sandbox.change(() => {
    if (pinned) {
      sandbox.store.reset(pinned.world);
      sandbox.clock.state = pinned.clock;
      applyPinnedCollections(sandbox.store, scenario);
    }
    if (scenario.sessions?.expired) expireSessions(sandbox);
    if (scenario.emptyData) makeNewEmployees(sandbox, fixtures);
    applyData(sandbox.store, scenario, fixtures, sandbox.clock.now()); // last: a scenario extending new-employee can give them records
    // only once the data applied: a refused scenario leaves the name, randomness and stub counts as they were
    if (pinned) sandbox.random = new SeededRandom(pinned.world.data.meta.seed, sandbox.name);
    sandbox.scenario = scenario.name;
    sandbox.wiremock = stubs;
    sandbox.stubUses.clear();
  });
}

/**
 * Throws what activating `scenario` would throw in a sandbox of that name made fresh from `world`, changing nothing:
 * a reset checks first that the start scenario's data fits the world it goes back to, so a refused reset keeps
 * the sandbox as it was.
 */
export function checkActivation(
  name: string,
  world: BaseWorld,
  clock: ClockState,
  scenario: Scenario,
  fixtures: Fixtures,
  worlds: Worlds,
): void {
  // nothing else of a scenario's data side can fail
  if (!scenario.data?.length && !scenario.followed?.length && !scenario.wiremock) return;
  const store = new SandboxStore(name, world, { recordChanges: false });
  const probe = new Sandbox({
    name,
    store,
    log: null,
    journalLimit: 1,
    start: { scenario: 'default', clock },
    own: {},
  });
  activateScenario(probe, scenario, fixtures, worlds, probe.wiremock);
}
