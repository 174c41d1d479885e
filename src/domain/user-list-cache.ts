// The user list cache: a client stores a selection (users, departments, groups, exclusions) under a key,
// then passes the key to operations that act on many users (mass wallet credit, filters).
import { fail } from '../errors.js';
import type { UserRecord } from '../schemas/records.js';
import type { UserListCacheRecord, UserListSelection } from '../schemas/integration-records.js';
import type { UserListData } from '../schemas/admin-api.js';
import type { Tenant } from '../store/store.js';
import { absolute, type DomainContext } from './context.js';
import { subtreeIds } from './lists.js';
import { peopleIndex } from './people-index.js';

export type UserListInput = { key?: string | undefined; userList?: Partial<UserListSelection> | undefined };

/** Stores (or replaces) a selection under a key. An empty or missing key is a form error (200, success false). */
export function setUserList(ctx: DomainContext, tenant: Tenant, user: UserRecord, input: UserListInput) {
  const key = (input.key ?? '').trim();
  if (key === '' || key.length > 200)
    return { success: false, key: null, errors: ['key: must be 1 to 200 characters'] };
  const list = input.userList ?? {};
  const userList: UserListSelection = {
    usersId: [...new Set(list.usersId ?? [])],
    departmentsId: [...new Set(list.departmentsId ?? [])],
    userGroupsId: [...new Set(list.userGroupsId ?? [])],
    excludeUsersId: [...new Set(list.excludeUsersId ?? [])],
  };
  const record: UserListCacheRecord = { key, userId: user.id, userList, createdAt: ctx.now.toISOString() };
  const existing = tenant.userListCache.find((r) => r.key === key);
  if (existing) ctx.store.update(tenant, 'userListCache', existing, record);
  else ctx.store.insert(tenant, 'userListCache', record);
  return { success: true, key };
}

/** The users a selection stands for: users ∪ department members ∪ group members, less excluded and hidden users. */
export function expandSelection(tenant: Tenant, sel: UserListSelection): UserRecord[] {
  const wanted = new Set(sel.usersId);
  const deps = subtreeIds(tenant.departments, sel.departmentsId);
  const groups = new Set(sel.userGroupsId);
  for (const g of tenant.userGroups) if (groups.has(g.id)) for (const m of g.memberIds) wanted.add(m);
  const excluded = new Set(sel.excludeUsersId);
  return tenant.users.filter(
    (u) =>
      u.state !== 'hidden' &&
      !excluded.has(u.id) &&
      (wanted.has(u.id) || (sel.departmentsId.length > 0 && deps.has(u.departmentId))),
  );
}

export const findUserList = (tenant: Tenant, key: string) => tenant.userListCache.find((r) => r.key === key);

/** User ids of a cached selection; an unknown key stands for nobody (a filter by it matches nothing). */
export function userIdsOfKey(tenant: Tenant, key: string | undefined): Set<string> | null {
  if (key === undefined || key === '') return null;
  const record = findUserList(tenant, key);
  return new Set(record ? expandSelection(tenant, record.userList).map((u) => u.id) : []);
}

export function userListData(ctx: DomainContext, tenant: Tenant, _user: UserRecord, key: string): UserListData {
  const record = findUserList(tenant, key);
  if (!record) throw fail.notFound(`no user list is cached under the key "${key.slice(0, 100)}"`);
  const { byId: userById, departmentById: depById } = peopleIndex(tenant);
  const users = expandSelection(tenant, record.userList);
  return {
    key,
    users: users.map((u) => ({
      id: u.id,
      name: u.name,
      email: u.email,
      position: u.position,
      departmentId: u.departmentId,
      departmentName: depById.get(u.departmentId)?.name ?? '',
      faceUrl: absolute(ctx, u.faceUrl),
    })),
    departments: record.userList.departmentsId.flatMap((id) => {
      const d = depById.get(id);
      return d ? [{ id, name: d.name }] : [];
    }),
    userGroups: record.userList.userGroupsId.flatMap((id) => {
      const g = tenant.userGroups.find((x) => x.id === id);
      return g ? [{ id, name: g.name }] : [];
    }),
    excludeUsers: record.userList.excludeUsersId.flatMap((id) => {
      const u = userById.get(id);
      return u ? [{ id, name: u.name }] : [];
    }),
    usersCount: users.length,
    created_at: record.createdAt,
  };
}
