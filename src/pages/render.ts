// What each web page shows, built from the same domain functions as the API answers (so visibility and 404s agree).
// A backslash at the end of a line of a template continues that line: the text has no line break there.
import { fail } from '../errors.js';
import type { UserRecord } from '../schemas/records.js';
import type { PersonBrief } from '../schemas/common.js';
import type { Tenant } from '../store/store.js';
import { absolute, personBrief, type DomainContext } from '../domain/context.js';
import { workflowStartForm, workflowTicketIndex, workflowTicketView } from '../domain/workflow.js';
import { newsOf, published, toArticle } from '../domain/content.js';
import { userProfile } from '../domain/people.js';
import { ideaView } from '../domain/ideas.js';
import { calendarEventView } from '../domain/calendar.js';
import { orgEmploymentFileOne } from '../domain/org-files.js';
import { html, type Html } from './html.js';
import { sanitizeHtml } from './sanitize.js';

export type PageInput = {
  ctx: DomainContext;
  tenant: Tenant;
  user: UserRecord;
  id: string;
  query: Record<string, string | undefined>;
};
export type PageOut = { title: string; body: Html };

const en = {
  status: 'Status',
  created: 'Created',
  updated: 'Updated',
  solved: 'Solved',
  author: 'Author',
  stages: 'Stages',
  fields: 'Fields',
  responsible: 'Responsible',
  state: { done: 'done', current: 'current', pending: 'pending', stopped: 'stopped', skipped: 'skipped' } as Record<
    string,
    string
  >,
  required: 'required',
  myTickets: 'My requests',
  none: 'Nothing here',
  position: 'Position',
  department: 'Department',
  email: 'Email',
  phone: 'Phone',
  statusText: 'Status',
  votes: 'Votes',
  participants: 'Participants',
  comments: 'Comments',
  purpose: 'Purpose',
  performer: 'Performer',
  when: 'When',
  place: 'Place',
  organizer: 'Organiser',
  type: 'Type',
  period: 'Period',
  ready: 'Ready',
  due: 'Due',
  ends: 'Until',
  added: 'Added',
  by: 'Author',
  achievement: 'Achievement',
  course: 'Course',
  survey: 'Survey',
  contest: 'Voting',
  published: 'Published',
  description: 'Description',
};
const words: Record<'ru' | 'en', typeof en> = {
  ru: {
    status: 'Статус',
    created: 'Создана',
    updated: 'Обновлена',
    solved: 'Решена',
    author: 'Автор',
    stages: 'Этапы',
    fields: 'Поля заявки',
    responsible: 'Ответственные',
    state: { done: 'выполнен', current: 'текущий', pending: 'ожидает', stopped: 'остановлен', skipped: 'пропущен' },
    required: 'обязательное',
    myTickets: 'Мои заявки',
    none: 'Нет записей',
    position: 'Должность',
    department: 'Подразделение',
    email: 'Почта',
    phone: 'Телефон',
    statusText: 'Статус',
    votes: 'Голоса',
    participants: 'Участники',
    comments: 'Комментарии',
    purpose: 'Цель',
    performer: 'Исполнитель',
    when: 'Когда',
    place: 'Место',
    organizer: 'Организатор',
    type: 'Тип',
    period: 'Период',
    ready: 'Готов',
    due: 'Срок',
    ends: 'До',
    added: 'Добавлена',
    by: 'Автор',
    achievement: 'Достижение',
    course: 'Курс',
    survey: 'Опрос',
    contest: 'Голосование',
    published: 'Опубликовано',
    description: 'Описание',
  },
  en,
};
const w = (tenant: Tenant) => words[tenant.tenant.locale];

/** A date-time as the tenant reads it, in UTC (the mock has no user time zones). */
const when = (iso: string | null | undefined) => (iso ? iso.replace('T', ' ').slice(0, 16) : '—');

const person = (p: PersonBrief) =>
  html`<span class="person"><img src="${p.faceUrl}" alt="" width="28" height="28"><span>${p.name}</span></span>`;
const people = (list: readonly PersonBrief[]) => html`<div class="people">${list.map(person)}</div>`;
const fields = (rows: ReadonlyArray<readonly [string, Html | string | number | null]>) =>
  html`<dl class="fields">${rows.map(([k, v]) => html`<div><dt>${k}</dt><dd>${v ?? '—'}</dd></div>`)}</dl>`;

// ---------------------------------------------------------------- workflow

