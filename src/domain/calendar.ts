// Calendar: event types, events with weekly/daily/monthly recurrence expanded into occurrences, and
// participation requests (bids). All date-times are UTC, written `YYYY-MM-DD HH:MM:SS`.
import { createHash } from 'node:crypto';
import { fail } from '../errors.js';
import type {
  CalendarEvent,
  CalendarEventBid,
  CalendarEventBidRecord,
  CalendarEventExtended,
  CalendarEventRecord,
  CalendarEventType,
  CalendarEventTypeRecord,
  CalendarEventUser,
  CalendarEventView,
  CalendarView,
} from '../schemas/calendar.js';
import type { UserRecord } from '../schemas/records.js';
import { findById, type Tenant } from '../store/store.js';
import { newUuid, uuidFrom } from '../store/ids.js';
import { absolute, type DomainContext, personBrief } from './context.js';
import { inSomeGroup } from './groups.js';
import { foldText, isDay, matchesText, pageOf, idList, type Paged } from './lists.js';
import { isUuid } from '../schemas/check.js';

export const MEETING_PLACE_ENTITY = 1030;
const day = 86400_000;
/** Occurrences one list answer may expand when the route gives no bound (`--calendar-max-occurrences`). */
export const defaultMaxOccurrences = 2000;

/** One occurrence of an event: the event itself when not recurring. */
type Occurrence = { event: CalendarEventRecord; recDate: string | null; start: number; end: number };

/** The id of an occurrence of a recurring event: derived from the parent and the date, so it is stable. */
export const occurrenceId = (parentId: string, recDate: string) =>
  uuidFrom(createHash('sha256').update(`calendar-occurrence:${parentId}:${recDate}`).digest());

const occId = (o: Occurrence) => (o.recDate ? occurrenceId(o.event.id, o.recDate) : o.event.id);
export const stamp = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

type Recurrence = NonNullable<CalendarEventRecord['recurrence']>;

function step(start: number, r: Recurrence, n: number): number {
  const d = new Date(start);
  if (r.freq === 'daily') d.setUTCDate(d.getUTCDate() + n * r.interval);
  else if (r.freq === 'weekly') d.setUTCDate(d.getUTCDate() + 7 * n * r.interval);
  else d.setUTCMonth(d.getUTCMonth() + n * r.interval);
  return d.getTime();
}

/**
 * The first step of a series whose occurrence ends at or after `from`: steps only move forward in time, so a binary
 * search finds it in a few dozen steps, however long ago the series began (a daily series from 1990 asked for today
 * would otherwise walk 13,000 days before its first answer).
 */
function firstStepEndingFrom(start: number, length: number, r: Recurrence, from: number): number {
  if (start + length >= from) return 0;
  let low = 0; // ends before from
  let high = 1;
  while (step(start, r, high) + length < from) {
    low = high;
    high *= 2; // past the last date a Date can hold, a step is NaN: the loop ends there too
  }
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (step(start, r, mid) + length < from) low = mid;
    else high = mid;
  }
  return high;
}

/** The occurrence of a series that starts on the UTC day beginning at `dayStart`, if there is one. */
function occurrenceOn(event: CalendarEventRecord, r: Recurrence, dayStart: number): Occurrence | undefined {
  const start = Date.parse(event.startAt);
  const until = r.until ? Date.parse(`${r.until}T23:59:59.999Z`) : Infinity;
  const s = step(start, r, firstStepEndingFrom(start, 0, r, dayStart));
  if (!(s < dayStart + day) || s > until) return undefined;
  const end = s + Date.parse(event.endAt) - start;
  return { event, recDate: new Date(s).toISOString().slice(0, 10), start: s, end };
}

/**
 * Occurrences overlapping [from, to], at most `room` of them: the caller refuses a window that holds more (see
 * `occurrences`), so a series is never cut short without saying so.
 */
function expand(event: CalendarEventRecord, from: number, to: number, room: number): Occurrence[] {
  const start = Date.parse(event.startAt);
  const length = Date.parse(event.endAt) - start;
  const r = event.recurrence;
  if (!r) return start <= to && start + length >= from ? [{ event, recDate: null, start, end: start + length }] : [];
  const until = r.until ? Date.parse(`${r.until}T23:59:59.999Z`) : Infinity;
  const out: Occurrence[] = [];
  for (let n = firstStepEndingFrom(start, length, r, from); out.length < room; n++) {
    const s = step(start, r, n);
    if (!(s <= to) || s > until) break; // NaN past the last date a Date can hold ends the series too
    out.push({ event, recDate: new Date(s).toISOString().slice(0, 10), start: s, end: s + length });
  }
  return out;
}

