// Workflow: the process catalog, start forms, applications (tickets) and how tickets move on with the clock.
import { isDeepStrictEqual } from 'node:util';
import { fail, type Detail } from '../errors.js';
import type { UserRecord } from '../schemas/records.js';
import type {
  WfCategoryRecord,
  WfFieldRecord,
  WfProcessRecord,
  WfTicketRecord,
  WorkflowCatalog,
  WorkflowCatalogEntry,
  WorkflowCategory,
  WorkflowCurrentCategory,
  WorkflowField,
  WorkflowStartForm,
  WorkflowStartRequest,
  WorkflowStartResult,
  WorkflowTicketDetails,
  WorkflowTicketItem,
  WorkflowTicketPage,
} from '../schemas/workflow.js';
import { findById, type Tenant } from '../store/store.js';
import { newUuid } from '../store/ids.js';
import { absolute, type DomainContext, personBrief } from './context.js';
import { groupsOf, inSomeGroup } from './groups.js';
import { foldedHay, hasWords, isDay, pageOf, queryWords, subtreesOf, type ListQuery } from './lists.js';
import { isUuid } from '../schemas/check.js';
import { LazyList } from '../shared/json-stream.js';
import { byStampThenId } from './grouped.js';

/** Ticket statuses (only 1 is named by the API description); labels in the tenant language. */
export const WfStatus = { inProgress: 1, solved: 2, rejected: 3, cancelled: 4 } as const;
export const wfStatusLabels: Record<'ru' | 'en', Record<number, string>> = {
  ru: { 1: 'В работе', 2: 'Решена', 3: 'Отклонена', 4: 'Отменена' },
  en: { 1: 'In progress', 2: 'Solved', 3: 'Rejected', 4: 'Cancelled' },
};
const statusLabel = (tenant: Tenant, id: number) => wfStatusLabels[tenant.tenant.locale][id] ?? String(id);

/** Who calls: a session (or Bearer) user, or an API key of the tenant (user null). */
export type Viewer = { tenant: Tenant; user: UserRecord | null };

// ---------------------------------------------------------------- visibility

const canSee = (tenant: Tenant, user: UserRecord, p: WfProcessRecord) =>
  p.visibleGroupIds.length === 0 || inSomeGroup(tenant, p.visibleGroupIds, user.id);

/** Processes the user may see in the catalog and start: not hidden, and in one of their groups when restricted. */
const listedProcesses = (tenant: Tenant, user: UserRecord) =>
  tenant.wfProcesses.filter((p) => !p.isHidden && canSee(tenant, user, p));

function startableProcess(tenant: Tenant, user: UserRecord, processId: string): WfProcessRecord {
  const p = findById(tenant.wfProcesses, processId);
  if (!p || p.isHidden || !canSee(tenant, user, p))
    throw fail.notFound(`workflow process ${processId.slice(0, 80)} not found`);
  return p;
}

// ---------------------------------------------------------------- catalog

const bySort = (a: WfCategoryRecord, b: WfCategoryRecord) => a.sort - b.sort;

function catalogEntry(ctx: DomainContext, tenant: Tenant, p: WfProcessRecord): WorkflowCatalogEntry {
  return {
    id: p.id,
    name: p.name,
    description: p.descriptionBlocks.map((b) => b.text).join('\n\n'),
    imageUrl: absolute(ctx, `/images/workflow/${p.id}.svg`),
    url: absolute(ctx, `/pages/workflow/${p.id}`),
    status_id: p.statusId,
    tags: [...p.tags],
    brief: p.brief,
    userGroupsVisible: groupsOf(tenant, p.visibleGroupIds).map((g) => ({
      id: g.id,
      name: g.name,
      description: g.description,
      iconUrl: absolute(ctx, g.iconUrl),
      conditionsReadable: g.conditionsReadable,
    })),
    feedbackTotal: { count: p.feedbackCount, score: p.feedbackScore },
  };
}

