// The records a create makes before any is written (docs/data.md, "?count=N"): the factories read the tenant as if
// the records made so far were in it, and nothing reaches the store until every record is made and checked. Then
// one commit writes them all: one copy of each collection, one change of each group a user joins. Making N records
// one insert at a time cost N copies of the collection and N rebuilds of its map by id, so a call took longer the
// larger the collection was (24.6 s for 1,000 users at 10,000, with every other sandbox waiting).
import { fail } from '../errors.js';
import type { Minter } from '../store/ids.js';
import { appendIndexed, findById, type CollectionName, type SandboxStore, type Tenant } from '../store/store.js';

type AnyRecord = Record<string, unknown> & { id: string };
type Derived = { list: readonly unknown[]; length: number; value: unknown };

export class RecordDraft implements Minter {
  /** the tenant as the factories read it: the store's, with the records of this draft appended */
  readonly tenant: Tenant;
  /** the records to insert, by collection, in the order they were made */
  readonly appended = new Map<CollectionName, AnyRecord[]>();
  /** members each user group gains, by group id (a set: in order, and asked for each user made) */
  private readonly joins = new Map<string, Set<string>>();
  private readonly derived = new Map<string, Derived>();
  private sequence: number;
  private readonly startVersion: number;
  private readonly startSequence: number;

  readonly store: SandboxStore;
  /** the store's view of the tenant, where the commit writes */
  readonly real: Tenant;
  /**
   * whether it makes more than one record: only then is a set or map of a whole list worth building (for one, a
   * scan is cheaper, and a create of one record is what a test does most)
   */
  readonly many: boolean;

  constructor(store: SandboxStore, real: Tenant, count = 1) {
    this.store = store;
    this.real = real;
    this.many = count > 1;
    // reads fall through to the store's view; a collection the draft appends to gets an array of its own
    this.tenant = Object.create(real) as Tenant;
    this.sequence = store.meta.sequence;
    this.startVersion = store.version;
    this.startSequence = store.meta.sequence;
  }

  /** The store's next draws, taken ahead: the sequence moves only when the draft is written. */
  mint(purpose: string): Buffer {
    return this.store.mintAt(purpose, this.sequence++);
  }

  append(name: CollectionName, record: AnyRecord): void {
    let own = this.appended.get(name);
    if (!own) {
      own = [];
      this.appended.set(name, own);
      Object.defineProperty(this.tenant, name, {
        value: [...(this.real[name] as readonly AnyRecord[])],
        enumerable: true,
        configurable: true,
      });
    }
    own.push(record);
    appendIndexed(this.tenant[name] as unknown as AnyRecord[], record);
  }

  /** A user joins a group (written once per group at commit: the group holds every member). */
  join(groupId: string, memberId: string): void {
    const added = this.joins.get(groupId) ?? new Set();
    added.add(memberId);
    this.joins.set(groupId, added);
  }

  /** Whether a group has the member, its joins in this draft included. */
  isMember(group: { id: string; memberIds: readonly string[] }, memberId: string): boolean {
    if (!this.many) return group.memberIds.includes(memberId) || (this.joins.get(group.id)?.has(memberId) ?? false);
    const members = this.derive(`members:${group.id}`, group.memberIds, (ids) => new Set(ids));
    return members.has(memberId) || (this.joins.get(group.id)?.has(memberId) ?? false);
  }

  /**
   * What is derived from a list of the draft's tenant (the active users, the e-mails taken), built once and then
   * carried over the records appended since, instead of a scan of the whole list per record. `extend` takes the
   * value and the new items; without it the value is built again when the list grew.
   */
  derive<T, I>(
    key: string,
    list: readonly I[],
    build: (items: readonly I[]) => T,
    extend?: (value: T, added: readonly I[]) => T,
  ): T {
    const known = this.derived.get(key);
    let value: T;
    if (known && known.list === list && known.length === list.length) return known.value as T;
    if (known && known.list === list && extend) value = extend(known.value as T, list.slice(known.length));
    else value = build(list);
    this.derived.set(key, { list, length: list.length, value });
    return value;
  }

  /** Whether the sandbox changed since the draft began (a write by another request while it was being made). */
  get stale(): boolean {
    return this.store.version !== this.startVersion || this.store.meta.sequence !== this.startSequence;
  }

  /** Refuses the draft when a collection it appends to would pass its bound (422), before anything is written. */
  checkRooms(maxRecords: number | undefined): void {
    if (maxRecords === undefined) return;
    for (const [name, records] of this.appended) checkRoom(this.store, this.real, name, records.length, maxRecords);
  }

  /** Writes the draft (in a transaction: whatever goes wrong, the store stays as it was). */
  commit(): void {
    if (this.stale) throw new Error('records draft: the sandbox changed since the draft began');
    for (const [name, records] of this.appended) this.store.insertMany(this.real, name, records as never);
    for (const [groupId, added] of this.joins) {
      const group = findById(this.real.userGroups, groupId);
      if (!group) throw new Error(`records draft: no user group ${groupId}`);
      this.store.update(this.real, 'userGroups', group, { memberIds: [...group.memberIds, ...added] });
    }
    this.store.advanceSequence(this.sequence);
  }
}

/**
 * Refuses a create that would make a collection of the sandbox hold more than its seeded records and `maxRecords`
 * (--max-records): a 422 that says how many there are and how to make room.
 */
export function checkRoom(
  store: SandboxStore,
  tenant: Tenant,
  name: CollectionName,
  adding: number,
  maxRecords: number,
): void {
  const seeded = (store.base.data.tenants[tenant.tenant.id]?.[name] as readonly unknown[] | undefined)?.length ?? 0;
  const holds = tenant[name].length;
  const room = Math.max(0, seeded + maxRecords - holds);
  if (adding <= room) return;
  throw fail.unprocessable(
    `${name} of tenant ${tenant.tenant.id} in sandbox ${store.sandbox} holds ${holds} records; ${adding} more would ` +
      `pass its bound of ${seeded + maxRecords} (the ${seeded} seeded + --max-records ${maxRecords}), ` +
      `${room} fit: make fewer, delete records, reset the sandbox (POST /__admin/reset), or start the mock with a ` +
      'larger --max-records',
    [{ field: 'query.count', message: `at most ${room} more ${name} records fit` }],
  );
}
