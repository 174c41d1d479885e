// The calendar's bounds and trust (src/domain/calendar.ts), in process and fast: the file `npm run mutate -- calendar`
// runs first. The window of at most --calendar-max-occurrences occurrences (exactly the bound answered, one more a 400
// naming the flag), the window's date-time checks and its default, which occurrences a window holds at its edges,
// a series found however long ago it began, and who sees which event (`visible_to`, groups, organiser, participant).
// The domain functions are called on a copy of a seeded tenant holding only this file's events.
// Over sockets: calendar-bounds.test.ts, calendar.test.ts.
import t, { type Test } from 'tap';
import { accounts, build, tenants } from '../helper.js';
import {
  calendarEventList,
  calendarEventView,
  calendarItems,
  calendarList,
  type EventFilter,
  occurrenceId,
  window,
} from '../../src/domain/calendar.js';
import type { DomainContext } from '../../src/domain/context.js';
import { noEffects } from '../../src/domain/effects.js';
import { ApiError } from '../../src/errors.js';
import type { CalendarEventRecord } from '../../src/schemas/calendar.js';
import type { UserGroupRecord } from '../../src/schemas/records.js';
import type { Tenant } from '../../src/store/store.js';

const day = 86_400_000;
/** `YYYY-MM-DD HH:MM:SS` of a time, written here rather than taken from the module */
const at = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const dayOf = (date: string) => ({ start_date_time: `${date} 00:00:00`, end_date_time: `${date} 23:59:59` });

/** The error `fn` throws: a 400 with exactly this message and these details. */
function refused(
  t: Test,
  fn: () => unknown,
  message: string | RegExp,
  details: Array<{ field: string; message: string }>,
  what: string,
) {
  const err = t.throws(fn, what) as ApiError;
  t.ok(err instanceof ApiError, `${what}: an ApiError`);
  t.equal(err.statusCode, 400, `${what}: 400`);
  if (typeof message === 'string') t.equal(err.message, message, what);
  else t.match(err.message, message, what);
  t.same(err.details, details, `${what}: details`);
}