const typeRecord = (tenant: Tenant, e: CalendarEventRecord): CalendarEventTypeRecord => {
  const t = findById(tenant.calendarEventTypes, e.typeId);
  if (!t) throw new Error(`calendar event ${e.id} has an unknown type ${e.typeId}`);
  return t;
};

export const toEventType = (t: CalendarEventTypeRecord): CalendarEventType => ({
  id: t.id,
  name: t.name,
  background_color: t.backgroundColor,
  text_color: t.textColor,
  code: t.code,
  is_custom: t.code === 5,
});

const isOpen = (b: CalendarEventBidRecord) => b.status === 'pending' || b.status === 'approved';
const bidsOf = (tenant: Tenant, o: Occurrence) =>
  tenant.calendarEventBids.filter((b) => b.eventId === o.event.id && b.recDate === o.recDate);

/** Invited participants plus approved requests of this occurrence. */
function participantIds(tenant: Tenant, o: Occurrence): string[] {
  const ids = new Set(o.event.participantIds);
  for (const b of bidsOf(tenant, o)) if (b.status === 'approved') ids.add(b.userId);
  return [...ids];
}

function canSee(tenant: Tenant, user: UserRecord, e: CalendarEventRecord): boolean {
  if (e.visibleToGroupIds.length === 0 || e.organizerId === user.id || e.participantIds.includes(user.id)) return true;
  return inSomeGroup(tenant, e.visibleToGroupIds, user.id);
}

function toEvent(ctx: DomainContext, tenant: Tenant, o: Occurrence): CalendarEvent {
  const e = o.event;
  const place = e.meetingPlaceId ? findById(tenant.meetingPlaces, e.meetingPlaceId) : undefined;
  const participants = participantIds(tenant, o);
  return {
    id: occId(o),
    parent_id: o.recDate ? e.id : null,
    rec_date: o.recDate,
    title: e.title,
    description: e.description,
    start_date_time: stamp(o.start),
    end_date_time: stamp(o.end),
    is_all_day: e.allDay,
    is_recurring: e.recurrence !== null,
    recurrence: e.recurrence ? { ...e.recurrence } : null,
    calendar_event_type_code: typeRecord(tenant, e).code,
    entity_id: place ? MEETING_PLACE_ENTITY : null,
    calendar_event_entity_item_id: place?.id ?? null,
    meeting_place: place ? { id: place.id, name: place.name } : null,
    organizer: e.organizerId ? personBrief(ctx, tenant, e.organizerId) : null,
    participants: participants.map((id) => personBrief(ctx, tenant, id)),
    participants_count: participants.length,
    max_participants: e.maxParticipants,
    bid_mode: e.bidMode,
    visible_to: e.visibleToGroupIds
      .flatMap((id) => findById(tenant.userGroups, id) ?? [])
      .map((g) => ({ id: g.id, name: g.name })),
    url: absolute(ctx, `/pages/calendar-event/${e.id}${o.recDate ? `?rec_date=${o.recDate}` : ''}`),
    created_at: e.createdAt,
  };
}

function toExtended(ctx: DomainContext, tenant: Tenant, o: Occurrence): CalendarEventExtended {
  const t = typeRecord(tenant, o.event);
  return { ...toEvent(ctx, tenant, o), calendar_event_type_id: t.id, calendar_event_type: toEventType(t) };
}

// ---- lists ----

/** The common list parameters; `type` is the integer code (calendar-event family) or the uuid (calendar family). */
export type EventFilter = {
  title?: string | undefined;
  title_exact?: string | undefined;
  start_date_time?: string | undefined;
  end_date_time?: string | undefined;
  type?: number | string | undefined;
  entity_id?: number | undefined;
  calendar_event_entity_item_id?: string | undefined;
  user_id?: string | undefined;
  visible_to?: string | undefined;
  /** the most occurrences the answer may expand; a window holding more is refused (400) */
  maxOccurrences?: number | undefined;
};

