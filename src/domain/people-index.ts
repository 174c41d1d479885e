// Indexes over a large tenant's users and departments, so search, lists, the structure and the dashboard do not
// scan (and re-fold the texts of) 100 000 users per request.
//
// Built on first use, per tenant (and once at start for --users above the clone limit, see app.ts). Every non-GET
// request (API or admin) bumps the store's version (src/http/data-version.ts); the next use then compares the
// fields the index reads (a fingerprint: every user, department and employment slot and the fields below, by `===`)
// and keeps the index only if none changed. A replaced collection (reset, snapshot import, filter) has a new
// identity and is never reused. Small tenants (the default 200 users) never use indexes: below `indexedFrom` users
// the domain code scans as before, so the answers are the same by construction; with an index they are the same by
// the same order rules (stable sorts over the same comparators).
import type { DepartmentRecord, UserRecord } from '../schemas/records.js';
import type { Data, TenantData } from '../store/data.js';
import { foldText, sortBy } from './lists.js';
import { compareRuEn } from './collate.js';
import { dataVersion } from '../store/data-version.js';

/** Tenants with at least this many users are indexed. */
export const indexedFrom = 5000;

// Caches keyed by object identity: they hold nothing an app instance could see from another one.
const indexes = new WeakMap<TenantData, PeopleIndex>();


/** the same order as `a.name.localeCompare(b.name, ['ru', 'en'])` */
export const byNameFast = (a: UserRecord, b: UserRecord) => compareRuEn(a.name, b.name);

const hayOf = (texts: ReadonlyArray<string | null | undefined>) => foldText(texts.filter(Boolean).join(' \u0000 '));

// What the index and its caches read; a change to any of these (or to which records are in the collections) drops it.
const userFields = ['id', 'name', 'position', 'email', 'firstName', 'lastName', 'departmentId', 'birthday', 'hiredAt', 'state',
  'regStatusId', 'createdAt', 'lastLoginAt', 'isBoss'] as const satisfies ReadonlyArray<keyof UserRecord>;
const departmentFields = ['id', 'parentId', 'name', 'path', 'headId'] as const satisfies ReadonlyArray<keyof DepartmentRecord>;
const employmentFields = ['userId', 'departmentId', 'statusId', 'isMain'] as const satisfies ReadonlyArray<keyof TenantData['employments'][number]>;

/** The records of the three collections and the fields read from them, flat, in order. */
function fingerprint(tenant: TenantData): unknown[] {
  const out: unknown[] = [];
  for (const u of tenant.users) { out.push(u); for (const f of userFields) out.push(u[f]); }
  for (const d of tenant.departments) { out.push(d); for (const f of departmentFields) out.push(d[f]); }
  for (const e of tenant.employments) { out.push(e); for (const f of employmentFields) out.push(e[f]); }
  return out;
}
function sameFingerprint(tenant: TenantData, expected: unknown[]): boolean {
  const { users, departments, employments } = tenant;
  if (expected.length !== users.length * (userFields.length + 1) + departments.length * (departmentFields.length + 1)
    + employments.length * (employmentFields.length + 1)) return false;
  let i = 0;
  for (const u of users) { if (expected[i++] !== u) return false; for (const f of userFields) if (expected[i++] !== u[f]) return false; }
  for (const d of departments) { if (expected[i++] !== d) return false; for (const f of departmentFields) if (expected[i++] !== d[f]) return false; }
  for (const e of employments) { if (expected[i++] !== e) return false; for (const f of employmentFields) if (expected[i++] !== e[f]) return false; }
  return true;
}

/** Distinct queries whose answers an index keeps (least recently used dropped first). */
const queryCacheSize = 256;

export class PeopleIndex {
  readonly users: UserRecord[];
  readonly departments: DepartmentRecord[];
  version: number;
  private readonly tenant: TenantData;
  private readonly employments: TenantData['employments'];
  private readonly print: unknown[];
  constructor(tenant: TenantData, version: number) {
    this.tenant = tenant;
    this.employments = tenant.employments;
    this.users = tenant.users;
    this.departments = tenant.departments;
    this.version = version;
    this.print = fingerprint(tenant);
  }
  /** Whether the index still describes the tenant: same collections and, after a write, the same fingerprint. */
  fresh(tenant: TenantData, version: number): boolean {
    if (this.users !== tenant.users || this.departments !== tenant.departments || this.employments !== tenant.employments) return false;
    if (this.version === version) return true;
    if (!sameFingerprint(tenant, this.print)) return false;
    this.version = version;
    return true;
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
    void this.byId; void this.departmentById; void this.hay('name-position-email'); void this.hay('name-position');
    void this.byDepartment; void this.counts; void this.childrenOf;
  }

