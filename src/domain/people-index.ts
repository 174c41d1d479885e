// Indexes over a large tenant's users and departments, so search, lists, the structure and the dashboard do not
// scan (and re-fold the texts of) 100 000 users per request.
//
// Built on first use, per tenant, and dropped as soon as the data may have changed: every non-GET request (API or
// admin) calls dataChanged() for every sandbox, and a replaced collection (reset, snapshot import, filter) has a new
// identity. Small tenants (the default 200 users) never use them: below `indexedFrom` users the domain code scans
// as before, so the answers are the same by construction; with an index they are the same by the same order rules
// (stable sorts over the same comparators).
import type { DepartmentRecord, UserRecord } from '../schemas/records.js';
import type { Data, TenantData } from '../store/data.js';
import { foldText, sortBy } from './lists.js';
import { compareRuEn } from './collate.js';

/** Tenants with at least this many users are indexed. */
export const indexedFrom = 5000;

// Caches keyed by object identity: they hold nothing an app instance could see from another one.
const versions = new WeakMap<Data, number>();
const indexes = new WeakMap<TenantData, PeopleIndex>();

/** Marks a store as possibly changed: its indexes are rebuilt on next use. */
export function dataChanged(data: Data): void {
  versions.set(data, (versions.get(data) ?? 0) + 1);
}

/** the same order as `a.name.localeCompare(b.name, ['ru', 'en'])` */
export const byNameFast = (a: UserRecord, b: UserRecord) => compareRuEn(a.name, b.name);

const hayOf = (texts: ReadonlyArray<string | null | undefined>) => foldText(texts.filter(Boolean).join(' \u0000 '));

export class PeopleIndex {
  readonly users: UserRecord[];
  readonly departments: DepartmentRecord[];
  readonly version: number;
  private readonly tenant: TenantData;
  private readonly employments: TenantData['employments'];
  constructor(tenant: TenantData, version: number) {
    this.tenant = tenant;
    this.employments = tenant.employments;
    this.users = tenant.users;
    this.departments = tenant.departments;
    this.version = version;
  }
  fresh(tenant: TenantData, version: number): boolean {
    return this.version === version && this.users === tenant.users && this.departments === tenant.departments
      && this.employments === tenant.employments;
  }

  private cache = new Map<string, unknown>();
  private memo<T>(key: string, make: () => T): T {
    if (!this.cache.has(key)) this.cache.set(key, make());
    return this.cache.get(key) as T;
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
  private get counts(): { employments: Map<string, number>; listedPeople: Set<string> } {
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
    return sorted;
  }
}

/** The index of a large tenant, or null for a small one (scan it). */
export function peopleIndex(data: Data, tenant: TenantData): PeopleIndex | null {
  if (tenant.users.length < indexedFrom) return null;
  const version = versions.get(data) ?? 0;
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