function currentCategory(tenant: Tenant, c: WfCategoryRecord): WorkflowCurrentCategory {
  const chain: WfCategoryRecord[] = [];
  for (
    let x: WfCategoryRecord | undefined = c;
    x;
    x = x.parentId ? findById(tenant.wfCategories, x!.parentId) : undefined
  ) {
    chain.unshift(x);
    if (chain.length > 20) break;
  }
  return {
    id: c.id,
    name: c.name,
    title: c.title,
    description: c.description,
    content_style_id: c.contentStyleId,
    tags: [...c.tags],
    breadcrumbs: chain.map((x) => ({ label: x.name, id: x.id, hash_id: x.hashId, slug: x.slug })),
  };
}

/** The catalog, its categories and processes made only when it is written (LazyLists: a large catalog is streamed). */
export type LazyWorkflowCatalog = Omit<WorkflowCatalog, 'workflows' | 'categories'> & {
  categories: LazyList<WfCategoryRecord, WorkflowCategory>;
  workflows: LazyList<WfProcessRecord, WorkflowCatalogEntry>;
};

/** The process catalog of a category (the root without id), its entries made as they are written. */
export function lazyWorkflowCatalog(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  input: { q?: string | undefined; id?: string | undefined },
): LazyWorkflowCatalog {
  const q = input.q?.trim() ?? '';
  const current = input.id ? (tenant.wfCategories.find((c) => c.id === input.id) ?? null) : null;
  if (input.id && !current) throw fail.notFound(`workflow category ${input.id.slice(0, 80)} not found`);
  const visible = listedProcesses(tenant, user);
  const below = subtreesOf(tenant.wfCategories);
  const scope = current ? below([current.id]) : null;
  const visibleIn = new Map<string, number>(); // category id -> visible processes directly in it
  for (const p of visible) visibleIn.set(p.categoryId, (visibleIn.get(p.categoryId) ?? 0) + 1);
  // the query's words found once; without any, no process's texts are gathered
  const words = queryWords(q);
  const workflows = visible.filter(
    (p) =>
      (scope === null || scope.has(p.categoryId)) &&
      (words === null ||
        hasWords(foldedHay([p.name, p.brief, ...p.descriptionBlocks.map((b) => b.text), ...p.tags]), words)),
  );
  const categories = tenant.wfCategories.filter((c) => c.parentId === (current?.id ?? null)).sort(bySort);
  // a category's entry, its processes counted through its subtree, made when it is written
  const categoryEntry = (c: WfCategoryRecord): WorkflowCategory => {
    let workflowCount = 0;
    for (const id of below([c.id])) workflowCount += visibleIn.get(id) ?? 0;
    return {
      id: c.id,
      name: c.name,
      parent_id: c.parentId,
      description: c.description,
      imageUrl: absolute(ctx, `/images/workflow-category/${c.id}.svg`),
      workflowCount,
    };
  };
  return {
    categories: new LazyList(categories, categoryEntry),
    category: current ? currentCategory(tenant, current) : null,
    q,
    workflows: new LazyList(workflows, (p) => catalogEntry(ctx, tenant, p)),
  };
}

// ---------------------------------------------------------------- start form and application

const fieldOut = (f: WfFieldRecord): WorkflowField => ({ ...f, values: [...f.values] });

/** Where an application may be filed: its own category, or every category when the process allows a change. */
function fileableCategories(tenant: Tenant, p: WfProcessRecord): WfCategoryRecord[] {
  const own = tenant.wfCategories.filter((c) => c.id === p.categoryId);
  if (!p.isAllowCategoryChange) return own;
  return tenant.wfCategories.filter((c) => c.parentId !== null).sort(bySort);
}

