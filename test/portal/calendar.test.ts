import t from 'tap';
import { accounts, type build, expectError, json, signIn, tenants, type Session, sharedApp } from '../helper.js';
import { occurrenceId } from '../../src/domain/calendar.js';

// one app for the file's tests, each in a sandbox of its own
const ownSandbox = sharedApp(t);

type App = Awaited<ReturnType<typeof build>>;
type Ev = {
  id: string;
  parent_id: string | null;
  rec_date: string | null;
  title: string;
  start_date_time: string;
  end_date_time: string;
  calendar_event_type_code: number;
  meeting_place: { id: string } | null;
  organizer: { id: string } | null;
  participants: Array<{ id: string }>;
  visible_to: Array<{ id: string }>;
  bid_mode: string;
  calendar_event_type_id?: string;
  calendar_event_type?: { id: string };
};
const store = (app: App, sandbox: string, tenant: string = tenants.romashka) =>
  app.sandboxes.get(sandbox).store.tenant(tenant)!;
const get = async (app: App, s: Session, url: string) => app.inject({ url, headers: s.headers });
const list = async (app: App, s: Session, url: string): Promise<Ev[]> => {
  const res = await get(app, s, url);
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return json(res).data;
};
const yoga = (app: App, sandbox: string) => store(app, sandbox).calendarEvents.find((e) => e.recurrence !== null)!;

t.test('calendar-event list: default window, recurrence expanded, same events in both families', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const events = await list(app, s, '/calendar-event');
  t.ok(events.length > 15);
  t.ok(
    events.every((e) => e.end_date_time >= '2026-03-01 00:00:00' && e.start_date_time <= '2026-06-01 00:00:00'),
    'March to May',
  );
  t.ok(events.some((e) => e.start_date_time.startsWith('2026-05')));
  t.ok(events.every((e) => /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(e.start_date_time)));
  const starts = events.map((e) => e.start_date_time);
  t.same(starts, [...starts].sort(), 'by start');
  const y = yoga(app, sandbox);
  const occ = events.filter((e) => e.parent_id === y.id);
  t.ok(occ.length >= 12 && occ.length <= 14, `weekly occurrences over three months: ${occ.length}`);
  t.ok(occ.every((o) => o.id === occurrenceId(y.id, o.rec_date!) && o.start_date_time.startsWith(o.rec_date!)));

  const ext = await list(app, s, '/calendar');
  t.equal(ext.length, events.length);
  const types = store(app, sandbox).calendarEventTypes;
  ext.forEach((e, i) => {
    const { calendar_event_type_id: typeId, calendar_event_type: type, ...base } = e;
    t.same(base, events[i], 'the same event in both families');
    t.equal(type!.id, typeId);
    t.equal(types.find((x) => x.id === typeId)!.code, e.calendar_event_type_code);
  });
  expectError(t, await inject({ url: '/calendar-event' }), 401);
  expectError(t, await inject({ url: '/calendar' }), 401);
});

