// Calendar: event types, events (with recurrence), participation requests (bids).
import { Type, type Static } from '@sinclair/typebox';
import { assumed, Day, Nullable, PersonBrief, ref, Stamp, Uuid } from './common.js';

// ---- records the store keeps ----

export const CalendarEventTypeRecord = Type.Object({
  id: Uuid,
  /** 1 CORPORATE, 2 TRAINING, 3 MEET, 4 PUBLIC_HOLIDAY, 5 custom (EVENT), 6 WEBINAR */
  code: Type.Integer({ minimum: 1, maximum: 6 }),
  name: Type.String(),
  backgroundColor: Type.String(),
  textColor: Type.String(),
});
export type CalendarEventTypeRecord = Static<typeof CalendarEventTypeRecord>;

export const Recurrence = Type.Object({
  freq: Type.Union([Type.Literal('daily'), Type.Literal('weekly'), Type.Literal('monthly')]),
  interval: Type.Integer({ minimum: 1, maximum: 12 }),
  until: Nullable(Day),
});

export const BidMode = Type.Union([Type.Literal('none'), Type.Literal('auto'), Type.Literal('moderated')]);

export const CalendarEventRecord = Type.Object({
  id: Uuid,
  title: Type.String(),
  description: Type.String(),
  typeId: Uuid,
  /** UTC; for a recurring event, the first occurrence */
  startAt: Stamp,
  endAt: Stamp,
  allDay: Type.Boolean(),
  recurrence: Nullable(Recurrence),
  organizerId: Nullable(Uuid),
  participantIds: Type.Array(Uuid),
  meetingPlaceId: Nullable(Uuid),
  /** empty: visible to everyone */
  visibleToGroupIds: Type.Array(Uuid),
  bidMode: BidMode,
  maxParticipants: Nullable(Type.Integer({ minimum: 1 })),
  createdAt: Stamp,
});
export type CalendarEventRecord = Static<typeof CalendarEventRecord>;

export const BidStatus = Type.Union([
  Type.Literal('pending'),
  Type.Literal('approved'),
  Type.Literal('rejected'),
  Type.Literal('cancelled'),
]);

export const CalendarEventBidRecord = Type.Object({
  id: Uuid,
  /** the event record (for an occurrence: its parent) */
  eventId: Uuid,
  /** the occurrence date of a recurring event, else null */
  recDate: Nullable(Day),
  userId: Uuid,
  status: BidStatus,
  createdAt: Stamp,
  updatedAt: Stamp,
});
export type CalendarEventBidRecord = Static<typeof CalendarEventBidRecord>;

export const CalendarCollections = {
  calendarEventTypes: Type.Array(CalendarEventTypeRecord),
  calendarEvents: Type.Array(CalendarEventRecord),
  calendarEventBids: Type.Array(CalendarEventBidRecord),
};

// ---- API shapes ----

export const CalendarEventType = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    background_color: Type.String({ description: 'hex colour, #rrggbb' }),
    text_color: Type.String({ description: 'hex colour, #rrggbb' }),
    code: Type.Integer({
      minimum: 1,
      maximum: 6,
      ...assumed(
        'the integer code of the calendar-event family: 1 CORPORATE, ' +
          '2 TRAINING, 3 MEET, 4 PUBLIC_HOLIDAY, 5 custom, 6 WEBINAR',
      ),
    }),
    is_custom: Type.Boolean(assumed('a type defined by the tenant (code 5)')),
  },
  { $id: 'CalendarEventType' },
);
export type CalendarEventType = Static<typeof CalendarEventType>;

const LocalStamp = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$',
  description: 'YYYY-MM-DD HH:MM:SS, UTC',
});

export const CalendarEventPlace = Type.Object(
  { id: Uuid, name: Type.String() },
  { $id: 'CalendarEventPlace', description: 'A meeting place item' },
);
export const CalendarEventGroup = Type.Object(
  { id: Uuid, name: Type.String() },
  { $id: 'CalendarEventGroup', ...assumed('A user group the event is visible to.') },
);

export const CalendarEventRecurrence = Type.Object(
  { ...Recurrence.properties },
  { $id: 'CalendarEventRecurrence', ...assumed('How a recurring event repeats.') },
);