export function workflowStartForm(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  processId: string,
): WorkflowStartForm {
  const p = startableProcess(tenant, user, processId);
  return {
    id: p.id,
    name: p.name,
    brief: p.brief,
    description: {
      time: Date.parse(p.createdAt),
      blocks: p.descriptionBlocks.map((b) => ({ id: b.id, type: b.type, data: { text: b.text } })),
      version: '2.28.2',
    },
    imageUrl: absolute(ctx, `/images/workflow/${p.id}.svg`),
    isChiefRequired: p.isChiefRequired,
    isAllowCategoryChange: p.isAllowCategoryChange,
    categories: Object.fromEntries(fileableCategories(tenant, p).map((c) => [c.id, c.name])),
    fields: p.fields.map(fieldOut),
  };
}

const truthy = new Set(['true', '1']);
const checkboxValues = new Set(['true', 'false', '1', '0']);

/** Checks the submitted values against the form; every problem names its field as `fieldValues.<fieldId>`. */
export function checkFieldValues(
  fields: readonly WfFieldRecord[],
  submitted: Record<string, string>,
): { values: Record<string, string>; problems: Detail[] } {
  const problems: Detail[] = [];
  const values: Record<string, string> = {};
  const known = new Set(fields.map((f) => f.id));
  for (const id of Object.keys(submitted)) {
    if (!known.has(id))
      problems.push({ field: `fieldValues.${id.slice(0, 64)}`, message: 'is not a field of this form' });
  }
  for (const f of fields) {
    const raw = Object.hasOwn(submitted, f.id) ? submitted[f.id]!.trim() : '';
    const value = raw === '' ? (f.defaultValue ?? '') : raw;
    const where = `fieldValues.${f.id}`;
    if (value === '' || (f.type === 'checkbox' && f.required && !truthy.has(value))) {
      if (f.required) problems.push({ field: where, message: `is required (${f.name})` });
      continue;
    }
    let bad: string | null = null;
    switch (f.type) {
      case 'select':
        if (!f.values.includes(value)) bad = `must be one of: ${f.values.join(', ')}`;
        break;
      case 'date':
        if (!isDay(value)) bad = 'must be a date yyyy-MM-dd';
        break;
      case 'number':
        if (!/^-?\d+(\.\d+)?$/.test(value)) bad = 'must be a number, e.g. 3 or 2.5';
        break;
      case 'checkbox':
        if (!checkboxValues.has(value)) bad = 'must be true or false';
        break;
      case 'file':
        if (!isUuid(value)) bad = 'must be a file id (uuid)';
        break;
      default:
        if (f.type === 'text' && value.length > 500) bad = 'must be at most 500 characters';
    }
    if (bad) problems.push({ field: where, message: bad });
    else values[f.id] = value;
  }
  return { values, problems };
}

/** The user's chief: the head of their department; for the head, the head of the parent department. */
export function chiefOf(tenant: Tenant, user: UserRecord): UserRecord | null {
  let dep = findById(tenant.departments, user.departmentId);
  for (let guard = 0; dep && guard < 50; guard++) {
    if (dep.headId && dep.headId !== user.id) return findById(tenant.users, dep!.headId) ?? null;
    const parentId = dep.parentId;
    dep = parentId ? findById(tenant.departments, parentId) : undefined;
  }
  return null;
}

export function workflowStart(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  processId: string,
  input: WorkflowStartRequest,
): WorkflowStartResult {
  const p = startableProcess(tenant, user, processId);
  const { values, problems } = checkFieldValues(p.fields, input.fieldValues);
  const fileable = fileableCategories(tenant, p);
  if (input.categoryId !== undefined && input.categoryId !== '' && !fileable.some((c) => c.id === input.categoryId)) {
    problems.push({
      field: 'categoryId',
      message: `must be one of the form's categories: ${fileable.map((c) => c.id).join(', ')}`,
    });
  }
  if (problems.length > 0) {
    throw fail.unprocessable(
      `the application is not valid: ${problems.map((d) => `${d.field} ${d.message}`).join('; ')}`,
      problems,
    );
  }
  const responsible: Record<string, string[]> = Object.fromEntries(p.stages.map((s) => [s.id, [...s.responsibleIds]]));
  const first = p.stages[0]!;
  if (p.isChiefRequired) {
    const chief = chiefOf(tenant, user);
    if (chief) responsible[first.id] = [chief.id];
  }
  const at = ctx.now.toISOString();
  const ticket: WfTicketRecord = {
    id: newUuid(ctx.store, 'wf-ticket'),
    processId: p.id,
    categoryId: input.categoryId || p.categoryId,
    userId: user.id,
    stageId: first.id,
    statusId: WfStatus.inProgress,
    createdAt: at,
    updatedAt: at,
    solvedAt: null,
    stageEnteredAt: at,
    fieldValues: values,
    responsible,
    history: [{ at, stageId: first.id, statusId: WfStatus.inProgress }],
  };
  ctx.store.insert(tenant, 'wfTickets', ticket);
  const message = tenant.tenant.locale === 'ru' ? `Заявка «${p.name}» создана` : `Application "${p.name}" created`;
  return { id: ticket.id, message };
}

