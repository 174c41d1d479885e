// Users, employments, account statuses, lookups and the organisation structure of the people group.
import { fail } from '../errors.js';
import type { DepartmentRecord, EmploymentRecord, UserGroupRecord, UserRecord } from '../schemas/records.js';
import type {
  DepartmentRef,
  DepartmentTreeNode,
  FullEmployment,
  LookupItem,
  ProfileBrief,
  StatusType,
  StructureItem,
  UserListItem,
  UserProfile,
  UserSearchItem,
} from '../schemas/people.js';
import { findById, type Tenant } from '../store/store.js';
import { absolute, type DomainContext } from './context.js';
import {
  hasWords,
  idList,
  inDayRange,
  matchesText,
  pageOf,
  paginate,
  parseDayRange,
  queryWords,
  type sortBy,
  type ListQuery,
  type Paged,
} from './lists.js';
import { byNameFast, peopleIndex, type PeopleIndex } from './people-index.js';
import { compareRuEnNumeric } from './collate.js';
import { compareStamp } from './grouped.js';
import { LazyList } from '../shared/json-stream.js';

/** Known active status types (assumed: the API description does not list them). */
export const statusTypeNames: Record<string, { ru: string; en: string }> = {
  vacation: { ru: 'В отпуске', en: 'On vacation' },
  'sick-leave': { ru: 'На больничном', en: 'On sick leave' },
  'business-trip': { ru: 'В командировке', en: 'On a business trip' },
  remote: { ru: 'Работает удалённо', en: 'Working remotely' },
  'day-off': { ru: 'Выходной', en: 'Day off' },
};

/** Users a client may see: hidden users are left out everywhere. */
export const visible = (u: UserRecord) => u.state !== 'hidden';
/** Users shown in lookups, search and the structure: active only. */
export const listed = (u: UserRecord) => u.state === 'active';

export function departmentOf(tenant: Tenant, id: string): DepartmentRecord | undefined {
  return findById(tenant.departments, id);
}

export function departmentRef(tenant: Tenant, id: string): DepartmentRef {
  const d = departmentOf(tenant, id);
  return { id, name: d?.name ?? '', path: d?.path ?? '' };
}

export function statusTypes(tenant: Tenant, ids: readonly string[]): StatusType[] {
  return ids.map((id) => ({ id, name: statusTypeNames[id]?.[tenant.tenant.locale] ?? id }));
}

export function fullEmployment(tenant: Tenant, e: EmploymentRecord): FullEmployment {
  return {
    id: e.id,
    user_id: e.userId,
    is_main: e.isMain,
    position: e.position,
    department: departmentRef(tenant, e.departmentId),
    status_id: e.statusId,
    employment_date: e.employmentDate,
    fired_date: e.firedDate,
    origin_id: e.originId,
    origin_organization_id: e.originOrganizationId,
    organizationName: e.organizationName,
    rate: e.rate,
  };
}

export function profileBrief(ctx: DomainContext, tenant: Tenant, user: UserRecord): ProfileBrief {
  return {
    id: user.id,
    name: user.name,
    position: user.position,
    departmentName: departmentOf(tenant, user.departmentId)?.name ?? '',
    faceUrl: absolute(ctx, user.faceUrl),
    statusText: user.statusText,
    activeStatusTypes: statusTypes(tenant, user.activeStatusTypes),
  };
}

export function userProfile(ctx: DomainContext, tenant: Tenant, _user: UserRecord, input: { id: string }): UserProfile {
  const u = tenant.users.find((x) => x.id === input.id && visible(x));
  if (!u) throw fail.notFound(`user ${input.id} not found`);
  const main = tenant.employments.find((e) => e.userId === u.id && e.isMain);
  return {
    id: u.id,
    name: u.name,
    firstName: u.firstName,
    lastName: u.lastName,
    middleName: u.middleName,
    email: u.email,
    phone: u.phone,
    position: u.position,
    department: departmentRef(tenant, u.departmentId),
    isBoss: u.isBoss,
    faceUrl: absolute(ctx, u.faceUrl),
    birthday: u.birthday,
    hiredAt: u.hiredAt,
    statusText: u.statusText,
    activeStatusTypes: statusTypes(tenant, u.activeStatusTypes),
    mainEmployment: main ? fullEmployment(tenant, main) : null,
    url: absolute(ctx, `/pages/user/${u.id}`),
  };
}