  get byId(): Map<string, UserRecord> {
    return this.memo('byId', () => new Map(this.users.map((u) => [u.id, u])));
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
    return this.memo(`hay:${fields}`, () => this.byName.map((u) => (fields === 'name-position' ? hayOf([u.name, u.position]) : hayOf([u.name, u.position, u.email]))));
  }
  /** one folded field per user, in store order */
  folded(field: 'email' | 'name' | 'firstName' | 'lastName' | 'position'): string[] {
    return this.memo(`folded:${field}`, () => this.users.map((u) => foldText(u[field])));
  }
  /** users of each department, by name */
  get byDepartment(): Map<string, UserRecord[]> {
    return this.memo('byDepartment', () => {
      const map = new Map<string, UserRecord[]>();
      for (const u of this.byName) {
        const list = map.get(u.departmentId);
        if (list) list.push(u); else map.set(u.departmentId, [u]);
      }
      return map;
    });
  }
  get byBirthday(): Map<string, UserRecord[]> {
    return this.memo('byBirthday', () => {
      const map = new Map<string, UserRecord[]>();
      for (const u of this.users) {
        const k = u.birthday.slice(5);
        const list = map.get(k);
        if (list) list.push(u); else map.set(k, [u]);
      }
      return map;
    });
  }
  get childrenOf(): Map<string, DepartmentRecord[]> {
    return this.memo('childrenOf', () => {
      const map = new Map<string, DepartmentRecord[]>();
      for (const d of this.departments) {
        if (!d.parentId) continue;
        const list = map.get(d.parentId);
        if (list) list.push(d); else map.set(d.parentId, [d]);
      }
      return map;
    });
  }
  /** counts of the structure: employments (not terminated, of active users) per department, listed people per department */
  get counts(): { employments: Map<string, number>; listedPeople: Set<string> } {
    return this.memo('counts', () => {
      const active = new Set<string>();
      const listedPeople = new Set<string>();
      for (const u of this.users) if (u.state === 'active') { active.add(u.id); listedPeople.add(u.departmentId); }
      const employments = new Map<string, number>();
      for (const e of this.employments) {
        if (e.statusId !== 3 && active.has(e.userId)) employments.set(e.departmentId, (employments.get(e.departmentId) ?? 0) + 1);
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
      for (const c of this.childrenOf.get(cur) ?? []) if (!seen.has(c.id)) { seen.add(c.id); stack.push(c.id); }
    }
    const hasChildren = (this.childrenOf.get(id)?.length ?? 0) > 0;
    return { employmentsCount, empty: !hasChildren && !listedPeople.has(id) };
  }
  /** the users sorted as sortBy(users, sort, keys) would, cached per sort */
  sorted(sort: string, keys: Record<string, (u: UserRecord) => string | number | null>): UserRecord[] {
    const hit = this.cache.get(`sort:${sort}`) as UserRecord[] | undefined;
    if (hit) return hit;
    const sorted = sortBy(this.users, sort, keys); // throws on an unknown field: nothing cached
    this.cache.set(`sort:${sort}`, sorted);
    this.sortNames.set(sorted, sort);
    return sorted;
  }
  private sortNames = new WeakMap<UserRecord[], string>();
  /** the sort a list from `sorted` was made by ('' for another list) */
  sortKeyOf(list: UserRecord[]): string {
    return this.sortNames.get(list) ?? '';
  }
}

/** The index of a large tenant, or null for a small one (scan it). */
export function peopleIndex(data: Data, tenant: TenantData): PeopleIndex | null {
  if (tenant.users.length < indexedFrom) return null;
  const version = dataVersion(data);
  const existing = indexes.get(tenant);
  if (existing?.fresh(tenant, version)) return existing;
  const index = new PeopleIndex(tenant, version);
  indexes.set(tenant, index);
  return index;
}

/** Whether every folded word of q is in the folded haystack: matchesText over precomputed texts. */
export function queryWords(q: string | undefined): string[] | null {
  if (!q || q.trim() === '') return null;
  return foldText(q).split(/\s+/).filter(Boolean);
}
export const hasWords = (hay: string, words: string[] | null) => words === null || words.every((w) => hay.includes(w));
