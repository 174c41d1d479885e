// The administrative employment index: read-only, used by integrations to map an HR record number
// (origin id + origin organization id) to a portal user id.
import type { EmploymentRecord, UserRecord } from '../schemas/records.js';
import type { AdminEmployment, AdminEmploymentQuery } from '../schemas/admin-api.js';
import { findById, type Tenant } from '../store/store.js';
import { type DomainContext, personBrief } from './context.js';
import { idList, inDayRange, matchesText, pageOf, parseDayRange, recordById } from './lists.js';
import { peopleIndex } from './people-index.js';
import { userIdsOfKey } from './user-list-cache.js';

function view(ctx: DomainContext, tenant: Tenant, e: EmploymentRecord): AdminEmployment {
  const u = findById(tenant.users, e.userId);
  const dep = findById(tenant.departments, e.departmentId);
  return {
    id: e.id,
    user_id: e.userId,
    user: personBrief(ctx, tenant, e.userId),
    email: u?.email ?? '',
    reg_status_id: u?.regStatusId ?? 1,
    department_id: e.departmentId,
    department_name: dep?.name ?? '',
    chief_id: dep?.headId ?? null,
    position: e.position,
    is_main: e.isMain,
    status_id: e.statusId,
    employment_date: e.employmentDate,
    fired_date: e.firedDate,
    origin_id: e.originId,
    origin_organization_id: e.originOrganizationId,
    organization_name: e.organizationName,
    rate: e.rate,
    created_at: e.createdAt,
  };
}

const flag = (v: string | undefined) => (v === undefined ? null : v === '1' || v === 'true');
/** `x[]` repeated and `x` comma-separated, together; null (no filter) when neither gives a value. */
const many = (arr: string[] | undefined, csv: string | undefined): Set<string> | null => {
  const fromCsv = idList(csv);
  const all = new Set([...(arr ?? []).map((s) => s.trim()).filter(Boolean), ...(fromCsv ?? [])]);
  return all.size === 0 ? null : all;
};

export function listEmployments(
  ctx: DomainContext,
  tenant: Tenant,
  _admin: UserRecord,
  q: AdminEmploymentQuery & { url: string },
) {
  const ranges = {
    employment: parseDayRange(q.employment_date, 'employment_date'),
    fired: parseDayRange(q.fired_date, 'fired_date'),
    created: parseDayRange(q.created_at, 'created_at'),
  };
  const origins = many(q['origin_id[]'], q.origin_id);
  const users = many(q['user_id[]'], q.user_id);
  const deps = idList(q.department_id);
  const statuses = idList(q.status_id);
  const regStatuses = idList(q.reg_status_id);
  const isMain = flag(q.is_main);
  const multiple = flag(q.multipleEmployment);
  const listed = userIdsOfKey(tenant, q.user_list_key);
  const { byId: userById, departmentById } = peopleIndex(tenant);
  const count = new Map<string, number>();
  for (const e of tenant.employments) count.set(e.userId, (count.get(e.userId) ?? 0) + 1);
  const rows = tenant.employments.filter((e) => {
    const u = userById.get(e.userId);
    return (
      u !== undefined &&
      u.state !== 'hidden' &&
      (origins === null || origins.has(e.originId)) &&
      (!q.origin_organization_id || e.originOrganizationId === q.origin_organization_id) &&
      (users === null || users.has(e.userId)) &&
      (deps === null || deps.has(e.departmentId)) &&
      (!q.chief_id || departmentById.get(e.departmentId)?.headId === q.chief_id) &&
      (isMain === null || e.isMain === isMain) &&
      (statuses === null || statuses.has(String(e.statusId))) &&
      (regStatuses === null || regStatuses.has(String(u.regStatusId))) &&
      inDayRange(e.employmentDate, ranges.employment) &&
      (ranges.fired === null || inDayRange(e.firedDate, ranges.fired)) &&
      inDayRange(e.createdAt, ranges.created) &&
      matchesText(q.name, [u.name]) &&
      matchesText(q.position, [e.position]) &&
      (listed === null || listed.has(e.userId)) &&
      (multiple === null || (count.get(e.userId) ?? 0) > 1 === multiple)
    );
  });
  return pageOf(rows, q, q.url, (e) => view(ctx, tenant, e));
}

export function viewEmployment(ctx: DomainContext, tenant: Tenant, _admin: UserRecord, id: string): AdminEmployment {
  return view(ctx, tenant, recordById(tenant.employments, id, 'employment'));
}