t.test('calendar windows, bounds and visibility', async (t) => {
  const app = await build(t);
  const { store, outbox } = app.sandboxes.get('calendar-window');
  const seeded = store.tenant(tenants.romashka)!;
  const ctx: DomainContext = {
    store,
    now: new Date('2026-03-15T09:00:00Z'),
    outbox,
    baseUrl: 'http://x',
    effects: noEffects,
  };
  const me = seeded.users.find((u) => u.id === accounts.admin.userId)!;
  const someoneElse = seeded.users.find((u) => u.id !== me.id)!;
  const typeId = seeded.calendarEventTypes[0]!.id;
  let next = 1;
  /** A one-hour event, visible to everyone, starting at `startAt` (ISO); `over` changes any field. */
  const event = (title: string, startAt: string, over: Partial<CalendarEventRecord> = {}): CalendarEventRecord => ({
    id: uuid(next++),
    title,
    description: '',
    typeId,
    startAt,
    endAt: new Date(Date.parse(startAt) + 3_600_000).toISOString(),
    allDay: false,
    recurrence: null,
    organizerId: null,
    participantIds: [],
    meetingPlaceId: null,
    visibleToGroupIds: [],
    bidMode: 'none',
    maxParticipants: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    ...over,
  });
  const daily = (title: string, startAt: string, until: string | null = null) =>
    event(title, startAt, { recurrence: { freq: 'daily', interval: 1, until } });
  const group = (name: string, memberIds: string[]): UserGroupRecord => ({
    ...seeded.userGroups[0]!,
    id: uuid(next++),
    name,
    memberIds,
  });
  /** The seeded tenant with only these events (and groups), no requests. */
  const tenantWith = (events: CalendarEventRecord[], userGroups: UserGroupRecord[] = []): Tenant => ({
    ...seeded,
    calendarEvents: events,
    calendarEventBids: [],
    userGroups,
  });
  const list = (tenant: Tenant, q: EventFilter, user = me) => calendarEventList(ctx, tenant, user, q).data;
  const titles = (tenant: Tenant, q: EventFilter, user = me) =>
    list(tenant, q, user)
      .map((e) => e.title)
      .sort();
  const starts = (tenant: Tenant, q: EventFilter) => list(tenant, q).map((e) => e.start_date_time);

  t.test('a window of exactly --calendar-max-occurrences is answered whole; one more is a 400 naming it', async (t) => {
    const singles = (n: number, on = '2026-03-10') =>
      Array.from({ length: n }, (_, i) => event(`E${i}`, `${on}T10:00:00.000Z`));
    const q = { ...dayOf('2026-03-10'), maxOccurrences: 5 };
    t.equal(list(tenantWith(singles(5)), q).length, 5, '5 events, a bound of 5: all of them');
    t.equal(calendarList(ctx, tenantWith(singles(5)), me, q).data.length, 5, 'the calendar family too');
    const message =
      'the window from 2026-03-10 00:00:00 to 2026-03-10 23:59:59 holds more than 5 occurrences of the events you ' +
      'can see that match the filters; ask for a shorter window (start_date_time, end_date_time) or fewer events ' +
      '(the filters). The mock expands at most 5 occurrences per answer (--calendar-max-occurrences)';
    const details = [{ field: 'query.end_date_time', message: 'the window holds more than 5 occurrences' }];
    refused(t, () => list(tenantWith(singles(6)), q), message, details, '6 events');
    refused(t, () => calendarList(ctx, tenantWith(singles(6)), me, q), message, details, '6 events, calendar family');

    // one series: its occurrences count one by one
    const series = daily('Stand-up', '2026-03-01T10:00:00.000Z');
    const days = (first: string, last: string, most: number) => ({
      start_date_time: `${first} 00:00:00`,
      end_date_time: `${last} 23:59:59`,
      maxOccurrences: most,
    });
    t.same(
      starts(tenantWith([series]), days('2026-03-01', '2026-03-05', 5)),
      [
        '2026-03-01 10:00:00',
        '2026-03-02 10:00:00',
        '2026-03-03 10:00:00',
        '2026-03-04 10:00:00',
        '2026-03-05 10:00:00',
      ],
      'a series of 5 in the window, a bound of 5',
    );
    refused(
      t,
      () => list(tenantWith([series]), days('2026-03-01', '2026-03-06', 5)),
      /more than 5 occurrences/,
      [{ field: 'query.end_date_time', message: 'the window holds more than 5 occurrences' }],
      'a series of 6',
    );
    // events counted before a series: the series has the room left, one more than that is refused
    const mixed = tenantWith([...singles(2, '2026-03-02'), series]);
    t.equal(list(mixed, days('2026-03-01', '2026-03-03', 5)).length, 5, '2 events + 3 of a series');
    t.same(
      list(mixed, days('2026-03-01', '2026-03-03', 5))
        .filter((e) => e.title === 'Stand-up')
        .map((e) => e.rec_date),
      ['2026-03-01', '2026-03-02', '2026-03-03'],
    );
    t.throws(() => list(mixed, days('2026-03-01', '2026-03-04', 5)), /more than 5/, '2 + 4: refused');
    t.throws(
      () => list(tenantWith([series, ...singles(2, '2026-03-02')]), days('2026-03-01', '2026-03-04', 5)),
      /more than 5/,
      '4 + 2: refused',
    );
    t.equal(
      list(tenantWith([series, ...singles(2, '2026-03-02')]), days('2026-03-01', '2026-03-03', 5)).length,
      5,
      '3 + 2',
    );
    // what the caller cannot see or filters out is not counted
    const stranger = group('Strangers', [someoneElse.id]);
    const hidden = singles(10).map((e) => ({ ...e, visibleToGroupIds: [stranger.id] }));
    t.equal(list(tenantWith([...hidden, ...singles(5)], [stranger]), q).length, 5, 'hidden events are not counted');
    t.equal(list(tenantWith(singles(8)), { ...q, title: 'E1' }).length, 1, 'filtered out events are not counted');
    t.equal(list(tenantWith(singles(8)), { ...q, title: ' e1 ' }).length, 1, 'the title trimmed, any case');
  });

  t.test('without a bound from the route, the default is 2000', async (t) => {
    const series = daily('Daily', '2020-01-01T10:00:00.000Z');
    const through = (n: number) => ({
      start_date_time: '2020-01-01 00:00:00',
      end_date_time: at(Date.UTC(2020, 0, 1) + (n - 1) * day + 86_399_000),
    });
    const all = list(tenantWith([series]), through(2000));
    t.equal(all.length, 2000, '2000 days of a daily series');
    t.equal(all.at(-1)!.start_date_time, at(Date.UTC(2020, 0, 1, 10) + 1999 * day));
    t.throws(() => list(tenantWith([series]), through(2001)), /more than 2000 occurrences.*--calendar-max-occurrences/);
  });

  t.test('an event is in the window when it overlaps it, edges included', async (t) => {
    const one = tenantWith([event('Ten to eleven', '2026-03-10T10:00:00.000Z')]);
    const window = (from: string, to: string) => titles(one, { start_date_time: from, end_date_time: to });
    t.same(window('2026-03-10 00:00:00', '2026-03-10 10:00:00'), ['Ten to eleven'], 'the window ends as it starts');
    t.same(window('2026-03-10 00:00:00', '2026-03-10 09:59:59'), [], 'the window ends before it starts');
    t.same(window('2026-03-10 11:00:00', '2026-03-10 23:00:00'), ['Ten to eleven'], 'the window starts as it ends');
    t.same(window('2026-03-10 11:00:01', '2026-03-10 23:00:00'), [], 'the window starts after it ends');
    t.same(window('2026-03-10 10:30:00', '2026-03-10 10:30:00'), ['Ten to eleven'], 'a moment inside it');
    t.same(
      list(one, dayOf('2026-03-10')).map((e) => [e.start_date_time, e.end_date_time]),
      [['2026-03-10 10:00:00', '2026-03-10 11:00:00']],
      'its start and end',
    );

    const series = tenantWith([daily('Daily', '2026-03-01T10:00:00.000Z')]);
    const dates = (from: string, to: string) =>
      list(series, { start_date_time: from, end_date_time: to }).map((e) => e.rec_date);
    t.same(dates('2026-03-03 11:00:00', '2026-03-05 10:00:00'), ['2026-03-03', '2026-03-04', '2026-03-05']);
    t.same(dates('2026-03-03 11:00:01', '2026-03-05 09:59:59'), ['2026-03-04']);
    t.same(dates('2026-02-01 00:00:00', '2026-03-02 10:00:00'), ['2026-03-01', '2026-03-02'], 'from its first');
    t.same(dates('2026-02-01 00:00:00', '2026-03-01 09:59:59'), [], 'a window before the series');
    t.same(dates('2026-03-01 11:00:00', '2026-03-02 09:00:00'), ['2026-03-01'], 'from the end of its first');
    t.same(
      dates('2026-03-06 11:00:00', '2026-03-07 10:00:00'),
      ['2026-03-06', '2026-03-07'],
      'from the end of its 6th',
    );
    t.same(
      list(series, { start_date_time: '2026-03-06 11:00:00', end_date_time: '2026-03-06 11:00:00' }).map((e) => [
        e.start_date_time,
        e.end_date_time,
      ]),
      [['2026-03-06 10:00:00', '2026-03-06 11:00:00']],
      'an occurrence as long as the first',
    );
    t.same(dates('2026-03-01 11:00:01', '2026-03-02 09:00:00'), [], 'from just after the end of its first');
    // until is the whole day: an occurrence at its last millisecond is in it
    const lastMoment = tenantWith([daily('Late', '2026-03-01T23:59:59.999Z', '2026-03-03')]);
    t.same(
      list(lastMoment, { start_date_time: '2026-03-01 00:00:00', end_date_time: '2026-03-31 00:00:00' }).map(
        (e) => e.rec_date,
      ),
      ['2026-03-01', '2026-03-02', '2026-03-03'],
      'until: an occurrence at 23:59:59.999 of its day',
    );
    const late = lastMoment.calendarEvents[0]!;
    t.equal(
      calendarEventView(ctx, lastMoment, me, { id: late.id, parent_id: late.id, rec_date: '2026-03-03' }).calendarEvent
        .rec_date,
      '2026-03-03',
      'and addressed by its date',
    );
    const until = tenantWith([daily('Until', '2026-03-01T10:00:00.000Z', '2026-03-04')]);
    t.same(
      list(until, { start_date_time: '2026-03-01 00:00:00', end_date_time: '2026-03-31 00:00:00' }).map(
        (e) => e.rec_date,
      ),
      ['2026-03-01', '2026-03-02', '2026-03-03', '2026-03-04'],
      'until: its last day included',
    );
    t.same(list(until, dayOf('2026-03-05')), [], 'nothing after until');
  });

  t.test('a series is found in the window however long ago it began, by its frequency and interval', async (t) => {
    const on = (e: CalendarEventRecord, date = '2026-03-10') =>
      list(tenantWith([e]), dayOf(date)).map((o) => `${o.rec_date} ${o.start_date_time}`);
    for (const startAt of [
      '2026-03-10T10:00:00.000Z',
      '2026-03-09T10:00:00.000Z',
      '2026-03-07T10:00:00.000Z',
      '2026-02-10T10:00:00.000Z',
      '2025-03-10T10:00:00.000Z',
      '2001-05-17T10:00:00.000Z',
      '1990-01-01T10:00:00.000Z',
      '1700-01-01T10:00:00.000Z',
    ])
      t.same(on(daily(`since ${startAt}`, startAt)), ['2026-03-10 2026-03-10 10:00:00'], `daily since ${startAt}`);
    // an occurrence that began the day before and ends in the window is in it
    const night = event('Night shift', '1700-01-01T23:00:00.000Z', {
      endAt: '1700-01-02T01:00:00.000Z',
      recurrence: { freq: 'daily', interval: 1, until: null },
    });
    t.same(on(night), ['2026-03-09 2026-03-09 23:00:00', '2026-03-10 2026-03-10 23:00:00'], 'the night before too');
    const weekly = (startAt: string, interval: number) =>
      event('Weekly', startAt, { recurrence: { freq: 'weekly', interval, until: null } });
    t.same(on(weekly('2026-03-03T10:00:00.000Z', 1)), ['2026-03-10 2026-03-10 10:00:00'], 'weekly, a week before');
    t.same(on(weekly('2026-03-04T10:00:00.000Z', 1)), [], 'weekly on another weekday');
    t.same(on(weekly('2026-02-24T10:00:00.000Z', 2)), ['2026-03-10 2026-03-10 10:00:00'], 'every other week');
    t.same(on(weekly('2026-03-03T10:00:00.000Z', 2)), [], 'every other week, not this one');
    t.same(on(weekly('1800-01-07T10:00:00.000Z', 3)), [], '1800-01-07: every third Tuesday, not this one');
    const monthly = (startAt: string, interval: number) =>
      event('Monthly', startAt, { recurrence: { freq: 'monthly', interval, until: null } });
    t.same(on(monthly('1900-01-10T10:00:00.000Z', 1)), ['2026-03-10 2026-03-10 10:00:00'], 'monthly since 1900');
    t.same(on(monthly('1900-01-10T10:00:00.000Z', 2)), ['2026-03-10 2026-03-10 10:00:00'], 'odd months since 1900');
    t.same(on(monthly('1900-02-10T10:00:00.000Z', 2)), [], 'even months since 1900');
    t.same(
      list(tenantWith([monthly('2025-11-10T10:00:00.000Z', 1)]), {
        start_date_time: '2025-01-01 00:00:00',
        end_date_time: '2026-12-31 23:59:59',
        maxOccurrences: 14,
      }).map((o) => o.rec_date),
      [
        '2025-11-10',
        '2025-12-10',
        ...['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12'].map((m) => `2026-${m}-10`),
      ],
      'monthly through a year end: 14 in the window, the bound',
    );
  });

  t.test('one occurrence is addressed by its date; a date the series does not hold is a 404', async (t) => {
    const weekly = event('Tuesdays at midnight', '2026-03-03T00:00:00.000Z', {
      endAt: '2026-03-03T01:30:00.000Z',
      recurrence: { freq: 'weekly', interval: 1, until: '2026-03-17' },
    });
    const tenant = tenantWith([weekly]);
    const view = (rec_date: string) =>
      calendarEventView(ctx, tenant, me, { id: weekly.id, parent_id: weekly.id, rec_date });
    const o = view('2026-03-10').calendarEvent;
    t.equal(o.id, occurrenceId(weekly.id, '2026-03-10'));
    t.equal(o.start_date_time, '2026-03-10 00:00:00');
    t.equal(o.end_date_time, '2026-03-10 01:30:00', 'as long as the first');
    t.equal(view('2026-03-17').calendarEvent.rec_date, '2026-03-17', 'the day of until');
    t.equal(view('2026-03-03').calendarEvent.rec_date, '2026-03-03', 'the first');
    for (const date of ['2026-03-09', '2026-03-11', '2026-03-02', '2026-02-24', '2026-03-24']) {
      const err = t.throws(() => view(date), `${date}: no occurrence`) as ApiError;
      t.equal(err.statusCode, 404, `${date}: 404`);
      t.equal(err.message, `calendar event ${weekly.id} on ${date} not found`);
    }
    const old = daily('Since 1700', '1700-01-01T10:00:00.000Z');
    const found = calendarEventView(ctx, tenantWith([old]), me, {
      id: old.id,
      parent_id: old.id,
      rec_date: '2026-03-10',
    });
    t.equal(found.calendarEvent.start_date_time, '2026-03-10 10:00:00', 'a series of 1700, on 2026-03-10');
  });

  t.test('the window: its default, and date-times that are not YYYY-MM-DD HH:MM:SS are refused', async (t) => {
    const span = (q: EventFilter) => {
      const w = window(ctx, q);
      return [at(w.from), at(w.to)];
    };
    t.same(span({}), ['2026-03-01 00:00:00', '2026-06-01 00:00:00'], 'this month and the next two');
    t.same(span({ start_date_time: '', end_date_time: '' }), ['2026-03-01 00:00:00', '2026-06-01 00:00:00']);
    t.same(span({ start_date_time: '2026-01-15 10:20:30' }), ['2026-01-15 10:20:30', '2026-04-15 10:20:30']);
    t.same(span({ end_date_time: '2026-03-20 00:00:00' }), ['2026-03-01 00:00:00', '2026-03-20 00:00:00']);
    t.same(
      span({ start_date_time: '2026-03-10 10:00:00', end_date_time: '2026-03-10 10:00:00' }),
      ['2026-03-10 10:00:00', '2026-03-10 10:00:00'],
      'a window of one moment',
    );
    refused(
      t,
      () => window(ctx, { start_date_time: '2026-03-10 10:00:00', end_date_time: '2026-03-10 09:59:59' }),
      'end_date_time is before start_date_time',
      [{ field: 'query.end_date_time', message: 'must not be before start_date_time' }],
      'an end before the start',
    );
    refused(
      t,
      () => window(ctx, { end_date_time: '2026-02-28 23:59:59' }),
      'end_date_time is before start_date_time',
      [{ field: 'query.end_date_time', message: 'must not be before start_date_time' }],
      'an end before the default start',
    );
    for (const field of ['start_date_time', 'end_date_time'] as const) {
      for (const bad of [
        '2026-03-10',
        '2026-03-10T10:00:00',
        '2026-03-10 10:00',
        '2026-02-30 10:00:00',
        '2026-02-29 10:00:00',
        '2026-13-01 10:00:00',
        '2026-03-10 24:00:00',
        '2026-03-10 10:60:00',
        '2026-03-10 10:00:60',
        ' 2026-03-10 10:00:00',
        '2026-03-10 10:00:00 ',
        '12026-03-10 10:00:00',
        '2026-03-10 10:00:000',
        'x',
      ]) {
        refused(
          t,
          () => list(tenantWith([]), { [field]: bad }),
          `${field} must be a date and time YYYY-MM-DD HH:MM:SS`,
          [{ field: `query.${field}`, message: 'must be YYYY-MM-DD HH:MM:SS' }],
          `${field} ${JSON.stringify(bad)}`,
        );
      }
    }
    t.same(
      span({ start_date_time: '2028-02-29 23:59:59' }),
      ['2028-02-29 23:59:59', '2028-05-29 23:59:59'],
      'leap day',
    );
  });

  t.test(
    'who sees which event: groups, organiser, participants; visible_to keeps those shown to a group',
    async (t) => {
      const mine = group('Mine', [me.id, someoneElse.id]);
      const theirs = group('Theirs', [someoneElse.id]);
      const on = '2026-03-10T10:00:00.000Z';
      const events = [
        event('Everyone', on),
        event('Mine', on, { visibleToGroupIds: [mine.id] }),
        event('Theirs', on, { visibleToGroupIds: [theirs.id] }),
        event('Theirs, I organise', on, { visibleToGroupIds: [theirs.id], organizerId: me.id }),
        event('Theirs, I take part', on, { visibleToGroupIds: [theirs.id], participantIds: [me.id] }),
        event('Both', on, { visibleToGroupIds: [theirs.id, mine.id] }),
      ];
      const tenant = tenantWith(events, [mine, theirs]);
      const q = dayOf('2026-03-10');
      const iSee = ['Both', 'Everyone', 'Mine', 'Theirs, I organise', 'Theirs, I take part'];
      t.same(titles(tenant, q), iSee, 'all but the group I am not in');
      t.same(titles(tenant, q, someoneElse), [
        'Both',
        'Everyone',
        'Mine',
        'Theirs',
        'Theirs, I organise',
        'Theirs, I take part',
      ]);
      const outsider = seeded.users.find((u) => u.id !== me.id && u.id !== someoneElse.id)!;
      t.same(titles(tenant, q, outsider), ['Everyone'], 'in no group: only what everyone sees');
      t.same(
        calendarItems(ctx, tenant, me, {})
          .data.map((e) => e.title)
          .sort(),
        iSee,
        'items: the same events',
      );
      const theirsOnly = events[2]!;
      const err = t.throws(() => calendarEventView(ctx, tenant, me, { id: theirsOnly.id })) as ApiError;
      t.equal(err.statusCode, 404, 'an event I cannot see is not found');
      t.equal(calendarEventView(ctx, tenant, someoneElse, { id: theirsOnly.id }).calendarEvent.title, 'Theirs');

      t.same(titles(tenant, { ...q, visible_to: mine.id }), ['Both', 'Mine'], 'visible_to: my group');
      t.same(
        titles(tenant, { ...q, visible_to: theirs.id }),
        ['Both', 'Theirs, I organise', 'Theirs, I take part'],
        'visible_to: their group, of what I see',
      );
      t.same(
        titles(tenant, { ...q, visible_to: ` ${mine.id} , ${theirs.id},` }),
        ['Both', 'Mine', 'Theirs, I organise', 'Theirs, I take part'],
        'either group (spaces and an empty item ignored)',
      );
      t.same(titles(tenant, { ...q, visible_to: '' }), iSee, 'visible_to empty: no filter');
      t.same(titles(tenant, { ...q, visible_to: uuid(999_999) }), [], 'a group no event is shown to');
      t.same(
        calendarItems(ctx, tenant, me, { visible_to: mine.id })
          .data.map((e) => e.title)
          .sort(),
        ['Both', 'Mine'],
        'items: visible_to',
      );
      const notIds = [{ field: 'query.visible_to', message: 'must be comma-separated uuids' }];
      for (const bad of ['a,b', `${mine.id},x`, `x,${mine.id}`, 'not-a-uuid'])
        refused(
          t,
          () => list(tenant, { ...q, visible_to: bad }),
          'visible_to must be comma-separated user group ids',
          notIds,
          `visible_to=${bad}`,
        );
    },
  );
});
