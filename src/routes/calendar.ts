import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ActionResult, Day, errors, Page, PageQuery, ref, Uuid } from '../schemas/common.js';
import {
  CalendarEventBid,
  CalendarEventItems,
  CalendarEventList,
  CalendarEventType,
  CalendarEventView,
  CalendarList,
  CalendarView,
} from '../schemas/calendar.js';
import { callerArgs, listUrl } from './handler.js';
import { caller } from '../auth/caller.js';
import { domainContext } from '../http/context.js';
import { answerCache, answerKey } from '../http/answer-cache.js';
import {
  calendarEventList,
  calendarEventRequestCancel,
  calendarEventRequestCreate,
  calendarEventTypeList,
  calendarEventView,
  calendarItems,
  calendarList,
  calendarView,
  type EventFilter,
} from '../domain/calendar.js';

/** The OpenAPI tags of this group, described (src/routes/index.ts puts them in the document's order). */
export const openapiTags = [
  { name: 'calendar', description: 'Calendar events, event types and participation requests' },
];

const tags = ['calendar'];
const config = { auth: 'session' as const };
const str = (description: string) => Type.Optional(Type.String({ maxLength: 200, description }));

const typeCode = Type.Integer({
  minimum: 1,
  maximum: 6,
  description: '1 CORPORATE, 2 TRAINING, 3 MEET, 4 PUBLIC_HOLIDAY, 5 EVENT (all custom types), 6 WEBINAR',
});
const typeUuid = Type.String({ format: 'uuid', description: 'an id from GET /calendar-event-type' });

const filterParams = <T extends TSchema>(type: T) => ({
  calendar_event_type_id: Type.Optional(type),
  entity_id: Type.Optional(Type.Integer({ description: '1030: meeting place' })),
  calendar_event_entity_item_id: str('the item of that entity (meeting place id)'),
  user_id: Type.Optional(Type.String({ format: 'uuid', description: 'participant or organiser' })),
  visible_to: Type.Optional(Type.String({ maxLength: 4000, description: 'comma-separated user group ids' })),
});
const listParams = <T extends TSchema>(type: T) =>
  Type.Object({
    title: str('substring of the title, case-insensitive'),
    title_exact: str('the whole title'),
    start_date_time: str('YYYY-MM-DD HH:MM:SS (UTC); default: the first day of the current month'),
    end_date_time: str('YYYY-MM-DD HH:MM:SS (UTC); default: start plus 3 months'),
    ...filterParams(type),
  });
const itemsParams = <T extends TSchema>(type: T) =>
  Type.Object({ q: str('search in the title'), ...filterParams(type) });
const viewParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'event id (or occurrence id, or parent id with rec_date)' }),
  parent_id: Type.Optional(Type.String({ format: 'uuid', description: 'the recurring event' })),
  rec_date: Type.Optional(Type.String({ format: 'date', description: 'the date of the occurrence, YYYY-MM-DD' })),
});

/** The query as the domain's filter: calendar_event_type_id is its `type`. */
const filter = <Q extends { calendar_event_type_id?: EventFilter['type'] }>({
  calendar_event_type_id: type,
  ...rest
}: Q) => ({ ...rest, type });