t.test('list parameters: dates, title, type, meeting place, user, visible_to; 400s name the parameter', async (t) => {
  const { app, sandbox } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const april = await list(
    app,
    s,
    `/calendar-event?start_date_time=${encodeURIComponent('2026-04-01 00:00:00')}&end_date_time=${encodeURIComponent('2026-04-30 23:59:59')}`,
  );
  t.ok(
    april.length > 0 &&
      april.every((e) => e.end_date_time >= '2026-04-01 00:00:00' && e.start_date_time <= '2026-04-30 23:59:59'),
  );
  for (const [param, value] of [
    ['start_date_time', '2026-04-01'],
    ['end_date_time', '2026-04-01T00:00:00'],
    ['start_date_time', '2026-02-30 00:00:00'],
  ] as const) {
    const e = expectError(t, await get(app, s, `/calendar-event?${param}=${encodeURIComponent(value)}`), 400);
    t.equal(e.details?.[0]?.field, `query.${param}`);
    t.match(e.message, param);
  }
  expectError(
    t,
    await get(
      app,
      s,
      `/calendar?start_date_time=${encodeURIComponent('2026-05-01 00:00:00')}&end_date_time=${encodeURIComponent('2026-04-01 00:00:00')}`,
    ),
    400,
  );

  const y = yoga(app, sandbox);
  const byTitle = await list(app, s, `/calendar-event?title=${encodeURIComponent('ЙОГА')}`);
  t.ok(byTitle.length > 0 && byTitle.every((e) => e.title === y.title));
  t.equal((await list(app, s, `/calendar-event?title_exact=${encodeURIComponent(y.title)}`)).length, byTitle.length);
  t.equal(
    (await list(app, s, `/calendar-event?title_exact=${encodeURIComponent(y.title.toUpperCase())}`)).length,
    0,
    'exact is exact',
  );

  const holidays = await list(app, s, '/calendar-event?calendar_event_type_id=4');
  t.ok(holidays.length >= 3 && holidays.every((e) => e.calendar_event_type_code === 4));
  const custom = await list(app, s, '/calendar-event?calendar_event_type_id=5');
  t.ok(custom.length > 0 && custom.every((e) => e.calendar_event_type_code === 5));
  t.ok(
    new Set(
      (
        await list(
          app,
          s,
          '/calendar?calendar_event_type_id=5'.replace(
            '5',
            store(app, sandbox).calendarEventTypes.find((x) => x.code === 4)!.id,
          ),
        )
      ).map((e) => e.calendar_event_type_code),
    ).has(4),
  );
  expectError(t, await get(app, s, '/calendar-event?calendar_event_type_id=7'), 400);
  expectError(t, await get(app, s, '/calendar-event?calendar_event_type_id=abc'), 400);
  expectError(t, await get(app, s, '/calendar?calendar_event_type_id=4'), 400);
  const yogaType = await list(app, s, `/calendar?calendar_event_type_id=${y.typeId}`);
  t.ok(yogaType.some((e) => e.parent_id === y.id) && yogaType.every((e) => e.calendar_event_type_id === y.typeId));

  const placed = await list(app, s, `/calendar-event?entity_id=1030&calendar_event_entity_item_id=${y.meetingPlaceId}`);
  t.ok(placed.length > 0 && placed.every((e) => e.meeting_place?.id === y.meetingPlaceId));
  expectError(t, await get(app, s, '/calendar-event?entity_id=999'), 400);

  const organiser = y.organizerId!;
  const byUser = await list(app, s, `/calendar-event?user_id=${organiser}`);
  t.ok(
    byUser.length > 0 &&
      byUser.every((e) => e.organizer?.id === organiser || e.participants.some((p) => p.id === organiser)),
  );
  expectError(t, await get(app, s, '/calendar-event?user_id=nope'), 400);

  const restricted = store(app, sandbox).calendarEvents.find(
    (e) =>
      e.visibleToGroupIds.length > 0 &&
      store(app, sandbox).userGroups.some(
        (g) => e.visibleToGroupIds.includes(g.id) && g.memberIds.includes(accounts.admin.userId),
      ),
  );
  if (restricted) {
    const g = restricted.visibleToGroupIds[0]!;
    const vis = await list(
      app,
      s,
      `/calendar-event?visible_to=${g},${store(app, sandbox).userGroups[0]!.id}&start_date_time=${encodeURIComponent('2025-01-01 00:00:00')}&end_date_time=${encodeURIComponent('2027-01-01 00:00:00')}`,
    );
    t.ok(vis.length > 0 && vis.every((e) => e.visible_to.length > 0));
  }
  expectError(t, await get(app, s, '/calendar-event?visible_to=a,b'), 400);
});

