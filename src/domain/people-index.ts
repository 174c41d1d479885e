// Indexes over a tenant's users, departments and employments, so search, lists, the structure and the dashboard do
// not scan (and re-fold the texts of) every user per request. The store's collections are frozen and replaced on
// every write (src/store/store.ts), so an index belongs to the three arrays it was built from: a sandbox that never
// wrote them shares the base world's index, and a write makes the next use build a new one, piece by piece.
import type { DepartmentRecord, UserRecord } from '../schemas/records.js';
import { updatedFrom, type Tenant } from '../store/store.js';
import { foldedHay, foldText, sortBy } from './lists.js';
import { compareRuEn } from './collate.js';

// Keyed by the users array: an index lives as long as the collection it describes, in whichever sandbox.
const indexes = new WeakMap<readonly UserRecord[], PeopleIndex>();

/** the same order as `a.name.localeCompare(b.name, ['ru', 'en'])` */
export const byNameFast = (a: UserRecord, b: UserRecord) => compareRuEn(a.name, b.name);

/** The items by key (items whose key is null left out), each group in the items' order. */
function groupBy<T>(items: readonly T[], key: (item: T) => string | null): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    if (k === null) continue;
    const group = map.get(k);
    if (group) group.push(item);
    else map.set(k, [item]);
  }
  return map;
}

/** Distinct queries whose answers an index keeps (least recently used dropped first). */
const queryCacheSize = 256;

export class PeopleIndex {
  readonly users: readonly UserRecord[];
  readonly departments: readonly DepartmentRecord[];
  readonly employments: Tenant['employments'];
  constructor(tenant: Tenant) {
    this.employments = tenant.employments;
    this.users = tenant.users;
    this.departments = tenant.departments;
  }
  /** Whether the index still describes the tenant: built from the same three collections. */
  fresh(tenant: Tenant): boolean {
    return (
      this.users === tenant.users && this.departments === tenant.departments && this.employments === tenant.employments
    );
  }

  private cache = new Map<string, unknown>();
  private memo<T>(key: string, make: () => T): T {
    if (!this.cache.has(key)) this.cache.set(key, make());
    return this.cache.get(key) as T;
  }
  private queries = new Map<string, unknown>();
  /** The answer to one query (e.g. a search text), kept for the next request with the same query. */
  query<T>(key: string, make: () => T): T {
    if (this.queries.has(key)) {
      const hit = this.queries.get(key) as T;
      this.queries.delete(key); // most recently used last
      this.queries.set(key, hit);
      return hit;
    }
    const value = make();
    this.queries.set(key, value);
    if (this.queries.size > queryCacheSize) this.queries.delete(this.queries.keys().next().value!);
    return value;
  }
  /** Builds the indexes every request of a large tenant reads, so the first requests do not pay for them. */
  warm(): void {
    void this.byId;
    void this.departmentById;
    void this.hay('name-position-email');
    void this.hay('name-position');
    void this.byDepartment;
    void this.counts;
    void this.childrenOf;
  }

