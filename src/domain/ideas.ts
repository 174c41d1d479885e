// Ideas: statuses, purposes, list, view, create/edit, vote, participate, and the updIdeas dashboard widget.
import { fail, type Detail } from '../errors.js';
import type { DashboardWidget } from '../schemas/dashboard-widget.js';
import {
  IdeaStatusCode,
  type IdeaEdit,
  type IdeaIndex,
  type IdeaPurpose,
  type IdeaRecord,
  type IdeaStatus,
  type IdeaToggleResult,
  type IdeaView,
} from '../schemas/ideas.js';
import type { UserRecord } from '../schemas/records.js';
import type { Tenant } from '../store/store.js';
import { newUuid } from '../store/ids.js';
import { absolute, type DomainContext, personBrief } from './context.js';
import { idList, inDayRange, pageOf, parseDayRange, sortBy, type ListQuery } from './lists.js';
import { purposeTexts } from '../shared/idea-purposes.js';
import { widget } from './widgets.js';

const statusTexts: Record<'ru' | 'en', string[]> = {
  ru: ['На модерации', 'Новая', 'На рассмотрении', 'Принята', 'В работе', 'Реализована', 'Отклонена'],
  en: ['On moderation', 'New', 'Under review', 'Accepted', 'In progress', 'Implemented', 'Rejected'],
};
const statusColors = ['#9E9E9E', '#2196F3', '#FFC107', '#8BC34A', '#FF9800', '#4CAF50', '#F44336'];

export const ideaStatuses = (tenant: Tenant): IdeaStatus[] =>
  statusTexts[tenant.tenant.locale].map((name, i) => ({
    id: i + 1,
    name,
    color: statusColors[i] ?? '#9E9E9E',
    isFinal: i + 1 === IdeaStatusCode.implemented || i + 1 === IdeaStatusCode.rejected,
  }));

export const ideaPurposes = (tenant: Tenant): IdeaPurpose[] =>
  purposeTexts[tenant.tenant.locale].map(([name, description], i) => ({ id: i + 1, name, description }));

const messages = {
  ru: {
    voted: 'Ваш голос учтён',
    unvoted: 'Ваш голос отозван',
    joined: 'Вы участвуете в реализации идеи',
    left: 'Вы больше не участвуете в реализации идеи',
    closed: 'Идея ещё не опубликована или отклонена: голосовать и участвовать нельзя',
  },
  en: {
    voted: 'Your vote is counted',
    unvoted: 'Your vote is withdrawn',
    joined: 'You take part in this idea',
    left: 'You no longer take part in this idea',
    closed: 'The idea is not published yet or was rejected: voting and taking part are closed',
  },
};

/** Who moderates: users with the right user-edit (documented in docs/assumptions.md). */
export const isModerator = (rights: readonly string[]) => rights.includes('user-edit');

function ensureEnabled(tenant: Tenant) {
  if (!tenant.tenant.options.enableIdeas)
    throw fail.forbidden('ideas are switched off for this tenant (option enableIdeas)');
}

/** Visible to the user: published ideas (any status but "on moderation") and the user's own ideas on moderation. */
const visible = (idea: IdeaRecord, user: UserRecord) =>
  idea.statusId !== IdeaStatusCode.moderation || idea.authorId === user.id;

function find(tenant: Tenant, user: UserRecord, id: string): IdeaRecord {
  const idea = tenant.ideas.find((i) => i.id === id);
  if (!idea || !visible(idea, user)) throw fail.notFound(`idea ${id} not found`);
  return idea;
}

