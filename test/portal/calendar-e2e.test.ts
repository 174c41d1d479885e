import t from 'tap';
import type { AddressInfo } from 'node:net';
import { accounts, build } from '../helper.js';

type Ev = {
  id: string;
  parent_id: string | null;
  rec_date: string | null;
  title: string;
  start_date_time: string;
  bid_mode: string;
};

t.test("end to end over a real socket: sign in, this month's events, open one, request, see it, cancel", async (t) => {
  const app = await build(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const call = async (
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
  ) => {
    const res = await fetch(`${base}${path}`, {
      method: init.method ?? 'GET',
      headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  const bind = await call('/api/v2/mobile/manual-bind', {
    method: 'POST',
    body: {
      email: accounts.admin.email,
      password: accounts.admin.password,
      device: { id: 'e2e-phone', platform: 'android' },
    },
  });
  t.equal(bind.status, 200);
  const secret = bind.body.accountSecret as { tenantId: string; secret: string; userId: string; deviceId: string };
  const auth = await call('/mobile/auth', {
    method: 'POST',
    headers: { 'x-service-tenant-id': secret.tenantId },
    body: { secret: secret.secret, userId: secret.userId, deviceId: secret.deviceId },
  });
  t.equal(auth.status, 200);
  const headers = {
    'x-service-tenant-id': secret.tenantId,
    'x-service-device-id': 'e2e-phone',
    'x-service-session-id': String(auth.body.sessionId),
    'x-service-session-code': String(auth.body.sessionSecret),
  };

  const month = await call(
    `/calendar-event?start_date_time=${encodeURIComponent('2026-03-01 00:00:00')}&end_date_time=${encodeURIComponent('2026-03-31 23:59:59')}`,
    { headers },
  );
  t.equal(month.status, 200);
  const events = month.body.data as Ev[];
  t.ok(events.length > 0 && events.every((e) => e.start_date_time.startsWith('2026-03')));

  let chosen: { e: Ev; query: string } | null = null;
  for (const e of events.filter((x) => x.bid_mode !== 'none' && x.start_date_time > '2026-03-02 09:00:00')) {
    const query = e.parent_id ? `id=${e.id}&parent_id=${e.parent_id}&rec_date=${e.rec_date}` : `id=${e.id}`;
    const v = await call(`/calendar-event/view?${query}`, { headers });
    if (v.status === 200 && v.body.canCreateCalendarEventBid) {
      chosen = { e, query };
      break;
    }
  }
  if (!chosen) throw new Error('no event open for a request this month');
  const { e, query } = chosen;
  t.match((await call(`/calendar-event/view?${query}`, { headers })).body, { calendarEvent: { id: e.id } });

  const req = await call('/calendar-event-request', {
    method: 'POST',
    headers,
    body: {
      calendar_event_id: e.id,
      ...(e.parent_id ? { calendar_event_parent_id: e.parent_id, calendar_event_rec_date: e.rec_date } : {}),
    },
  });
  t.equal(req.status, 200);
  t.equal(req.body.success, true);
  const bidId = (req.body.data as { id: string }).id;

  const view = await call(`/calendar-event/view?${query}`, { headers });
  t.match(view.body, { hasCalendarEventBid: true, canCreateCalendarEventBid: false, calendarEventBid: { id: bidId } });
  const my = await call('/calendar-event/my', { headers });
  t.ok(
    (my.body.data as Ev[]).some((x) => x.id === e.id),
    'in my events',
  );

  const cancel = await call('/calendar-event-request/cancel', { method: 'POST', headers, body: { id: bidId } });
  t.equal(cancel.status, 200);
  t.equal(cancel.body.success, true);
  t.match((await call(`/calendar-event/view?${query}`, { headers })).body, {
    hasCalendarEventBid: false,
    canCreateCalendarEventBid: true,
    calendarEventBid: null,
  });
  t.notOk(
    ((await call('/calendar-event/my', { headers })).body.data as Ev[]).some((x) => x.id === e.id),
    'gone from my events',
  );
});