// ---------------------------------------------------------------- tickets move on with the clock

/**
 * A ticket in progress as the clock at `now` (ms) makes it: moved through its process's stages, each lasting the
 * process's stageMinutes, and solved after the last one; the same record when nothing is due.
 */
function movedOn(t: WfTicketRecord, p: WfProcessRecord, now: number): WfTicketRecord {
  if (t.statusId !== WfStatus.inProgress) return t;
  const step = p.stageMinutes * 60_000;
  let cur = t;
  for (let guard = 0; guard <= p.stages.length; guard++) {
    const due = Date.parse(cur.stageEnteredAt) + step;
    if (due > now) break;
    const at = new Date(due).toISOString();
    const index = p.stages.findIndex((s) => s.id === cur.stageId);
    const next = p.stages[index + 1];
    if (index >= 0 && next) {
      cur = {
        ...cur,
        updatedAt: at,
        stageId: next.id,
        stageEnteredAt: at,
        history: [...cur.history, { at, stageId: next.id, statusId: WfStatus.inProgress }],
      };
    } else {
      cur = {
        ...cur,
        updatedAt: at,
        statusId: WfStatus.solved,
        solvedAt: at,
        history: [...cur.history, { at, stageId: cur.stageId, statusId: WfStatus.solved }],
      };
      break;
    }
  }
  return cur;
}

/**
 * Moves tickets in progress through their stages: each stage lasts the process's stageMinutes; after the last
 * one the ticket is solved. Transitions are stored, so the state stays as computed even if the clock goes back.
 * While the scenario holds tickets (holdTickets) nothing moves; released tickets catch up with the clock.
 */
export function advanceTickets(ctx: DomainContext, tenant: Tenant): void {
  if (ctx.effects.ticketsHeld) return;
  const now = ctx.now.getTime();
  const moved = new Map<WfTicketRecord, WfTicketRecord>();
  for (const t of tenant.wfTickets) {
    if (t.statusId !== WfStatus.inProgress) continue;
    const p = findById(tenant.wfProcesses, t.processId);
    if (!p) continue;
    const cur = movedOn(t, p, now);
    if (cur !== t) moved.set(t, cur);
  }
  // one write for all the tickets the clock moved (a read that moves tickets is a write of the sandbox)
  if (moved.size > 0)
    ctx.store.updateWhere(
      tenant,
      'wfTickets',
      (t) => moved.has(t),
      (t) => moved.get(t)!,
    );
}

/**
 * Whether `now` is exactly what the clock alone made of ticket `was` (advanceTickets, no other change): it is
 * `was` moved on to the instant of its last move. A bug capture tells such changes apart from the tester's.
 */
export function movedByClockOnly(
  was: WfTicketRecord,
  now: WfTicketRecord,
  processes: readonly WfProcessRecord[],
): boolean {
  const p = findById(processes, was.processId);
  const last = Date.parse(now.updatedAt);
  if (!p || was === now || Number.isNaN(last)) return false;
  return isDeepStrictEqual(movedOn(was, p, last), now);
}