export function workflowTicketPage({ ctx, tenant, user, id }: PageInput): PageOut {
  const t = workflowTicketView(ctx, { tenant, user }, id);
  const p = tenant.wfProcesses.find((x) => x.id === t.wf_workflow_id);
  const l = w(tenant);
  const fieldName = (fid: string) =>
    p?.fields.find((f) => f.id === fid)?.name ??
    p?.stages.flatMap((s) => s.fields).find((f) => f.id === fid)?.name ??
    fid;
  const title = t.wfWorkflow.name;
  const values = Object.entries(t.fieldValues).map(([k, v]) => [fieldName(k), v] as const);
  return {
    title,
    body: html`<h1>${title}</h1>
<p class="meta"><span class="badge">${t.wfStatus}</span> · ${l.created} ${when(t.created_at)} · \
${l.updated} ${when(t.updated_at)}${t.solved_at ? html` · ${l.solved} ${when(t.solved_at)}` : ''}</p>
${fields([
  [l.author, person(personBrief(ctx, tenant, t.user_id))],
  [l.status, t.wfStatus],
])}
<h2>${l.fields}</h2>
${values.length === 0 ? html`<p class="meta">${l.none}</p>` : fields(values)}
<h2>${l.stages}</h2>
<ol class="stages">${t.wfTicketStages.map(
      (s) => html`<li class="stage" data-state="${s.state}"><strong>${s.name}</strong> \
<span class="badge state-${s.state}">${l.state[s.state] ?? s.state}</span>
${s.responsible.length > 0 ? html`<div class="meta">${l.responsible}:</div>${people(s.responsible)}` : ''}</li>`,
    )}</ol>`,
  };
}

export function workflowPage({ ctx, tenant, user, id }: PageInput): PageOut {
  const l = w(tenant);
  if (id === 'my') {
    const list = workflowTicketIndex(ctx, { tenant, user }, { 'per-page': '100' }, absolute(ctx, '/workflow/ticket'));
    return {
      title: l.myTickets,
      body: html`<h1>${l.myTickets}</h1>${
        list.data.length === 0
          ? html`<p class="meta">${l.none}</p>`
          : html`<ul class="stages">${list.data.map(
              (t) =>
                html`<li><a href="${t.url}">${t.wfWorkflow.name}</a> <span class="badge">${t.wfStatus}</span>\
<div class="meta">${when(t.created_at)}</div></li>`,
            )}</ul>`
      }`,
    };
  }
  const form = workflowStartForm(ctx, tenant, user, id);
  const p = tenant.wfProcesses.find((x) => x.id === id);
  return {
    title: form.name,
    body: html`<h1>${form.name}</h1>
<img class="cover" src="${form.imageUrl}" alt="" width="128" height="128" style="width:96px">
<p class="meta">${form.brief}</p>
${form.description.blocks.map((b) => html`<p>${b.data.text}</p>`)}
<h2>${l.fields}</h2>
${fields(form.fields.map((f) => [f.name, `${f.type}${f.required ? `, ${l.required}` : ''}`] as const))}
<h2>${l.stages}</h2>
<ol class="stages">${(p?.stages ?? []).map((s) => html`<li>${s.name}</li>`)}</ol>`,
  };
}

// ---------------------------------------------------------------- content and people

export function articlePage({ ctx, tenant, id }: PageInput): PageOut {
  const record =
    id === 'latest' ? newsOf(ctx, tenant)[0] : tenant.articles.find((a) => a.id === id && published(ctx, a));
  if (!record) throw fail.notFound(`article ${id.slice(0, 80)} not found`);
  const a = toArticle(ctx, tenant, record);
  const l = w(tenant);
  return {
    title: a.title,
    body: html`<article><h1>${a.title}</h1>
<p class="meta">${person(a.author)} · ${l.published} ${when(a.publishedAt)}\
${a.tags.length > 0 ? html` · ${a.tags.map((t) => html`<span class="badge">${t.name}</span> `)}` : ''}</p>
<img class="cover" src="${a.imageUrl}" alt="" width="640" height="320">
<p><strong>${a.lead}</strong></p>
<div class="body">${sanitizeHtml(a.body)}</div></article>`,
  };
}

export function userPage({ ctx, tenant, user, id }: PageInput): PageOut {
  const u = userProfile(ctx, tenant, user, { id });
  const l = w(tenant);
  return {
    title: u.name,
    body: html`<img class="avatar" src="${u.faceUrl}" alt="" width="96" height="96">
<h1>${u.name}</h1>
${fields([
  [l.position, u.position],
  [l.department, u.department.name],
  [l.email, html`<a href="mailto:${u.email}">${u.email}</a>`],
  [l.phone, u.phone],
  [l.statusText, u.statusText],
])}`,
  };
}