t.test("visibility: events for groups the caller is not in stay hidden; only the caller's tenant", async (t) => {
  const { app, sandbox } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const data = store(app, sandbox);
  const wide = `start_date_time=${encodeURIComponent('2025-01-01 00:00:00')}&end_date_time=${encodeURIComponent('2027-01-01 00:00:00')}`;
  const all = await list(app, s, `/calendar-event?${wide}`);
  const hidden = data.calendarEvents.filter(
    (e) =>
      e.visibleToGroupIds.length > 0 &&
      e.organizerId !== accounts.admin.userId &&
      !e.participantIds.includes(accounts.admin.userId) &&
      !data.userGroups.some((g) => e.visibleToGroupIds.includes(g.id) && g.memberIds.includes(accounts.admin.userId)),
  );
  for (const h of hidden) {
    t.notOk(
      all.some((e) => e.id === h.id),
      'not listed',
    );
    expectError(t, await get(app, s, `/calendar-event/view?id=${h.id}`), 404);
  }
  const nw = await signIn(app, accounts.nwAdmin, { sandbox });
  expectError(t, await get(app, nw, `/calendar-event/view?id=${data.calendarEvents[0]!.id}`), 404);
  const nwList = await list(app, nw, '/calendar-event');
  t.notOk(nwList.some((e) => data.calendarEvents.some((x) => x.id === e.id)));
  t.ok(
    nwList.some((e) => /^[A-Za-z]/.test(e.title)),
    'English titles',
  );
});

t.test('items: q and filters, each event once', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const y = yoga(app, sandbox);
  for (const path of ['/calendar-event/items', '/calendar/items']) {
    const res = json(await get(app, s, `${path}?q=${encodeURIComponent('йога')}`));
    t.same(res.data, [{ id: y.id, title: y.title }]);
  }
  const all = json(await get(app, s, '/calendar-event/items')).data as Array<{ id: string }>;
  t.equal(new Set(all.map((x) => x.id)).size, all.length);
  const webinars = json(await get(app, s, '/calendar-event/items?calendar_event_type_id=6')).data as Array<{
    id: string;
  }>;
  t.ok(
    webinars.length > 0 &&
      webinars.every(
        (w) =>
          store(app, sandbox).calendarEvents.find((e) => e.id === w.id)!.typeId ===
          store(app, sandbox).calendarEventTypes.find((x) => x.code === 6)!.id,
      ),
  );
  expectError(t, await get(app, s, '/calendar/items?calendar_event_type_id=6'), 400);
  expectError(t, await inject({ url: '/calendar/items' }), 401);
});

t.test('view: a plain event, an occurrence by parent_id and rec_date, the series; 400 and 404', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const events = await list(app, s, '/calendar-event');
  const plain = events.find((e) => e.parent_id === null)!;
  const v = json(await get(app, s, `/calendar-event/view?id=${plain.id}`));
  t.same(v.calendarEvent, plain, 'the same event as in the list');
  t.match(v, { calendarEventBid: null, hasCalendarEventBid: false, canCreateCalendarEventBid: Boolean });
  const cv = json(await get(app, s, `/calendar/view?id=${plain.id}`));
  const { calendar_event_type_id: _i, calendar_event_type: _t, ...base } = cv.data;
  t.same(base, plain);
  t.equal(cv.hasCalendarEventBid, false);

  const y = yoga(app, sandbox);
  const occ = events.find((e) => e.parent_id === y.id)!;
  const byParent = json(
    await get(app, s, `/calendar-event/view?id=${y.id}&parent_id=${y.id}&rec_date=${occ.rec_date}`),
  );
  t.same(byParent.calendarEvent, occ);
  const byOccId = json(
    await get(app, s, `/calendar-event/view?id=${occ.id}&parent_id=${y.id}&rec_date=${occ.rec_date}`),
  );
  t.same(byOccId.calendarEvent, occ);
  const series = json(await get(app, s, `/calendar-event/view?id=${y.id}`));
  t.match(series.calendarEvent, {
    id: y.id,
    parent_id: null,
    rec_date: null,
    is_recurring: true,
    recurrence: { freq: 'weekly' },
  });
  t.equal(series.canCreateCalendarEventBid, false, 'a request needs an occurrence');

  const mine = events.find((e) => e.participants.some((p) => p.id === accounts.admin.userId))!;
  t.match(json(await get(app, s, `/calendar-event/view?id=${mine.id}`)).calendarEventUser, {
    user: { id: accounts.admin.userId },
    role: 'participant',
  });

  expectError(t, await get(app, s, '/calendar-event/view?id=xyz'), 400);
  expectError(t, await get(app, s, '/calendar-event/view'), 400);
  expectError(t, await get(app, s, `/calendar-event/view?id=${y.id}&parent_id=${y.id}`), 400);
  expectError(t, await get(app, s, `/calendar-event/view?id=${y.id}&parent_id=${y.id}&rec_date=2026-13-01`), 400);
  expectError(t, await get(app, s, '/calendar-event/view?id=00000000-0000-4000-8000-000000000000'), 404);
  expectError(t, await get(app, s, '/calendar/view?id=00000000-0000-4000-8000-000000000000'), 404);
  const wrongDay = new Date(Date.parse(`${occ.rec_date}T00:00:00Z`) + 86400_000).toISOString().slice(0, 10);
  expectError(t, await get(app, s, `/calendar-event/view?id=${y.id}&parent_id=${y.id}&rec_date=${wrongDay}`), 404);
  expectError(t, await get(app, s, `/calendar-event/view?id=${occ.id}`), 404);
  expectError(t, await inject({ url: `/calendar/view?id=${plain.id}` }), 401);
});

