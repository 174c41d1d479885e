// Employment documents: the caller's own list with every filter, and requests that move on by the sandbox clock.
import { fail } from '../errors.js';
import type { OrgEmploymentFile } from '../schemas/people.js';
import type {
  OrgEmploymentFileRecord,
  OrgEmploymentFileStatusId,
  OrgEmploymentFileTypeId,
} from '../schemas/people-records.js';
import type { UserRecord } from '../schemas/records.js';
import { findById, type Tenant } from '../store/store.js';
import { newUuid } from '../store/ids.js';
import { absolute, type DomainContext } from './context.js';
import { pageOf, type ListQuery, type Paged } from './lists.js';
import { compareStamp } from './grouped.js';

/** How a request moves on (assumed): requested → in-progress after 1 minute → ready after 5 minutes. */
export const documentTimeline = { inProgressAfterMs: 60_000, readyAfterMs: 300_000 };

const names = {
  type: {
    'payroll-statement': { ru: 'Расчётный листок', en: 'Payslip' },
    'employment-certificate': { ru: 'Справка с места работы', en: 'Certificate of employment' },
    'income-statement-2ndfl': { ru: 'Справка 2-НДФЛ', en: 'Income statement (2-NDFL)' },
    'work-book-copy': { ru: 'Копия трудовой книжки', en: 'Copy of the employment record book' },
    'vacation-balance': { ru: 'Справка об остатке отпуска', en: 'Vacation balance statement' },
  } satisfies Record<OrgEmploymentFileTypeId, { ru: string; en: string }>,
  status: {
    requested: { ru: 'Запрошен', en: 'Requested' },
    'in-progress': { ru: 'Готовится', en: 'In progress' },
    ready: { ru: 'Готов', en: 'Ready' },
    rejected: { ru: 'Отклонён', en: 'Rejected' },
  } satisfies Record<OrgEmploymentFileStatusId, { ru: string; en: string }>,
};

/** The record as it stands at the sandbox clock: pending requests move on lazily when read. */
function current(
  ctx: DomainContext,
  r: OrgEmploymentFileRecord,
): { status: OrgEmploymentFileStatusId; updatedAt: string; readyAt: string | null } {
  if (r.statusId !== 'requested' && r.statusId !== 'in-progress')
    return { status: r.statusId, updatedAt: r.updatedAt, readyAt: r.readyAt };
  const created = Date.parse(r.createdAt);
  const age = ctx.now.getTime() - created;
  if (age >= documentTimeline.readyAfterMs) {
    const readyAt = new Date(created + documentTimeline.readyAfterMs).toISOString();
    return { status: 'ready', updatedAt: readyAt, readyAt };
  }
  if (age >= documentTimeline.inProgressAfterMs)
    return {
      status: 'in-progress',
      updatedAt: new Date(created + documentTimeline.inProgressAfterMs).toISOString(),
      readyAt: null,
    };
  return { status: 'requested', updatedAt: r.createdAt, readyAt: null };
}

function view(ctx: DomainContext, tenant: Tenant, r: OrgEmploymentFileRecord): OrgEmploymentFile {
  const lang = tenant.tenant.locale;
  const c = current(ctx, r);
  const employment = findById(tenant.employments, r.employmentId);
  const ready = c.status === 'ready';
  return {
    id: r.id,
    custom_id: r.customId,
    user_id: r.userId,
    org_employment_id: r.employmentId,
    org_employment_origin_id: employment?.originId ?? '',
    organization_id: employment?.originOrganizationId ?? '',
    file_id: ready ? r.fileId : null,
    fileUrl: ready ? absolute(ctx, `/pages/org-employment-file/${r.id}`) : null,
    org_employment_file_type_id: r.typeId,
    org_employment_file_status_id: c.status,
    orgEmploymentFileType: { id: r.typeId, name: names.type[r.typeId][lang] },
    orgEmploymentFileStatus: { id: c.status, name: names.status[c.status][lang] },
    date_from: r.dateFrom,
    date_to: r.dateTo,
    created_at: r.createdAt,
    updated_at: c.updatedAt,
    ready_at: c.readyAt,
  };
}

export type OrgFileQuery = ListQuery & {
  id?: string | undefined;
  created_at?: string | undefined;
  updated_at?: string | undefined;
  ready_at?: string | undefined;
  custom_id?: string | undefined;
  organization_id?: string | undefined;
  org_employment_id?: string | undefined;
  user_id?: string | undefined;
  file_id?: string | undefined;
  org_employment_file_type_id?: OrgEmploymentFileTypeId | undefined;
  org_employment_file_status_id?: OrgEmploymentFileStatusId | undefined;
  date_from?: string | undefined;
  date_to?: string | undefined;
};