export function ideaPage({ ctx, tenant, user, id }: PageInput): PageOut {
  const i = ideaView(ctx, tenant, user, id);
  const l = w(tenant);
  return {
    title: i.title,
    body: html`<h1>${i.title}</h1>
<p class="meta"><span class="badge">${i.status.name}</span> · ${when(i.created_at)}</p>
${fields([
  [l.author, person(i.user)],
  [l.purpose, i.purpose.name],
  [l.performer, i.performer ? person(i.performer) : null],
  [l.votes, i.votesCount],
  [l.participants, i.participantsCount],
])}
<div class="body"><p>${i.description}</p></div>
<h2>${l.comments}</h2>
${
  i.comments.length === 0
    ? html`<p class="meta">${l.none}</p>`
    : html`<ul class="stages">${i.comments.map(
        (c) =>
          html`<li id="comment-${c.id}">${person(c.user)} <span class="meta">${when(c.created_at)}</span>\
<p>${c.text}</p></li>`,
      )}</ul>`
}`,
  };
}

export function calendarEventPage({ ctx, tenant, user, id, query }: PageInput): PageOut {
  const v = calendarEventView(ctx, tenant, user, { id, rec_date: query.rec_date });
  const e = v.calendarEvent;
  const l = w(tenant);
  return {
    title: e.title,
    body: html`<h1>${e.title}</h1>
${fields([
  [l.when, `${when(e.start_date_time)} – ${when(e.end_date_time)}`],
  [l.place, e.meeting_place?.name ?? null],
  [l.organizer, e.organizer ? person(e.organizer) : null],
  [l.participants, e.participants_count],
])}
<div class="body"><p>${e.description}</p></div>`,
  };
}

export function orgEmploymentFilePage({ ctx, tenant, user, id }: PageInput): PageOut {
  const f = orgEmploymentFileOne(ctx, tenant, user, id);
  const l = w(tenant);
  return {
    title: f.orgEmploymentFileType.name,
    body: html`<h1>${f.orgEmploymentFileType.name}</h1>
<p class="meta"><span class="badge">${f.orgEmploymentFileStatus.name}</span></p>
${fields([
  [l.position, user.position],
  [l.period, `${f.date_from ?? '—'} – ${f.date_to ?? '—'}`],
  [l.created, when(f.created_at)],
  [l.ready, when(f.ready_at)],
])}`,
  };
}

// ---------------------------------------------------------------- dashboard records
// (courses, surveys, achievements, contests, books)

/**
 * The page of a record with a title (404 when undefined): its image unless `withImage` is false, and rows of fields.
 */
function simple<T extends { title: string }>(
  { ctx, tenant, id }: PageInput,
  kind: string,
  record: T | undefined,
  rows: (r: T, l: typeof en) => ReadonlyArray<readonly [string, string]>,
  withImage = true,
): PageOut {
  if (record === undefined) throw fail.notFound(`${kind} ${id.slice(0, 80)} not found`);
  const src = absolute(ctx, `/images/${kind}/${id}.svg`);
  const image = withImage
    ? html`<img class="cover" src="${src}" alt="" width="128" height="128" style="width:96px">`
    : '';
  return { title: record.title, body: html`<h1>${record.title}</h1>${image}${fields(rows(record, w(tenant)))}` };
}

export function coursePage(input: PageInput): PageOut {
  const c = input.tenant.learningCourses.find((x) => x.id === input.id && x.assigneeIds.includes(input.user.id));
  return simple(input, 'course', c, (r, l) => [
    [l.type, r.kind === 'test' ? l.survey : l.course],
    [l.due, r.dueDate],
  ]);
}

export function surveyPage(input: PageInput): PageOut {
  const s = input.tenant.surveys.find((x) => x.id === input.id && x.assigneeIds.includes(input.user.id));
  return simple(
    input,
    'survey',
    s,
    (r, l) => [
      [l.type, l.survey],
      [l.ends, when(r.endsAt)],
    ],
    false,
  );
}

export function achievementPage(input: PageInput): PageOut {
  const a = input.tenant.achievements.find((x) => x.id === input.id);
  return simple(input, 'achievement', a, (r, l) => [
    [l.type, l.achievement],
    [l.description, r.description],
  ]);
}

export function contestPage(input: PageInput): PageOut {
  const c = input.tenant.contests.find((x) => x.id === input.id);
  return simple(input, 'contest', c, (r, l) => [
    [l.type, l.contest],
    [l.ends, when(r.endsAt)],
  ]);
}

export function bookPage(input: PageInput): PageOut {
  const b = input.tenant.libraryBooks.find((x) => x.id === input.id);
  return simple(input, 'book', b, (r, l) => [
    [l.by, r.author],
    [l.added, when(r.addedAt)],
  ]);
}
