// The same answers as the scans in people.ts and dashboard.ts, read from the indexes of a large tenant.
import type { DepartmentRecord, UserRecord } from '../schemas/records.js';
import type { StructureItem, UserListItem, UserSearchItem } from '../schemas/people.js';
import type { TenantData } from '../store/data.js';
import type { DomainContext } from './context.js';
import { inDayRange, matchesText, paginate, type DayRange, type Paged } from './lists.js';
import { departmentOf, faceUrl, listed, userItem, userListItem, visible } from './people.js';
import { byNameFast, hasWords, queryWords, type PeopleIndex } from './people-index.js';

/** Listed users whose texts hold every word of q, by name, from `offset`, at most `limit`. */
function firstMatches(ix: PeopleIndex, fields: 'name-position-email' | 'name-position', q: string, offset: number, limit: number): UserRecord[] {
  const words = queryWords(q);
  const users = ix.byName;
  // positions (in byName) of the users whose texts match: one scan per distinct query, kept by the index
  const matches = words === null ? null : ix.query(`match:${fields}:${words.join(' ')}`, () => {
    const hay = ix.hay(fields);
    const found: number[] = [];
    for (let i = 0; i < hay.length; i++) if (hasWords(hay[i]!, words)) found.push(i);
    return found;
  });
  const out: UserRecord[] = [];
  let skipped = 0;
  const n = matches === null ? users.length : matches.length;
  for (let k = 0; k < n && out.length < limit; k++) {
    const u = users[matches === null ? k : matches[k]!]!;
    if (!listed(u)) continue;
    if (skipped < offset) { skipped++; continue; }
    out.push(u);
  }
  return out;
}

/** Departments whose name holds every word of q, in store order: one scan per distinct query. */
export function departmentMatchesFast(ix: PeopleIndex, q: string): DepartmentRecord[] {
  return ix.query(`departments:${q}`, () => ix.departments.filter((d) => matchesText(q, [d.name])));
}

export function userSearchFast(ctx: DomainContext, tenant: TenantData, ix: PeopleIndex, q: string, limit: number, offset: number): UserSearchItem[] {
  return firstMatches(ix, 'name-position-email', q, offset, limit).map((u) => ({
    id: u.id, name: u.name, position: u.position, departmentName: departmentOf(tenant, u.departmentId)?.name ?? '', isBoss: u.isBoss,
    faceUrl: faceUrl(ctx, u), department_id: u.departmentId,
  }));
}

export function departmentItemFast(ix: PeopleIndex, d: DepartmentRecord): StructureItem {
  return { type: 'department', id: d.id, name: d.name, path: d.path, ...ix.departmentCounts(d.id) };
}

export function departmentSearchUsersFast(ctx: DomainContext, tenant: TenantData, ix: PeopleIndex, q: string): StructureItem[] {
  return firstMatches(ix, 'name-position', q, 0, 50).map((u) => userItem(ctx, tenant, u));
}

/** People of a department: bosses first, then by name. */
export function departmentPeopleFast(ix: PeopleIndex, departmentId: string): UserRecord[] {
  return (ix.byDepartment.get(departmentId) ?? []).filter(listed).sort((a, b) => Number(b.isBoss) - Number(a.isBoss));
}

export type UserIndexFilters = {
  ids: Set<string> | null; departments: Set<string> | null; groupMembers: Set<string> | null; regStatusId: number | undefined;
  text: Array<['email' | 'name' | 'firstName' | 'lastName' | 'position', string | undefined]>;
  created: DayRange | null; lastLogin: DayRange | null;
};

export function userIndexFast(ctx: DomainContext, tenant: TenantData, ix: PeopleIndex, sorted: UserRecord[], f: UserIndexFilters,
  page: { page?: string | undefined; perPage?: string | undefined }, url: string): Paged<UserListItem> {
  const order = ix.order;
  const texts = f.text.map(([field, q]) => [ix.folded(field), queryWords(q)] as const).filter(([, words]) => words !== null);
  const scan = () => sorted.filter((u) => {
    if (!visible(u) || (f.ids && !f.ids.has(u.id)) || (f.departments && !f.departments.has(u.departmentId))
      || (f.groupMembers && !f.groupMembers.has(u.id)) || (f.regStatusId !== undefined && u.regStatusId !== f.regStatusId)) return false;
    if (texts.length > 0) {
      const i = order.get(u)!;
      for (const [folded, words] of texts) if (!hasWords(folded[i]!, words)) return false;
    }
    return inDayRange(u.createdAt, f.created) && (f.lastLogin === null || inDayRange(u.lastLoginAt, f.lastLogin));
  });
  // Everything the filter reads is in the index's fingerprint except group membership: the same filter gives the
  // same users until the index is dropped, so its result is kept (not with a group filter).
  const sortKey = ix.sortKeyOf(sorted);
  const key = f.groupMembers || sortKey === '' ? null : JSON.stringify([sortKey, f.ids && [...f.ids], f.departments && [...f.departments],
    f.regStatusId, f.text, f.created, f.lastLogin]);
  const users = key === null ? scan() : ix.query(`index:${key}`, scan);
  const result = paginate(users, page, { defaultPerPage: 20, maxPerPage: 20, strict: true }, url);
  return { ...result, data: result.data.map((u) => userListItem(ctx, tenant, u)) };
}

/** Colleagues of the same department, and the heads of the departments right below for a head: bosses first, by name. */
export function myTeamFast(ix: PeopleIndex, user: UserRecord, reportHeads: Set<string | null>): UserRecord[] {
  const picked = new Set<UserRecord>(ix.byDepartment.get(user.departmentId) ?? []);
  for (const id of reportHeads) { const u = id ? ix.byId.get(id) : undefined; if (u) picked.add(u); }
  const order = ix.order;
  return [...picked].filter((u) => listed(u) && u.id !== user.id)
    .sort((a, b) => Number(b.isBoss) - Number(a.isBoss) || byNameFast(a, b) || order.get(a)! - order.get(b)!);
}

export const birthdaysFast = (ix: PeopleIndex, monthDay: string): UserRecord[] =>
  (ix.byBirthday.get(monthDay) ?? []).filter(listed).sort(byNameFast);