  get byId(): UsersById {
    return this.memo('byId', () => new UsersById(new Map(this.users.map((u) => [u.id, u])), null));
  }
  /**
   * This index for `tenant`, whose users are these with the records at `changed` replaced: the id lookup carries over.
   */
  carriedTo(tenant: Tenant, changed: readonly number[]): PeopleIndex {
    const next = new PeopleIndex(tenant);
    const lookup = this.cache.get('byId') as UsersById | undefined;
    const sameIds = changed.every((i) => tenant.users[i]!.id === this.users[i]!.id);
    if (lookup && sameIds) next.cache.set('byId', lookup.with(changed.map((i) => tenant.users[i]!)));
    return next;
  }
  get order(): Map<UserRecord, number> {
    return this.memo('order', () => new Map(this.users.map((u, i) => [u, i])));
  }
  get departmentById(): Map<string, DepartmentRecord> {
    return this.memo('departmentById', () => new Map(this.departments.map((d) => [d.id, d])));
  }
  /** every user, sorted by name (stable: ties keep the store's order) */
  get byName(): UserRecord[] {
    return this.memo('byName', () => [...this.users].sort(byNameFast));
  }
  /** folded texts of `byName`, as matchesText would build them from the given fields */
  hay(fields: 'name-position-email' | 'name-position'): string[] {
    const texts =
      fields === 'name-position'
        ? (u: UserRecord) => [u.name, u.position]
        : (u: UserRecord) => [u.name, u.position, u.email];
    return this.memo(`hay:${fields}`, () => this.byName.map((u) => foldedHay(texts(u))));
  }
  /** one folded field per user, in store order */
  folded(field: 'email' | 'name' | 'firstName' | 'lastName' | 'position'): string[] {
    return this.memo(`folded:${field}`, () => this.users.map((u) => foldText(u[field])));
  }
  /** users of each department, by name */
  get byDepartment(): Map<string, UserRecord[]> {
    return this.memo('byDepartment', () => groupBy(this.byName, (u) => u.departmentId));
  }
  /** users by the month and day of their birthday (MM-dd) */
  get byBirthday(): Map<string, UserRecord[]> {
    return this.memo('byBirthday', () => groupBy(this.users, (u) => u.birthday.slice(5)));
  }
  get childrenOf(): Map<string, DepartmentRecord[]> {
    return this.memo('childrenOf', () => groupBy(this.departments, (d) => d.parentId || null));
  }
  /**
   * counts of the structure: employments (not terminated, of active users) per department, listed people per department
   */
  get counts(): { employments: Map<string, number>; listedPeople: Set<string> } {
    return this.memo('counts', () => {
      const active = new Set<string>();
      const listedPeople = new Set<string>();
      for (const u of this.users)
        if (u.state === 'active') {
          active.add(u.id);
          listedPeople.add(u.departmentId);
        }
      const employments = new Map<string, number>();
      for (const e of this.employments) {
        if (e.statusId !== 3 && active.has(e.userId))
          employments.set(e.departmentId, (employments.get(e.departmentId) ?? 0) + 1);
      }
      return { employments, listedPeople };
    });
  }
  /** employments within a department's subtree, and whether it is empty (no sub-departments, no listed people) */
  departmentCounts(id: string): { employmentsCount: number; empty: boolean } {
    const { employments, listedPeople } = this.counts;
    const seen = new Set<string>([id]);
    const stack = [id];
    let employmentsCount = 0;
    while (stack.length > 0) {
      const cur = stack.pop()!;
      employmentsCount += employments.get(cur) ?? 0;
      for (const c of this.childrenOf.get(cur) ?? [])
        if (!seen.has(c.id)) {
          seen.add(c.id);
          stack.push(c.id);
        }
    }
    const hasChildren = (this.childrenOf.get(id)?.length ?? 0) > 0;
    return { employmentsCount, empty: !hasChildren && !listedPeople.has(id) };
  }
  /** the users sorted as sortBy(users, sort, keys) would, cached per sort (an unknown field throws: nothing cached) */
  sorted(sort: string, keys: Record<string, (u: UserRecord) => string | number | null>): UserRecord[] {
    return this.memo(`sort:${sort}`, () => sortBy(this.users, sort, keys));
  }
}

/**
 * Users by id. Every authenticated request looks its user up, and a write replaces user records: so rather than
 * build the whole map again, a write's lookup keeps the replaced records over the previous one, and a chain of them
 * is flattened into one map every `maxLayers` writes.
 */
export class UsersById {
  private static readonly maxLayers = 32;
  private readonly own: Map<string, UserRecord>;
  private readonly below: UsersById | null;
  private readonly layers: number;
  constructor(own: Map<string, UserRecord>, below: UsersById | null) {
    this.own = own;
    this.below = below;
    this.layers = below ? below.layers + 1 : 1;
  }
  get(id: string): UserRecord | undefined {
    return this.own.get(id) ?? this.below?.get(id);
  }
  /** This lookup with these records replacing the ones of the same id. */
  with(records: readonly UserRecord[]): UsersById {
    const own = new Map(records.map((u) => [u.id, u]));
    if (this.layers < UsersById.maxLayers) return new UsersById(own, this);
    // flattened from the top down: the first record met for an id is the newest
    for (let layer: UsersById | null = this; layer; layer = layer.below) {
      for (const [id, u] of layer.own) if (!own.has(id)) own.set(id, u);
    }
    return new UsersById(own, null);
  }
}

/** The index of a tenant's people, as its collections are now. */
export function peopleIndex(tenant: Tenant): PeopleIndex {
  const existing = indexes.get(tenant.users);
  if (existing?.fresh(tenant)) return existing;
  const step = existing ? undefined : updatedFrom(tenant.users);
  const previous = step ? indexes.get(step.from as readonly UserRecord[]) : undefined;
  const index =
    step && previous?.fresh({ ...tenant, users: step.from as Tenant['users'] })
      ? previous.carriedTo(tenant, step.changed)
      : new PeopleIndex(tenant);
  indexes.set(tenant.users, index);
  return index;
}