export function userItems(
  ctx: DomainContext,
  tenant: Tenant,
  _user: UserRecord,
  input: { q?: string | undefined },
): { data: LookupItem[] } {
  const data = tenant.users
    .filter((u) => listed(u) && matchesText(input.q, [u.name, u.email]))
    .sort(byNameFast)
    .slice(0, 50)
    .map((u) => ({ id: u.id, name: u.name, faceUrl: absolute(ctx, u.faceUrl) }));
  return { data };
}

export type UserIndexQuery = {
  'per-page'?: string | undefined;
  page?: string | undefined;
  sort?: string | undefined;
  id?: string | undefined;
  email?: string | undefined;
  name?: string | undefined;
  first_name?: string | undefined;
  last_name?: string | undefined;
  department_id?: string | undefined;
  reg_status_id?: number | undefined;
  group_id?: string | undefined;
  position?: string | undefined;
  created_at?: string | undefined;
  last_login_at?: string | undefined;
};

export function userListItem(ctx: DomainContext, tenant: Tenant, u: UserRecord): UserListItem {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    first_name: u.firstName,
    last_name: u.lastName,
    department_id: u.departmentId,
    departmentName: departmentOf(tenant, u.departmentId)?.name ?? '',
    position: u.position,
    isBoss: u.isBoss,
    reg_status_id: u.regStatusId,
    created_at: u.createdAt,
    last_login_at: u.lastLoginAt,
    faceUrl: absolute(ctx, u.faceUrl),
  };
}

export function userIndex(
  ctx: DomainContext,
  tenant: Tenant,
  _user: UserRecord,
  q: UserIndexQuery,
  url: string,
): Paged<UserListItem> {
  const created = parseDayRange(q.created_at, 'created_at');
  const lastLogin = parseDayRange(q.last_login_at, 'last_login_at');
  const ids = idList(q.id);
  const departments = idList(q.department_id);
  const group = q.group_id ? tenant.userGroups.find((g) => g.id === q.group_id) : undefined;
  const groupMembers = q.group_id ? new Set(group?.memberIds ?? []) : null;
  const sortKeys: Parameters<typeof sortBy<UserRecord>>[2] = {
    id: (u) => u.id,
    email: (u) => u.email,
    name: (u) => u.name,
    first_name: (u) => u.firstName,
    last_name: (u) => u.lastName,
    position: (u) => u.position,
    reg_status_id: (u) => u.regStatusId,
    created_at: (u) => u.createdAt,
    last_login_at: (u) => u.lastLoginAt,
  };
  const ix = peopleIndex(tenant);
  // an unencoded `+` arrives as a space: `sort=+email` reads as ascending email
  const sort = q.sort?.trim() || 'name';
  const sorted = ix.sorted(sort, sortKeys);
  const text = [
    ['email', q.email],
    ['name', q.name],
    ['firstName', q.first_name],
    ['lastName', q.last_name],
    ['position', q.position],
  ] as const;
  const texts = text
    .map(([field, words]) => [ix.folded(field), queryWords(words)] as const)
    .filter(([, words]) => words !== null);
  const order = ix.order;
  const scan = () =>
    sorted.filter((u) => {
      if (
        !visible(u) ||
        (ids && !ids.has(u.id)) ||
        (departments && !departments.has(u.departmentId)) ||
        (groupMembers && !groupMembers.has(u.id)) ||
        (q.reg_status_id !== undefined && u.regStatusId !== q.reg_status_id)
      )
        return false;
      if (texts.length > 0) {
        const i = order.get(u)!;
        for (const [folded, words] of texts) if (!hasWords(folded[i]!, words)) return false;
      }
      return inDayRange(u.createdAt, created) && (lastLogin === null || inDayRange(u.lastLoginAt, lastLogin));
    });
  // Everything the filter reads is in the index's fingerprint except group membership: the same filter gives the
  // same users until the index is dropped, so its result is kept (not with a group filter).
  const key = groupMembers
    ? null
    : JSON.stringify([
        sort,
        ids && [...ids],
        departments && [...departments],
        q.reg_status_id,
        text,
        created,
        lastLogin,
      ]);
  const users = key === null ? scan() : ix.query(`index:${key}`, scan);
  const page = paginate(
    users,
    { page: q.page, perPage: q['per-page'] },
    { defaultPerPage: 20, maxPerPage: 20, strict: true },
    url,
  );
  return { ...page, data: page.data.map((u) => userListItem(ctx, tenant, u)) };
}