function toIndex(ctx: DomainContext, tenant: Tenant, user: UserRecord, idea: IdeaRecord): IdeaIndex {
  const statuses = ideaStatuses(tenant);
  const purposes = ideaPurposes(tenant);
  return {
    id: idea.id,
    title: idea.title,
    description: idea.description,
    idea_status_id: idea.statusId,
    idea_purpose_id: idea.purposeId,
    created_user_id: idea.authorId,
    performer_id: idea.performerId,
    created_at: idea.createdAt,
    updated_at: idea.updatedAt,
    status: statuses[idea.statusId - 1] ?? statuses[0]!,
    purpose: purposes[idea.purposeId - 1] ?? purposes[0]!,
    user: personBrief(ctx, tenant, idea.authorId),
    performer: idea.performerId ? personBrief(ctx, tenant, idea.performerId) : null,
    votesCount: idea.voterIds.length,
    participantsCount: idea.participantIds.length,
    commentsCount: tenant.ideaComments.filter((c) => c.ideaId === idea.id && c.status === 'published').length,
    isVoted: idea.voterIds.includes(user.id),
    isParticipant: idea.participantIds.includes(user.id),
    url: absolute(ctx, `/pages/idea/${idea.id}`),
  };
}

export type IdeaIndexQuery = ListQuery & {
  created_at?: string | undefined;
  created_user_id?: string | undefined;
  idea_status_id?: string | undefined;
  idea_purpose_id?: string | undefined;
  performer_id?: string | undefined;
};

export function ideaIndex(ctx: DomainContext, tenant: Tenant, user: UserRecord, q: IdeaIndexQuery, url: string) {
  ensureEnabled(tenant);
  const range = parseDayRange(q.created_at, 'created_at');
  const authors = idList(q.created_user_id);
  const statuses = idList(q.idea_status_id);
  const purposes = idList(q.idea_purpose_id);
  const performers = idList(q.performer_id);
  const items = tenant.ideas.filter(
    (i) =>
      visible(i, user) &&
      inDayRange(i.createdAt, range) &&
      (!authors || authors.has(i.authorId)) &&
      (!statuses || statuses.has(String(i.statusId))) &&
      (!purposes || purposes.has(String(i.purposeId))) &&
      (!performers || (i.performerId !== null && performers.has(i.performerId))),
  );
  // reversed first: among ideas of the same instant the one added last comes first
  const sorted = sortBy(items.reverse(), '-created_at', { created_at: (i) => i.createdAt });
  return pageOf(sorted, q, url, (i) => toIndex(ctx, tenant, user, i));
}

export function ideaView(ctx: DomainContext, tenant: Tenant, user: UserRecord, id: string): IdeaView {
  ensureEnabled(tenant);
  const idea = find(tenant, user, id);
  return {
    ...toIndex(ctx, tenant, user, idea),
    voters: idea.voterIds.map((v) => personBrief(ctx, tenant, v)),
    participants: idea.participantIds.map((p) => personBrief(ctx, tenant, p)),
    comments: tenant.ideaComments
      .filter((c) => c.ideaId === idea.id && c.status === 'published')
      .map((c) => ({ id: c.id, text: c.text, created_at: c.createdAt, user: personBrief(ctx, tenant, c.userId) })),
    canEdit: idea.authorId === user.id,
    moderated_at: idea.moderatedAt,
  };
}

/**
 * Creates an idea (no id) or edits one (only its author may). A user without the moderator right creates ideas
 * "on moderation"; a moderator's ideas are published at once. Field problems: 400 naming each field.
 */