function parseStamp(value: string | undefined, field: string): number | null {
  if (value === undefined || value === '') return null;
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(value);
  const ms = m ? Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}Z`) : NaN;
  if (!m || !isDay(m[1]!) || Number.isNaN(ms) || stamp(ms) !== value) {
    throw fail.validation(`${field} must be a date and time YYYY-MM-DD HH:MM:SS`, [
      { field: `query.${field}`, message: 'must be YYYY-MM-DD HH:MM:SS' },
    ]);
  }
  return ms;
}

/** The requested window; by default from the first day of the current month (sandbox clock) for three months. */
export function window(ctx: DomainContext, q: EventFilter): { from: number; to: number } {
  const now = ctx.now;
  const from = parseStamp(q.start_date_time, 'start_date_time') ?? Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  let to = parseStamp(q.end_date_time, 'end_date_time');
  if (to === null) {
    const f = new Date(from);
    to = Date.UTC(
      f.getUTCFullYear(),
      f.getUTCMonth() + 3,
      f.getUTCDate(),
      f.getUTCHours(),
      f.getUTCMinutes(),
      f.getUTCSeconds(),
    );
  }
  if (to < from)
    throw fail.validation('end_date_time is before start_date_time', [
      { field: 'query.end_date_time', message: 'must not be before start_date_time' },
    ]);
  return { from, to };
}

/** Filters on the event itself (not on an occurrence): visibility, title, type, meeting place, groups. */
function seriesFilter(
  tenant: Tenant,
  user: UserRecord,
  q: EventFilter & { q?: string | undefined },
): (e: CalendarEventRecord) => boolean {
  if (q.entity_id !== undefined && q.entity_id !== MEETING_PLACE_ENTITY) {
    throw fail.validation(`entity_id ${q.entity_id} is not known: only ${MEETING_PLACE_ENTITY} (meeting place)`, [
      { field: 'query.entity_id', message: `must be ${MEETING_PLACE_ENTITY}` },
    ]);
  }
  const groups = idList(q.visible_to);
  if (groups && [...groups].some((g) => !isUuid(g))) {
    throw fail.validation('visible_to must be comma-separated user group ids', [
      { field: 'query.visible_to', message: 'must be comma-separated uuids' },
    ]);
  }
  const title = q.title?.trim() ? foldText(q.title.trim()) : null;
  return (e) => {
    if (!canSee(tenant, user, e)) return false;
    if (title !== null && !foldText(e.title).includes(title)) return false;
    if (q.title_exact !== undefined && q.title_exact !== '' && e.title !== q.title_exact) return false;
    if (!matchesText(q.q, [e.title])) return false;
    if (typeof q.type === 'number' && typeRecord(tenant, e).code !== q.type) return false;
    if (typeof q.type === 'string' && e.typeId !== q.type) return false;
    if (
      q.calendar_event_entity_item_id !== undefined &&
      q.calendar_event_entity_item_id !== '' &&
      e.meetingPlaceId !== q.calendar_event_entity_item_id
    )
      return false;
    if (q.entity_id === MEETING_PLACE_ENTITY && e.meetingPlaceId === null) return false;
    if (groups && !e.visibleToGroupIds.some((g) => groups.has(g))) return false;
    return true;
  };
}

function occurrences(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  q: EventFilter,
  mine: boolean,
): Occurrence[] {
  const { from, to } = window(ctx, q);
  const keep = seriesFilter(tenant, user, q);
  const most = q.maxOccurrences ?? defaultMaxOccurrences;
  const expanded: Occurrence[] = [];
  for (const event of tenant.calendarEvents) {
    if (!keep(event)) continue;
    for (const o of expand(event, from, to, most + 1 - expanded.length)) expanded.push(o);
    if (expanded.length > most) {
      throw fail.validation(
        `the window from ${stamp(from)} to ${stamp(to)} holds more than ${most} occurrences of the events you can see ` +
          'that match the filters; ask for a shorter window (start_date_time, end_date_time) or fewer events (the filters). The ' +
          `mock expands at most ${most} occurrences per answer (--calendar-max-occurrences)`,
        [{ field: 'query.end_date_time', message: `the window holds more than ${most} occurrences` }],
      );
    }
  }
  const out = expanded.filter((o) => {
    const people = participantIds(tenant, o);
    if (q.user_id && o.event.organizerId !== q.user_id && !people.includes(q.user_id)) return false;
    if (
      mine &&
      o.event.organizerId !== user.id &&
      !people.includes(user.id) &&
      !bidsOf(tenant, o).some((b) => b.userId === user.id && isOpen(b))
    )
      return false;
    return true;
  });
  return out.sort((a, b) => a.start - b.start || a.event.title.localeCompare(b.event.title));
}

export const calendarEventList = (
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  q: EventFilter,
  mine = false,
) => ({ data: occurrences(ctx, tenant, user, q, mine).map((o) => toEvent(ctx, tenant, o)) });

export const calendarList = (ctx: DomainContext, tenant: Tenant, user: UserRecord, q: EventFilter, mine = false) => ({
  data: occurrences(ctx, tenant, user, q, mine).map((o) => toExtended(ctx, tenant, o)),
});

/** Events (a recurring one once, by its parent id) matching q and the filters other than title and dates. */
export function calendarItems(
  _ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  q: EventFilter & { q?: string | undefined },
) {
  const { title: _t, title_exact: _x, start_date_time: _s, end_date_time: _e, ...rest } = q;
  const keep = seriesFilter(tenant, user, rest);
  const data = tenant.calendarEvents
    .filter(keep)
    .filter((e) => !rest.user_id || e.organizerId === rest.user_id || e.participantIds.includes(rest.user_id))
    .map((e) => ({ id: e.id, title: e.title }))
    .sort((a, b) => a.title.localeCompare(b.title) || a.id.localeCompare(b.id));
  return { data };
}

// ---- one event ----

export type EventAddress = { id: string; parent_id?: string | undefined; rec_date?: string | undefined };

/** Finds the event or occurrence addressed by id (or parent_id and rec_date); 404 when unknown or not visible. */
function resolve(
  tenant: Tenant,
  user: UserRecord,
  a: EventAddress,
  names = { parent: 'query.parent_id', rec: 'query.rec_date' },
): Occurrence {
  const notFound = () => fail.notFound(`calendar event ${a.id}${a.rec_date ? ` on ${a.rec_date}` : ''} not found`);
  if (a.rec_date !== undefined && !isDay(a.rec_date)) {
    throw fail.validation(`${names.rec} must be a date YYYY-MM-DD`, [
      { field: names.rec, message: 'must be YYYY-MM-DD' },
    ]);
  }
  const event = tenant.calendarEvents.find((e) => e.id === (a.parent_id ?? a.id));
  if (!event || !canSee(tenant, user, event)) throw notFound();
  if (!event.recurrence) {
    if (a.parent_id !== undefined && a.id !== event.id) throw notFound();
    return expand(event, -Infinity, Infinity, 1)[0]!;
  }
  if (a.rec_date === undefined) {
    if (a.parent_id !== undefined) {
      throw fail.validation(`${names.rec} is required with ${names.parent}`, [
        { field: names.rec, message: 'is required for an occurrence' },
      ]);
    }
    // The series itself: dated by its first occurrence, addressed without parent and date.
    const first = expand(event, -Infinity, Infinity, 1)[0]!;
    return { ...first, recDate: null };
  }
  const o = occurrenceOn(event, event.recurrence, Date.parse(`${a.rec_date}T00:00:00Z`));
  if (!o || (a.id !== event.id && a.id !== occurrenceId(event.id, o.recDate!))) throw notFound();
  return o;
}

const seriesOnly = (o: Occurrence) => o.event.recurrence !== null && o.recDate === null;

function toBid(b: CalendarEventBidRecord): CalendarEventBid {
  return {
    id: b.id,
    calendar_event_id: b.recDate ? occurrenceId(b.eventId, b.recDate) : b.eventId,
    calendar_event_parent_id: b.recDate ? b.eventId : null,
    calendar_event_rec_date: b.recDate,
    user_id: b.userId,
    status: b.status,
    created_at: b.createdAt,
    updated_at: b.updatedAt,
  };
}

/** Why the user may not request participation now; empty when they may. */
function bidObstacles(ctx: DomainContext, tenant: Tenant, user: UserRecord, o: Occurrence): string[] {
  const ru = tenant.tenant.locale === 'ru';
  const out: string[] = [];
  const people = participantIds(tenant, o);
  if (o.event.bidMode === 'none')
    out.push(ru ? 'На это событие заявки не принимаются' : 'This event does not take participation requests');
  else if (seriesOnly(o))
    out.push(ru ? 'Укажите дату повторения события' : 'Choose an occurrence of the recurring event');
  else if (o.end <= ctx.now.getTime()) out.push(ru ? 'Событие уже прошло' : 'The event is over');
  else if (o.event.organizerId === user.id) out.push(ru ? 'Вы организатор этого события' : 'You organise this event');
  else if (bidsOf(tenant, o).some((b) => b.userId === user.id && isOpen(b)))
    out.push(ru ? 'Заявка на участие уже подана' : 'You have already requested participation');
  else if (people.includes(user.id)) out.push(ru ? 'Вы уже участник события' : 'You already take part in this event');
  else if (o.event.maxParticipants !== null && people.length >= o.event.maxParticipants)
    out.push(ru ? 'Свободных мест нет' : 'The event is full');
  return out;
}

function viewParts(ctx: DomainContext, tenant: Tenant, user: UserRecord, o: Occurrence) {
  const bid =
    bidsOf(tenant, o)
      .filter((b) => b.userId === user.id && isOpen(b))
      .at(-1) ?? null;
  const role: CalendarEventUser['role'] | null =
    o.event.organizerId === user.id ? 'organizer' : participantIds(tenant, o).includes(user.id) ? 'participant' : null;
  return {
    calendarEventUser: role ? { user: personBrief(ctx, tenant, user.id), role } : null,
    calendarEventBid: bid ? toBid(bid) : null,
    hasCalendarEventBid: bid !== null,
    canCreateCalendarEventBid: bidObstacles(ctx, tenant, user, o).length === 0,
  };
}

export function calendarEventView(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  a: EventAddress,
): CalendarEventView {
  const o = resolve(tenant, user, a);
  return { calendarEvent: toEvent(ctx, tenant, o), ...viewParts(ctx, tenant, user, o) };
}

export function calendarView(ctx: DomainContext, tenant: Tenant, user: UserRecord, a: EventAddress): CalendarView {
  const o = resolve(tenant, user, a);
  return { data: toExtended(ctx, tenant, o), ...viewParts(ctx, tenant, user, o) };
}

// ---- types ----

export type TypeQuery = {
  name?: string | undefined;
  is_used?: boolean | undefined;
  type_id?: number | undefined;
  page?: string | undefined;
  perPage?: string | undefined;
  url: string;
};

export function calendarEventTypeList(
  _ctx: DomainContext,
  tenant: Tenant,
  _user: UserRecord,
  q: TypeQuery,
): Paged<CalendarEventType> {
  const used = new Set(tenant.calendarEvents.map((e) => e.typeId));
  const name = q.name?.trim() ? foldText(q.name.trim()) : null;
  const items = tenant.calendarEventTypes
    .filter((t) => name === null || foldText(t.name).includes(name))
    .filter((t) => q.is_used === undefined || used.has(t.id) === q.is_used)
    .filter((t) => q.type_id === undefined || t.code === q.type_id)
    .sort((a, b) => a.code - b.code || a.name.localeCompare(b.name));
  return pageOf(items, { page: q.page, 'per-page': q.perPage }, q.url, toEventType);
}

// ---- requests ----

export type BidInput = {
  calendar_event_id: string;
  calendar_event_parent_id?: string | undefined;
  calendar_event_rec_date?: string | undefined;
};

export function calendarEventRequestCreate(ctx: DomainContext, tenant: Tenant, user: UserRecord, input: BidInput) {
  const o = resolve(
    tenant,
    user,
    { id: input.calendar_event_id, parent_id: input.calendar_event_parent_id, rec_date: input.calendar_event_rec_date },
    { parent: 'body.calendar_event_parent_id', rec: 'body.calendar_event_rec_date' },
  );
  const ru = tenant.tenant.locale === 'ru';
  const errors = bidObstacles(ctx, tenant, user, o);
  if (errors.length > 0) {
    return {
      success: false,
      message: ru ? 'Не удалось подать заявку' : 'The request could not be made',
      errors,
      data: null,
    };
  }
  const at = ctx.now.toISOString();
  const bid: CalendarEventBidRecord = {
    id: newUuid(ctx.store, 'calendar-event-bid'),
    eventId: o.event.id,
    recDate: o.recDate,
    userId: user.id,
    status: o.event.bidMode === 'auto' ? 'approved' : 'pending',
    createdAt: at,
    updatedAt: at,
  };
  ctx.store.insert(tenant, 'calendarEventBids', bid);
  const message =
    bid.status === 'approved'
      ? ru
        ? 'Заявка принята: вы участник события'
        : 'Request approved: you take part in the event'
      : ru
        ? 'Заявка отправлена организатору'
        : 'Request sent to the organiser';
  return { success: true, message, errors: null, data: toBid(bid) };
}

export function calendarEventRequestCancel(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  input: { id: string },
) {
  // Another user's request is "not found" too: its existence is not revealed.
  const bid = tenant.calendarEventBids.find((b) => b.id === input.id && b.userId === user.id);
  if (!bid) throw fail.notFound(`participation request ${input.id} not found`);
  const ru = tenant.tenant.locale === 'ru';
  if (!isOpen(bid)) {
    return {
      success: false,
      message: ru ? 'Заявку нельзя отменить' : 'The request cannot be cancelled',
      errors: [ru ? `Заявка уже в статусе ${bid.status}` : `The request is already ${bid.status}`],
    };
  }
  ctx.store.update(tenant, 'calendarEventBids', bid, { status: 'cancelled', updatedAt: ctx.now.toISOString() });
  return { success: true, message: ru ? 'Заявка отменена' : 'Request cancelled', errors: null };
}