export function userSearch(
  ctx: DomainContext,
  tenant: Tenant,
  _user: UserRecord,
  canSeeNames: boolean,
  input: { q?: string | undefined; limit?: number | undefined; offset?: number | undefined },
): { q: string; users: UserSearchItem[] } {
  const q = input.q ?? '';
  if (!canSeeNames) return { q, users: [] };
  const users = firstMatches(peopleIndex(tenant), 'name-position-email', q, input.offset ?? 0, input.limit ?? 10).map(
    (u) => ({
      id: u.id,
      name: u.name,
      position: u.position,
      departmentName: departmentOf(tenant, u.departmentId)?.name ?? '',
      isBoss: u.isBoss,
      faceUrl: absolute(ctx, u.faceUrl),
      department_id: u.departmentId,
    }),
  );
  return { q, users };
}

// ---- employment and account

export function employmentIndex(
  _ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  q: ListQuery,
  url: string,
): Paged<FullEmployment> {
  const own = tenant.employments
    .filter((e) => e.userId === user.id)
    .sort((a, b) => Number(b.isMain) - Number(a.isMain) || compareStamp(a.employmentDate, b.employmentDate));
  return pageOf(own, q, url, (e) => fullEmployment(tenant, e));
}

export function employmentSetMain(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  input: { employment_id: string },
) {
  const target = tenant.employments.find((e) => e.id === input.employment_id && e.userId === user.id);
  if (!target) throw fail.notFound(`employment ${input.employment_id} not found among the current user's employments`);
  const ru = tenant.tenant.locale === 'ru';
  if (target.statusId === 3) {
    return {
      success: false,
      message: {
        type: 'error',
        text: ru ? 'Нельзя сделать основным завершённое место работы' : 'A terminated employment cannot be main',
      },
      errors: ['employment_id: the employment is terminated'],
      data: null,
    };
  }
  ctx.store.transaction(() => {
    ctx.store.updateWhere(
      tenant,
      'employments',
      (e) => e.userId === user.id && e.isMain !== (e.id === target.id),
      (e) => ({ isMain: e.id === target.id }),
    );
    // the user's department and position follow the main employment (bosses keep their head position)
    ctx.store.update(tenant, 'users', user, {
      departmentId: target.departmentId,
      ...(user.isBoss ? {} : { position: target.position }),
    });
  });
  return {
    success: true,
    message: { type: 'success', text: ru ? 'Основное место работы изменено' : 'Main employment changed' },
    errors: null,
    data: fullEmployment(tenant, tenant.employments.find((e) => e.id === target.id)!),
  };
}

export function accountStatusText(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  input: { activeTypes: string },
) {
  const changed = ctx.store.update(tenant, 'users', user, { statusText: input.activeTypes.trim() });
  return { activeTypes: changed.statusText };
}

export function accountStatusActiveTypes(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  input: { activeTypes: string[] },
) {
  const unknown = input.activeTypes.filter((t) => !Object.hasOwn(statusTypeNames, t));
  if (unknown.length > 0) {
    throw fail.validation(
      `unknown status type ${unknown.map((u) => `"${u.slice(0, 40)}"`).join(', ')}; ` +
        `known: ${Object.keys(statusTypeNames).join(', ')}`,
      unknown.map((u) => ({
        field: `body.activeTypes[${input.activeTypes.indexOf(u)}]`,
        message: `must be one of ${Object.keys(statusTypeNames).join(', ')}`,
      })),
    );
  }
  const changed = ctx.store.update(tenant, 'users', user, { activeStatusTypes: [...new Set(input.activeTypes)] });
  return { statusTypes: changed.activeStatusTypes };
}

// ---- lookups

export function userGroupItems(
  ctx: DomainContext,
  tenant: Tenant,
  _user: UserRecord,
  input: { q?: string | undefined; only_with_calendar_events?: number | undefined },
): { data: LazyList<UserGroupRecord, LookupItem> } {
  const withEvents = new Set(tenant.calendarUserGroupIds);
  const found = tenant.userGroups.filter(
    (g) => matchesText(input.q, [g.name]) && (input.only_with_calendar_events !== 1 || withEvents.has(g.id)),
  );
  return { data: new LazyList(found, (g) => ({ id: g.id, name: g.name, faceUrl: absolute(ctx, g.iconUrl) })) };
}

export function meetingPlaceItems(
  _ctx: DomainContext,
  tenant: Tenant,
  _user: UserRecord,
  input: { q?: string | undefined },
) {
  const found = tenant.meetingPlaces.filter((p) => matchesText(input.q, [p.name, p.address]));
  return { data: new LazyList(found, (p) => ({ id: p.id, name: p.name })) };
}

// ---- structure