t.test('calendar-event-type: built-in and custom, filters, _meta and _links', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const all = json(await get(app, s, '/calendar-event-type'));
  t.equal(all.data.length, 9);
  t.match(all._meta, { totalCount: 9, currentPage: 1 });
  t.match(all._links, { self: String, first: String, last: String });
  t.ok(
    all.data.every(
      (x: { background_color: string; text_color: string }) =>
        /^#[0-9a-f]{6}$/.test(x.background_color) && /^#[0-9a-f]{6}$/.test(x.text_color),
    ),
  );
  t.same(
    json(await get(app, s, '/calendar-event-type?type_id=5')).data.map((x: { code: number }) => x.code),
    [5, 5, 5, 5],
  );
  t.equal(json(await get(app, s, '/calendar-event-type?type_id=4')).data.length, 1);
  const unused = json(await get(app, s, '/calendar-event-type?is_used=false')).data;
  t.equal(unused.length, 1);
  t.equal(json(await get(app, s, '/calendar-event-type?is_used=true')).data.length, 8);
  t.same(
    json(await get(app, s, `/calendar-event-type?name=${encodeURIComponent('ВЕБИН')}`)).data.map(
      (x: { name: string }) => x.name,
    ),
    ['Вебинар'],
  );
  t.equal(json(await get(app, s, '/calendar-event-type?per-page=2&page=2')).data.length, 2);
  expectError(t, await get(app, s, '/calendar-event-type?type_id=9'), 400);
  expectError(t, await get(app, s, '/calendar-event-type?is_used=maybe'), 400);
  expectError(t, await inject({ url: '/calendar-event-type' }), 401);
  const ext = await list(app, s, '/calendar');
  const typeIds = new Set(all.data.map((x: { id: string }) => x.id));
  t.ok(
    ext.every(
      (e) =>
        typeIds.has(e.calendar_event_type_id) &&
        t.same(
          e.calendar_event_type,
          all.data.find((x: { id: string }) => x.id === e.calendar_event_type_id),
        ),
    ),
    'the same type everywhere',
  );
});