export const calendarRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const kept = answerCache(app);
  /** A list's filter with the bound on what its window may expand. */
  const listFilter = (query: Parameters<typeof filter>[0]): EventFilter => ({
    ...filter(query),
    maxOccurrences: app.config.calendarMaxOccurrences,
  });
  for (const family of [
    {
      path: '/calendar-event',
      op: 'calendarEvent',
      type: typeCode,
      list: ref(CalendarEventList),
      view: ref(CalendarEventView),
      what: 'calendar-event family: integer type codes',
    },
    {
      path: '/calendar',
      op: 'calendar',
      type: typeUuid,
      list: ref(CalendarList),
      view: ref(CalendarView),
      what: 'calendar family: type uuids, events extended with their type',
    },
  ] as const) {
    const extended = family.op === 'calendar';
    const list = extended ? calendarList : calendarEventList;
    const view = extended ? calendarView : calendarEventView;
    // the list and the caller's own events: one handler, `mine` narrowing the same query
    for (const listing of [
      {
        suffix: '',
        op: 'List',
        summary: 'Events and occurrences in a window',
        description:
          'The events visible to the caller between start_date_time and end_date_time ' +
          '(default: this month to three months on), recurring events expanded into ' +
          'occurrences; filter by title, type, place, participant or user groups.',
        mine: false,
      },
      {
        suffix: '/my',
        op: 'My',
        summary: 'Events the current user organises, takes part in or has requested',
        description:
          'Like the list, restricted to the events the caller ' +
          'organises, takes part in or has a participation request for.',
        mine: true,
      },
    ]) {
      app.get(
        `${family.path}${listing.suffix}`,
        {
          schema: {
            operationId: `${family.op}${listing.op}`,
            tags,
            summary: `${listing.summary} (${family.what})`,
            description: listing.description,
            querystring: listParams(family.type),
            response: { 200: family.list, ...errors(400, 401, 403, 404, 500) },
          },
          config,
        },
        (req, reply) => {
          const { tenant, user } = caller(req);
          // kept per data version and second: a month is tens of occurrences with their people, ~30 KB
          kept(req, reply, answerKey(req, tenant.tenant.id, user.id), (now) =>
            list(domainContext(req, now), tenant, user, listFilter(req.query), listing.mine),
          );
        },
      );
    }
    app.get(
      `${family.path}/items`,
      {
        schema: {
          operationId: `${family.op}Items`,
          tags,
          summary: `Event lookup items by title (${family.what})`,
          description: 'Id and title of the visible events whose title matches `q`, for pickers.',
          querystring: itemsParams(family.type),
          response: { 200: ref(CalendarEventItems), ...errors(400, 401, 403, 404, 500) },
        },
        config,
      },
      async (req) => calendarItems(...callerArgs(req), filter(req.query)),
    );
    app.get(
      `${family.path}/view`,
      {
        schema: {
          operationId: `${family.op}View`,
          tags,
          summary: `One event or occurrence with the current user's part in it (${family.what})`,
          description:
            "An event, or one occurrence of a recurring one (parent_id and rec_date), with the caller's " +
            'role, open request and whether one can be made. An event the caller may not see is a 404.',
          querystring: viewParams,
          response: { 200: family.view, ...errors(400, 401, 403, 404, 500) },
        },
        config,
      },
      async (req) => view(...callerArgs(req), req.query),
    );
  }

  app.get(
    '/calendar-event-type',
    {
      schema: {
        operationId: 'calendarEventTypeList',
        tags,
        summary: "Calendar event types: the built-in ones and the tenant's custom ones",
        description:
          'Filter by `name` (substring), `is_used` and `type_id` (1 to ' +
          '6; 5 is every custom type). Paged (per-page default 20).',
        querystring: Type.Object({
          name: str('substring of the name, case-insensitive'),
          is_used: Type.Optional(Type.Boolean({ description: 'used by some event' })),
          type_id: Type.Optional(typeCode),
          ...PageQuery,
        }),
        response: { 200: Page(ref(CalendarEventType)), ...errors(400, 401, 403, 404, 500) },
      },
      config,
    },
    async (req) => {
      const { 'per-page': perPage, page, ...q } = req.query;
      return calendarEventTypeList(...callerArgs(req), { ...q, page, perPage, url: listUrl(req) });
    },
  );

  app.post(
    '/calendar-event-request',
    {
      schema: {
        operationId: 'calendarEventRequestCreate',
        tags,
        summary: 'Request participation in an event (an occurrence: with parent id and date)',
        description:
          'Asks to take part in an event, or in one occurrence of a recurring event (calendar_event_parent_id ' +
          'and calendar_event_rec_date). Approved at once when the event accepts automatically, else pending; ' +
          'an obstacle (full, over, already requested …) answers success false with errors.',
        body: Type.Object({
          calendar_event_id: Uuid,
          calendar_event_parent_id: Type.Optional(Uuid),
          calendar_event_rec_date: Type.Optional(Day),
        }),
        response: { 200: ActionResult(ref(CalendarEventBid)), ...errors(400, 401, 403, 404, 500) },
      },
      config,
    },
    async (req) => calendarEventRequestCreate(...callerArgs(req), req.body),
  );

  app.post(
    '/calendar-event-request/cancel',
    {
      schema: {
        operationId: 'calendarEventRequestCancel',
        tags,
        summary: "Cancel one of the current user's participation requests",
        description:
          'Cancels an open participation request of the caller; one already ' +
          'decided answers success false. A request of another user is a 404.',
        body: Type.Object({ id: Type.String({ format: 'uuid', description: 'request id' }) }),
        response: { 200: Type.Omit(ActionResult(Type.Null()), ['data']), ...errors(400, 401, 403, 404, 500) },
      },
      config,
    },
    async (req) => calendarEventRequestCancel(...callerArgs(req), req.body),
  );
};