export function userItem(ctx: DomainContext, tenant: Tenant, u: UserRecord): StructureItem {
  return {
    type: 'user',
    id: u.id,
    name: u.name,
    isBoss: u.isBoss,
    position: u.position,
    faceUrl: absolute(ctx, u.faceUrl),
    departmentName: departmentOf(tenant, u.departmentId)?.name ?? '',
  };
}

/** What a tree node lists: a sub-department or a person. */
type TreeEntry = { department: DepartmentRecord; user?: never } | { user: UserRecord; department?: never };

/** One level of the tree, its items made only when they are written (a LazyList: a large level is streamed). */
export type LazyDepartmentTreeNode = Omit<DepartmentTreeNode, 'items'> & {
  items: LazyList<TreeEntry, StructureItem>;
};

export function lazyDepartmentTreeNode(
  ctx: DomainContext,
  tenant: Tenant,
  _user: UserRecord,
  input: { id?: string | undefined },
): LazyDepartmentTreeNode {
  const node = input.id ? departmentOf(tenant, input.id) : tenant.departments.find((d) => d.parentId === null);
  if (!node) throw fail.notFound(`department ${input.id ?? '(root)'} not found`);
  const children = tenant.departments
    .filter((d) => d.parentId === node.id)
    .sort((a, b) => compareRuEnNumeric(a.name, b.name));
  const ix = peopleIndex(tenant);
  // people: bosses first, then by name
  const people = (ix.byDepartment.get(node.id) ?? [])
    .filter(listed)
    .sort((a, b) => Number(b.isBoss) - Number(a.isBoss));
  const entries: TreeEntry[] = [...children.map((department) => ({ department })), ...people.map((user) => ({ user }))];
  return {
    id: node.id,
    name: node.name,
    path: node.path,
    items: new LazyList(entries, (e) =>
      e.department ? departmentItem(ix, e.department) : userItem(ctx, tenant, e.user),
    ),
  };
}

/** lazyDepartmentTreeNode, its items made at once. */
export function departmentTreeNode(...args: Parameters<typeof lazyDepartmentTreeNode>): DepartmentTreeNode {
  const node = lazyDepartmentTreeNode(...args);
  return { ...node, items: node.items.toJSON() };
}

export function departmentSearch(
  ctx: DomainContext,
  tenant: Tenant,
  _user: UserRecord,
  input: { q?: string | undefined },
) {
  const q = input.q ?? '';
  if (q.trim() === '') return { q, items: [] };
  const ix = peopleIndex(tenant);
  // departments whose name holds every word of q, in store order: one scan per distinct query
  const found = ix.query(`departments:${q}`, () => ix.departments.filter((d) => matchesText(q, [d.name])));
  const people = firstMatches(ix, 'name-position', q, 0, 50).map((u) => userItem(ctx, tenant, u));
  return { q, items: [...found.slice(0, 20).map((d) => departmentItem(ix, d)), ...people] };
}

// ---- the indexed queries (src/domain/people-index.ts)

/** Listed users whose texts hold every word of q, by name, from `offset`, at most `limit`. */
function firstMatches(
  ix: PeopleIndex,
  fields: 'name-position-email' | 'name-position',
  q: string,
  offset: number,
  limit: number,
): UserRecord[] {
  const words = queryWords(q);
  const users = ix.byName;
  // positions (in byName) of the users whose texts match: one scan per distinct query, kept by the index
  const matches =
    words === null
      ? null
      : ix.query(`match:${fields}:${words.join(' ')}`, () => {
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
    if (skipped < offset) {
      skipped++;
      continue;
    }
    out.push(u);
  }
  return out;
}

function departmentItem(ix: PeopleIndex, d: DepartmentRecord): StructureItem {
  return { type: 'department', id: d.id, name: d.name, path: d.path, ...ix.departmentCounts(d.id) };
}

/**
 * Colleagues of the same department, and the heads of the departments right below for a head: bosses first, by name.
 */
export function myTeam(ix: PeopleIndex, user: UserRecord, reportHeads: Set<string | null>): UserRecord[] {
  const picked = new Set<UserRecord>(ix.byDepartment.get(user.departmentId) ?? []);
  for (const id of reportHeads) {
    const u = id ? ix.byId.get(id) : undefined;
    if (u) picked.add(u);
  }
  const order = ix.order;
  return [...picked]
    .filter((u) => listed(u) && u.id !== user.id)
    .sort((a, b) => Number(b.isBoss) - Number(a.isBoss) || byNameFast(a, b) || order.get(a)! - order.get(b)!);
}

export const birthdaysOn = (ix: PeopleIndex, monthDay: string): UserRecord[] =>
  (ix.byBirthday.get(monthDay) ?? []).filter(listed).sort(byNameFast);