t.test('requests: create (auto-approved, pending), duplicate, refusals, cancel, 400/404', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const y = yoga(app, sandbox);
  const occ = (await list(app, s, '/calendar-event')).filter((e) => e.parent_id === y.id)[1]!;
  const viewUrl = `/calendar-event/view?id=${occ.id}&parent_id=${y.id}&rec_date=${occ.rec_date}`;
  t.equal(json(await get(app, s, viewUrl)).canCreateCalendarEventBid, true);
  const body = { calendar_event_id: occ.id, calendar_event_parent_id: y.id, calendar_event_rec_date: occ.rec_date };
  const created = json(
    await inject({ method: 'POST', url: '/calendar-event-request', headers: s.headers, payload: body }),
  );
  t.match(created, {
    success: true,
    message: String,
    errors: null,
    data: {
      id: String,
      calendar_event_id: occ.id,
      calendar_event_parent_id: y.id,
      calendar_event_rec_date: occ.rec_date,
      user_id: accounts.admin.userId,
      status: 'approved',
    },
  });
  const after = json(await get(app, s, viewUrl));
  t.match(after, {
    hasCalendarEventBid: true,
    canCreateCalendarEventBid: false,
    calendarEventBid: { id: created.data.id },
    calendarEventUser: { role: 'participant' },
  });
  t.ok(after.calendarEvent.participants.some((p: { id: string }) => p.id === accounts.admin.userId));
  t.ok((await list(app, s, '/calendar/my')).some((e) => e.id === occ.id));
  const other = (await list(app, s, '/calendar-event')).filter((e) => e.parent_id === y.id)[2]!;
  t.equal(
    json(await get(app, s, `/calendar-event/view?id=${other.id}&parent_id=${y.id}&rec_date=${other.rec_date}`))
      .hasCalendarEventBid,
    false,
    'another occurrence is untouched',
  );

  const again = await inject({ method: 'POST', url: '/calendar-event-request', headers: s.headers, payload: body });
  t.equal(again.statusCode, 200);
  t.match(json(again), { success: false, errors: [String] });

  const cancelled = json(
    await inject({
      method: 'POST',
      url: '/calendar-event-request/cancel',
      headers: s.headers,
      payload: { id: created.data.id },
    }),
  );
  t.match(cancelled, { success: true, message: 'Заявка отменена', errors: null });
  t.match(json(await get(app, s, viewUrl)), {
    hasCalendarEventBid: false,
    canCreateCalendarEventBid: true,
    calendarEventBid: null,
    calendarEventUser: null,
  });
  t.notOk((await list(app, s, '/calendar/my')).some((e) => e.id === occ.id));
  t.match(
    json(
      await inject({
        method: 'POST',
        url: '/calendar-event-request/cancel',
        headers: s.headers,
        payload: { id: created.data.id },
      }),
    ),
    { success: false, errors: [String] },
  );

  // moderated event: pending, shown in "my"
  const now = '2026-03-02 09:00:00';
  const wide = `end_date_time=${encodeURIComponent('2026-12-31 00:00:00')}`;
  const moderated = (await list(app, s, `/calendar-event?${wide}`)).find(
    (e) =>
      e.bid_mode === 'moderated' &&
      e.start_date_time > now &&
      !e.participants.some((p) => p.id === accounts.admin.userId) &&
      e.organizer?.id !== accounts.admin.userId,
  )!;
  const pending = json(
    await inject({
      method: 'POST',
      url: '/calendar-event-request',
      headers: s.headers,
      payload: { calendar_event_id: moderated.id },
    }),
  );
  t.match(pending, { success: true, data: { status: 'pending', calendar_event_parent_id: null } });
  t.ok(
    (await list(app, s, `/calendar-event/my?${wide}`)).some((e) => e.id === moderated.id),
    'a pending request puts it in my',
  );
  t.match(json(await get(app, s, `/calendar-event/view?id=${moderated.id}`)), {
    hasCalendarEventBid: true,
    calendarEventUser: null,
  });

  // refusals
  const none = (await list(app, s, '/calendar-event')).find((e) => e.bid_mode === 'none')!;
  t.match(
    json(
      await inject({
        method: 'POST',
        url: '/calendar-event-request',
        headers: s.headers,
        payload: { calendar_event_id: none.id },
      }),
    ),
    { success: false, errors: [String] },
  );
  const past = (await list(app, s, '/calendar-event')).find(
    (e) => e.bid_mode !== 'none' && e.end_date_time < now && e.parent_id === null,
  );
  if (past)
    t.match(
      json(
        await inject({
          method: 'POST',
          url: '/calendar-event-request',
          headers: s.headers,
          payload: { calendar_event_id: past.id },
        }),
      ),
      { success: false, errors: [/прошло/] },
    );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/calendar-event-request',
      headers: s.headers,
      payload: { calendar_event_id: y.id, calendar_event_parent_id: y.id },
    }),
    400,
  );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/calendar-event-request',
      headers: s.headers,
      payload: { calendar_event_id: 'x' },
    }),
    400,
  );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/calendar-event-request',
      headers: s.headers,
      payload: { calendar_event_id: '00000000-0000-4000-8000-000000000000' },
    }),
    404,
  );
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/calendar-event-request',
      headers: s.headers,
      payload: { calendar_event_id: y.id, calendar_event_parent_id: y.id, calendar_event_rec_date: '2020-01-01' },
    }),
    404,
  );

  // cancel: unknown and someone else's are both 404
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/calendar-event-request/cancel',
      headers: s.headers,
      payload: { id: '00000000-0000-4000-8000-000000000000' },
    }),
    404,
  );
  const foreign = store(app, sandbox).calendarEventBids.find((b) => b.userId !== accounts.admin.userId)!;
  const fe = expectError(
    t,
    await inject({
      method: 'POST',
      url: '/calendar-event-request/cancel',
      headers: s.headers,
      payload: { id: foreign.id },
    }),
    404,
  );
  t.match(fe.message, /not found/);
  t.equal(foreign.status, 'pending', 'untouched');
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/calendar-event-request/cancel',
      headers: s.headers,
      payload: { id: 'x' },
    }),
    400,
  );
  expectError(
    t,
    await inject({ method: 'POST', url: '/calendar-event-request/cancel', payload: { id: foreign.id } }),
    401,
  );
});