// ---------------------------------------------------------------- ticket list and view

/** A session caller sees tickets they created or are responsible for (any stage); an API key sees the tenant's. */
const visibleTickets = (viewer: Viewer) => {
  const { tenant, user } = viewer;
  if (!user) return tenant.wfTickets;
  return tenant.wfTickets.filter(
    (t) => t.userId === user.id || Object.values(t.responsible).some((ids) => ids.includes(user.id)),
  );
};

function ticketItem(ctx: DomainContext, tenant: Tenant, t: WfTicketRecord): WorkflowTicketItem {
  const p = findById(tenant.wfProcesses, t.processId);
  return {
    id: t.id,
    wf_workflow_id: t.processId,
    wf_ticket_stage_id: t.stageId,
    wf_status_id: t.statusId,
    user_id: t.userId,
    created_at: t.createdAt,
    updated_at: t.updatedAt,
    solved_at: t.solvedAt,
    url: absolute(ctx, `/pages/workflow-ticket/${t.id}`),
    wfStatus: statusLabel(tenant, t.statusId),
    wfWorkflow: { id: t.processId, name: p?.name ?? '', is_hidden: p?.isHidden ?? false },
    user: personBrief(ctx, tenant, t.userId),
  };
}

export type TicketQuery = ListQuery & {
  wf_workflow_id?: string | undefined;
  wf_ticket_stage_id?: string | undefined;
  wf_status_id?: number | undefined;
};

export function workflowTicketIndex(
  ctx: DomainContext,
  viewer: Viewer,
  query: TicketQuery,
  url: string,
): WorkflowTicketPage {
  advanceTickets(ctx, viewer.tenant);
  const items = visibleTickets(viewer)
    .filter((t) => !query.wf_workflow_id || t.processId === query.wf_workflow_id)
    .filter((t) => !query.wf_ticket_stage_id || t.stageId === query.wf_ticket_stage_id)
    .filter((t) => query.wf_status_id === undefined || t.statusId === query.wf_status_id);
  const newest = byStampThenId(
    items,
    (t) => t.createdAt,
    (t) => t.id,
    'newest',
  );
  return pageOf(newest, query, url, (t) => ticketItem(ctx, viewer.tenant, t), 10);
}

export function workflowTicketView(ctx: DomainContext, viewer: Viewer, id: string): WorkflowTicketDetails {
  advanceTickets(ctx, viewer.tenant);
  const { tenant } = viewer;
  const t = visibleTickets(viewer).find((x) => x.id === id);
  const p = t && findById(tenant.wfProcesses, t.processId);
  if (!t || !p) throw fail.notFound(`workflow ticket ${id.slice(0, 80)} not found`);
  const current = p.stages.findIndex((s) => s.id === t.stageId);
  const stateOf = (i: number) => {
    if (t.statusId === WfStatus.solved) return 'done';
    if (t.statusId !== WfStatus.inProgress) return i < current ? 'done' : i === current ? 'stopped' : 'skipped';
    return i < current ? 'done' : i === current ? 'current' : 'pending';
  };
  return {
    id: t.id,
    wf_workflow_id: t.processId,
    wf_ticket_stage_id: t.stageId,
    user_id: t.userId,
    wf_category_id: t.categoryId,
    wf_status_id: t.statusId,
    created_at: t.createdAt,
    updated_at: t.updatedAt,
    solved_at: t.solvedAt,
    wfStatus: statusLabel(tenant, t.statusId),
    wfWorkflow: { id: p.id, name: p.name, brief: p.brief, is_hidden: p.isHidden },
    wfTicketStages: p.stages.map((s, i) => ({
      id: s.id,
      name: s.name,
      fields: s.fields.map(fieldOut),
      responsible: (t.responsible[s.id] ?? s.responsibleIds).map((uid) => personBrief(ctx, tenant, uid)),
      state: stateOf(i),
    })),
    fieldValues: { ...t.fieldValues },
  };
}
