// The same answers as the scans in people.ts and dashboard.ts, read from the indexes of a large tenant.
import type { DepartmentRecord, UserRecord } from '../schemas/records.js';
import type { StructureItem, UserListItem, UserSearchItem } from '../schemas/people.js';
import type { TenantData } from '../store/data.js';
import type { DomainContext } from './context.js';
import { inDayRange, paginate, type DayRange, type Paged } from './lists.js';
import { departmentOf, faceUrl, listed, userItem, userListItem, visible } from './people.js';
import { byNameFast, hasWords, queryWords, type PeopleIndex } from './people-index.js';

/** Listed users whose texts hold every word of q, by name, from `offset`, at most `limit`. */
function firstMatches(ix: PeopleIndex, fields: 'name-position-email' | 'name-position', q: string, offset: number, limit: number): UserRecord[] {
  const words = queryWords(q);
  const hay = ix.hay(fields);
  const out: UserRecord[] = [];
  let skipped = 0;
  const users = ix.byName;
  for (let i = 0; i < users.length && out.length < limit; i++) {
    const u = users[i]!;
    if (!listed(u) || !hasWords(hay[i]!, words)) continue;
    if (skipped < offset) { skipped++; continue; }
    out.push(u);
  }
  return out;
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
  const users = sorted.filter((u) => {
    if (!visible(u) || (f.ids && !f.ids.has(u.id)) || (f.departments && !f.departments.has(u.departmentId))
      || (f.groupMembers && !f.groupMembers.has(u.id)) || (f.regStatusId !== undefined && u.regStatusId !== f.regStatusId)) return false;
    if (texts.length > 0) {
      const i = order.get(u)!;
      for (const [folded, words] of texts) if (!hasWords(folded[i]!, words)) return false;
    }
    return inDayRange(u.createdAt, f.created) && (f.lastLogin === null || inDayRange(u.lastLoginAt, f.lastLogin));
  });
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