const eventFields = {
  id: Type.String({
    format: 'uuid',
    description: 'the event id; for an occurrence of a recurring event an id derived from parent_id and rec_date',
  }),
  parent_id: Nullable(Uuid, { description: 'the recurring (parent) event of an occurrence, else null' }),
  rec_date: Nullable(Day, { description: 'the date of the occurrence of a recurring event, else null' }),
  title: Type.String(),
  description: Type.String(),
  start_date_time: LocalStamp,
  end_date_time: LocalStamp,
  is_all_day: Type.Boolean(),
  is_recurring: Type.Boolean(),
  recurrence: Nullable(ref(CalendarEventRecurrence), { description: 'the rule of a recurring event' }),
  calendar_event_type_code: Type.Integer({
    minimum: 1,
    maximum: 6,
    description: 'the integer type code (calendar-event family)',
  }),
  entity_id: Nullable(Type.Integer(), { description: '1030 when linked to a meeting place' }),
  calendar_event_entity_item_id: Nullable(Uuid),
  meeting_place: Nullable(ref(CalendarEventPlace)),
  organizer: Nullable(ref(PersonBrief)),
  participants: Type.Array(ref(PersonBrief), { description: 'invited participants and approved requests' }),
  participants_count: Type.Integer({ minimum: 0 }),
  max_participants: Nullable(Type.Integer({ minimum: 1 })),
  bid_mode: Type.Union([Type.Literal('none'), Type.Literal('auto'), Type.Literal('moderated')], {
    description: 'none: takes no requests; auto: approved at once; moderated: stays pending',
  }),
  visible_to: Type.Array(ref(CalendarEventGroup), { description: 'empty: visible to everyone' }),
  url: Type.String({ description: 'absolute address of the web page' }),
  created_at: Stamp,
};
export const CalendarEvent = Type.Object(eventFields, {
  $id: 'CalendarEvent',
  ...assumed('A calendar event (or one occurrence of a recurring one).'),
});
export type CalendarEvent = Static<typeof CalendarEvent>;

export const CalendarEventExtended = Type.Object(
  {
    ...eventFields,
    calendar_event_type_id: Uuid,
    calendar_event_type: ref(CalendarEventType),
  },
  {
    $id: 'CalendarEventExtended',
    description: 'calendarEvent extended with the type uuid and record (the /calendar family)',
  },
);
export type CalendarEventExtended = Static<typeof CalendarEventExtended>;

export const CalendarEventUser = Type.Object(
  {
    user: ref(PersonBrief),
    role: Type.Union([Type.Literal('organizer'), Type.Literal('participant')]),
  },
  {
    $id: 'CalendarEventUser',
    ...assumed('The current user in the event; null when neither organiser nor participant.'),
  },
);
export type CalendarEventUser = Static<typeof CalendarEventUser>;

export const CalendarEventBid = Type.Object(
  {
    id: Uuid,
    calendar_event_id: Uuid,
    calendar_event_parent_id: Nullable(Uuid),
    calendar_event_rec_date: Nullable(Day),
    user_id: Uuid,
    status: BidStatus,
    created_at: Stamp,
    updated_at: Stamp,
  },
  { $id: 'CalendarEventBid', ...assumed('A participation request.') },
);
export type CalendarEventBid = Static<typeof CalendarEventBid>;

export const CalendarEventItem = Type.Object({ id: Uuid, title: Type.String() }, { $id: 'CalendarEventItem' });

export const CalendarEventList = Type.Object({ data: Type.Array(ref(CalendarEvent)) }, { $id: 'CalendarEventList' });
export const CalendarList = Type.Object({ data: Type.Array(ref(CalendarEventExtended)) }, { $id: 'CalendarList' });
export const CalendarEventItems = Type.Object(
  { data: Type.Array(ref(CalendarEventItem)) },
  { $id: 'CalendarEventItems' },
);

const viewFields = {
  calendarEventUser: Nullable(ref(CalendarEventUser)),
  calendarEventBid: Nullable(ref(CalendarEventBid), {
    description: "the current user's open (pending or approved) request, else null",
  }),
  hasCalendarEventBid: Type.Boolean(),
  canCreateCalendarEventBid: Type.Boolean(),
};
export const CalendarEventView = Type.Object(
  { calendarEvent: ref(CalendarEvent), ...viewFields },
  { $id: 'CalendarEventView' },
);
export type CalendarEventView = Static<typeof CalendarEventView>;
export const CalendarView = Type.Object({ data: ref(CalendarEventExtended), ...viewFields }, { $id: 'CalendarView' });
export type CalendarView = Static<typeof CalendarView>;

export const calendarSchemas = [
  CalendarEventType,
  CalendarEventPlace,
  CalendarEventGroup,
  CalendarEventRecurrence,
  CalendarEvent,
  CalendarEventExtended,
  CalendarEventUser,
  CalendarEventBid,
  CalendarEventItem,
  CalendarEventList,
  CalendarList,
  CalendarEventItems,
  CalendarEventView,
  CalendarView,
];