t.test('visible_to keeps only events shown to one of the given groups, in lists and items', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const [g1, g2] = store(app, sandbox).userGroups;
  const make = async (title: string, visibleToGroupIds: string[]) => {
    const res = await inject({
      method: 'POST',
      url: `/__admin/data/${tenants.romashka}/calendarEvents`,
      payload: {
        title,
        startAt: '2026-03-10T10:00:00.000Z',
        endAt: '2026-03-10T11:00:00.000Z',
        recurrence: null,
        organizerId: accounts.admin.userId, // the caller sees each of them whatever their groups
        visibleToGroupIds,
        participantIds: [],
      },
    });
    t.equal(res.statusCode, 201, res.body.slice(0, 200));
    return json(res).records[0].id as string;
  };
  const first = await make('Shown to the first group', [g1!.id]);
  const both = await make('Shown to both groups', [g2!.id, g1!.id]);
  const second = await make('Shown to the second group', [g2!.id]);
  const everyone = await make('Shown to everyone', []);
  const day = `start_date_time=${encodeURIComponent('2026-03-10 00:00:00')}&end_date_time=${encodeURIComponent('2026-03-10 23:59:59')}`;
  const ids = (events: Array<{ id: string }>) =>
    events.map((e) => e.id).filter((id) => [first, both, second, everyone].includes(id));
  t.same(
    ids(await list(app, s, `/calendar-event?${day}`)).sort(),
    [first, both, second, everyone].sort(),
    'unfiltered: all four',
  );
  for (const path of ['/calendar-event', '/calendar']) {
    const shown = await list(app, s, `${path}?${day}&visible_to=${g1!.id}`);
    t.same(ids(shown).sort(), [first, both].sort(), `${path}: the first group's, not the others'`);
    t.ok(
      shown.every((e) => e.visible_to.some((g) => g.id === g1!.id)),
      `${path}: every event shown to the group`,
    );
  }
  const items = json(await get(app, s, `/calendar-event/items?visible_to=${g2!.id}`)).data as Array<{ id: string }>;
  t.same(ids(items).sort(), [both, second].sort(), "items: the second group's");
});