export function ideaEdit(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  moderator: boolean,
  id: string | undefined,
  body: IdeaEdit,
): IdeaIndex {
  ensureEnabled(tenant);
  const details: Detail[] = [];
  const title = body.title?.trim();
  const description = body.description?.trim();
  const creating = id === undefined;
  if (creating || body.title !== undefined)
    if (!title) details.push({ field: 'body.title', message: 'is required and must not be blank' });
  if (creating || body.description !== undefined)
    if (!description) details.push({ field: 'body.description', message: 'is required and must not be blank' });
  if (body.idea_purpose_id !== undefined) {
    if (!ideaPurposes(tenant).some((p) => p.id === body.idea_purpose_id))
      details.push({ field: 'body.idea_purpose_id', message: 'must be an id from /idea/purposes' });
  } else if (creating) details.push({ field: 'body.idea_purpose_id', message: 'is required' });
  if (body.performer_id) {
    const performer = tenant.users.find((u) => u.id === body.performer_id);
    if (performer?.state !== 'active')
      details.push({ field: 'body.performer_id', message: 'must be an active user of the tenant' });
  }
  const idea = creating ? undefined : find(tenant, user, id);
  if (idea && idea.authorId !== user.id) throw fail.forbidden('only the author may edit an idea');
  if (details.length > 0)
    throw fail.validation(`invalid idea: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}`, details);
  const now = ctx.now.toISOString();
  if (idea) {
    const edited = ctx.store.update(tenant, 'ideas', idea, {
      ...(title ? { title } : {}),
      ...(description ? { description } : {}),
      ...(body.idea_purpose_id !== undefined ? { purposeId: body.idea_purpose_id } : {}),
      ...(body.performer_id !== undefined ? { performerId: body.performer_id } : {}),
      updatedAt: now,
    });
    return toIndex(ctx, tenant, user, edited);
  }
  const created: IdeaRecord = {
    id: newUuid(ctx.store, 'idea'),
    title: title ?? '',
    description: description ?? '',
    authorId: user.id,
    purposeId: body.idea_purpose_id ?? 1,
    statusId: moderator ? IdeaStatusCode.new : IdeaStatusCode.moderation,
    performerId: body.performer_id ?? null,
    createdAt: now,
    updatedAt: now,
    voterIds: [],
    participantIds: [],
    moderatedBy: null,
    moderatedAt: null,
  };
  ctx.store.insert(tenant, 'ideas', created);
  return toIndex(ctx, tenant, user, created);
}

const open = (idea: IdeaRecord) =>
  idea.statusId !== IdeaStatusCode.moderation && idea.statusId !== IdeaStatusCode.rejected;

function toggle(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  id: string,
  kind: 'vote' | 'participate',
): IdeaToggleResult {
  ensureEnabled(tenant);
  const idea = find(tenant, user, id);
  const m = messages[tenant.tenant.locale];
  const list = kind === 'vote' ? idea.voterIds : idea.participantIds;
  const was = list.includes(user.id);
  if (!open(idea)) return { success: false, status: was, message: m.closed, count: list.length };
  const next = was ? list.filter((x) => x !== user.id) : [...list, user.id];
  ctx.store.update(tenant, 'ideas', idea, kind === 'vote' ? { voterIds: next } : { participantIds: next });
  const message = kind === 'vote' ? (was ? m.unvoted : m.voted) : was ? m.left : m.joined;
  return { success: true, status: !was, message, count: next.length };
}

export const ideaVote = (ctx: DomainContext, tenant: Tenant, user: UserRecord, id: string) =>
  toggle(ctx, tenant, user, id, 'vote');
export const ideaParticipate = (ctx: DomainContext, tenant: Tenant, user: UserRecord, id: string) =>
  toggle(ctx, tenant, user, id, 'participate');

/** The company widget updIdeas: the newest published ideas, count of all published ones. */
export function ideasWidget(ctx: DomainContext, tenant: Tenant, _user: UserRecord): DashboardWidget {
  const published = sortBy(tenant.ideas.filter(open).reverse(), '-created_at', { created_at: (i) => i.createdAt });
  const statuses = ideaStatuses(tenant);
  return widget(tenant, 'updIdeas', published, (i) => ({
    id: i.id,
    title: i.title,
    subtitle: `${personBrief(ctx, tenant, i.authorId).name} · ${statuses[i.statusId - 1]?.name ?? ''}`,
    imageUrl: absolute(ctx, `/images/avatar/${i.authorId}.svg`),
    url: absolute(ctx, `/pages/idea/${i.id}`),
    date: i.createdAt,
  }));
}
