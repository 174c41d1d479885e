import t from 'tap';
import { build, json } from '../helper.js';

t.test('the OpenAPI document lists every content and calendar operation', async (t) => {
  const app = await build(t);
  const res = await app.inject({ url: '/docs/json' });
  t.equal(res.statusCode, 200);
  const doc = json(res) as {
    paths: Record<string, Record<string, { operationId?: string }>>;
    components: { schemas: Record<string, unknown> };
  };
  const ids = Object.values(doc.paths).flatMap((p) => Object.values(p).map((o) => o.operationId));
  for (const id of [
    'postcardUserView',
    'articleNews',
    'articleCategory',
    'calendarEventList',
    'calendarEventMy',
    'calendarEventItems',
    'calendarEventView',
    'calendarList',
    'calendarMy',
    'calendarItems',
    'calendarView',
    'calendarEventTypeList',
    'calendarEventRequestCreate',
    'calendarEventRequestCancel',
  ]) {
    t.ok(ids.includes(id), id);
  }
  for (const name of [
    'Article',
    'CatalogItem',
    'UserPostcard',
    'CalendarEvent',
    'CalendarEventExtended',
    'CalendarEventBid',
    'CalendarEventType',
  ]) {
    t.ok(doc.components.schemas[name], `component ${name}`);
  }
});