/** A date-time filter matches the same instant, or the whole day when only a date is given. */
const sameStamp = (stamp: string | null, wanted: string | undefined) =>
  wanted === undefined ||
  (stamp !== null && (wanted.length === 10 ? stamp.startsWith(wanted) : Date.parse(stamp) === Date.parse(wanted)));

export function orgEmploymentFileIndex(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  q: OrgFileQuery,
  url: string,
): Paged<OrgEmploymentFile> {
  const items = tenant.orgEmploymentFiles
    .filter((r) => r.userId === user.id)
    .map((r) => view(ctx, tenant, r))
    .filter(
      (f) =>
        (q.id === undefined || f.id === q.id) &&
        sameStamp(f.created_at, q.created_at) &&
        sameStamp(f.updated_at, q.updated_at) &&
        sameStamp(f.ready_at, q.ready_at) &&
        (q.custom_id === undefined || f.custom_id === q.custom_id) &&
        (q.organization_id === undefined || f.organization_id === q.organization_id) &&
        (q.org_employment_id === undefined ||
          f.org_employment_id === q.org_employment_id ||
          f.org_employment_origin_id === q.org_employment_id) &&
        (q.user_id === undefined || f.user_id === q.user_id) &&
        (q.file_id === undefined || f.file_id === q.file_id) &&
        (q.org_employment_file_type_id === undefined ||
          f.org_employment_file_type_id === q.org_employment_file_type_id) &&
        (q.org_employment_file_status_id === undefined ||
          f.org_employment_file_status_id === q.org_employment_file_status_id) &&
        // the document's period overlaps [date_from, date_to]; documents without a period match by their creation day
        (q.date_from === undefined || (f.date_to ?? f.created_at.slice(0, 10)) >= q.date_from) &&
        (q.date_to === undefined || (f.date_from ?? f.created_at.slice(0, 10)) <= q.date_to),
    )
    .sort((a, b) => compareStamp(b.created_at, a.created_at));
  return pageOf(items, q, url, (f) => f);
}

export function orgEmploymentFileRequest(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  input: {
    org_employment_id: string;
    org_employment_file_type_id: OrgEmploymentFileTypeId;
    date_from?: string | undefined;
    date_to?: string | undefined;
  },
) {
  const employment = tenant.employments.find((e) => e.id === input.org_employment_id && e.userId === user.id);
  if (!employment)
    throw fail.notFound(`employment ${input.org_employment_id} not found among the current user's employments`);
  const ru = tenant.tenant.locale === 'ru';
  if (input.date_from && input.date_to && input.date_from > input.date_to) {
    return {
      success: false,
      message: ru ? 'Проверьте период' : 'Check the period',
      errors: ['date_from: the period starts after it ends'],
      data: null,
    };
  }
  const now = ctx.now.toISOString();
  const count = tenant.orgEmploymentFiles.filter((r) => r.userId === user.id).length + 1;
  const record: OrgEmploymentFileRecord = {
    id: newUuid(ctx.store, 'org-employment-file'),
    userId: user.id,
    employmentId: employment.id,
    customId: `${ru ? 'ЗД' : 'REQ'}-W${String(count).padStart(5, '0')}-${now.slice(0, 10).replace(/-/g, '')}`,
    typeId: input.org_employment_file_type_id,
    statusId: 'requested',
    fileId: newUuid(ctx.store, 'org-employment-file-bytes'),
    dateFrom: input.date_from ?? null,
    dateTo: input.date_to ?? null,
    createdAt: now,
    updatedAt: now,
    readyAt: null,
  };
  ctx.store.insert(tenant, 'orgEmploymentFiles', record);
  return {
    success: true,
    message: ru ? 'Запрос документа отправлен' : 'Document requested',
    errors: null,
    data: view(ctx, tenant, record),
  };
}

/** One of the user's document requests as the list shows it (for its web page); 404 when not theirs. */
export function orgEmploymentFileOne(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  id: string,
): OrgEmploymentFile {
  const r = tenant.orgEmploymentFiles.find((x) => x.id === id && x.userId === user.id);
  if (!r) throw fail.notFound(`employment document ${id.slice(0, 80)} not found`);
  return view(ctx, tenant, r);
}
