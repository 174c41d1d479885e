// The user groups a record names by id (who may see a workflow process or a calendar event). Looked up by id
// instead of scanning every group for every record: the records API can make thousands of both, and a list
// answer reads the groups of each of its records.
import type { UserGroupRecord } from '../schemas/records.js';
import { findById, positionById, type Tenant } from '../store/store.js';

/** The groups of `ids` that exist, each once, in the tenant's order of groups. */
export function groupsOf(tenant: Tenant, ids: readonly string[]): UserGroupRecord[] {
  const found = new Set<UserGroupRecord>();
  for (const id of ids) {
    const group = findById(tenant.userGroups, id);
    if (group) found.add(group);
  }
  const at = (g: UserGroupRecord) => positionById(tenant.userGroups, g.id) ?? 0;
  return [...found].sort((a, b) => at(a) - at(b));
}

/** Whether the user is a member of one of the groups of `ids`. */
export const inSomeGroup = (tenant: Tenant, ids: readonly string[], userId: string): boolean =>
  ids.some((id) => findById(tenant.userGroups, id)?.memberIds.includes(userId) === true);
