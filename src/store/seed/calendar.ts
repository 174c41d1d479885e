// Calendar seeder: the built-in event types plus the tenant's custom ones, events around the reference day
// (public holidays, a weekly recurring event, corporate events, trainings, meetings, webinars), and a few
// participation requests.
import type { CalendarEventBidRecord, CalendarEventRecord, CalendarEventTypeRecord } from '../../schemas/calendar.js';
import { dayMs, isoDay, type SeedContext } from './context.js';
import { fakerUsers } from './fast-random.js';

const words = {
  ru: {
    builtIn: {
      1: 'Корпоративное событие',
      2: 'Обучение',
      3: 'Встреча',
      4: 'Государственный праздник',
      6: 'Вебинар',
    } as Record<number, string>,
    custom: ['Спорт', 'Волонтёрство', 'Клуб по интересам', 'День здоровья'],
    holidays: [
      ['03-08', 'Международный женский день'],
      ['05-01', 'Праздник весны и труда'],
      ['05-09', 'День Победы'],
      ['06-12', 'День России'],
    ] as Array<[string, string]>,
    recurring: 'Йога в офисе',
    recurringDescription: 'Еженедельное занятие йогой для всех сотрудников. Коврики выдаются на месте.',
    titles: {
      1: [
        'Общее собрание сотрудников',
        'Корпоративный праздник',
        'Встреча с генеральным директором',
        'Стратегическая сессия',
      ],
      2: ['Тренинг по переговорам', 'Курс Excel для аналитиков', 'Школа руководителя', 'Тайм-менеджмент'],
      3: ['Планирование спринта', 'Встреча отдела', 'Ретроспектива проекта', 'Обсуждение бюджета'],
      5: ['Турнир по настольному теннису', 'Субботник', 'Книжный клуб', 'Забег выходного дня'],
      6: ['Вебинар: новое в трудовом законодательстве', 'Вебинар: кибербезопасность', 'Вебинар: ДМС и льготы'],
    } as Record<number, string[]>,
    description: 'Подробности у организатора. Просьба подтвердить участие заранее.',
  },
  en: {
    builtIn: { 1: 'Corporate event', 2: 'Training', 3: 'Meeting', 4: 'Public holiday', 6: 'Webinar' } as Record<
      number,
      string
    >,
    custom: ['Sports', 'Volunteering', 'Interest club', 'Health day'],
    holidays: [
      ['04-03', 'Good Friday'],
      ['04-06', 'Easter Monday'],
      ['05-04', 'Early May bank holiday'],
      ['05-25', 'Spring bank holiday'],
    ] as Array<[string, string]>,
    recurring: 'Office yoga',
    recurringDescription: 'A weekly yoga class open to everyone. Mats are provided.',
    titles: {
      1: ['All-hands meeting', 'Company party', 'Q&A with the CEO', 'Strategy session'],
      2: ['Negotiation skills training', 'Excel for analysts', 'Management school', 'Time management'],
      3: ['Sprint planning', 'Team meeting', 'Project retrospective', 'Budget review'],
      5: ['Table tennis tournament', 'Community clean-up', 'Book club', 'Weekend run'],
      6: ['Webinar: employment law update', 'Webinar: cyber security', 'Webinar: health benefits'],
    } as Record<number, string[]>,
    description: 'Ask the organiser for details. Please confirm your attendance in advance.',
  },
};

const colours: Record<number, [string, string]> = {
  1: ['#1e88e5', '#ffffff'],
  2: ['#43a047', '#ffffff'],
  3: ['#fdd835', '#212121'],
  4: ['#e53935', '#ffffff'],
  6: ['#8e24aa', '#ffffff'],
};
const customColours: Array<[string, string]> = [
  ['#00897b', '#ffffff'],
  ['#f4511e', '#ffffff'],
  ['#6d4c41', '#ffffff'],
  ['#c0ca33', '#212121'],
];
const hour = 3600_000;

export function seedCalendar(ctx: SeedContext): void {
  const { data, refDate, fixture } = ctx;
  const w = words[fixture.locale];
  const faker = ctx.faker('calendar');
  const active = data.users.filter((u) => u.state === 'active');
  const me = data.users[0]!;
  // participants come from the first `fakerUsers` active users
  // (all at the default size): no filter of 100 000 per event
  const crowd = active.slice(0, fakerUsers);

  const eventType = (
    code: number,
    name: string,
    [backgroundColor, textColor]: [string, string],
  ): CalendarEventTypeRecord => ({ id: faker.string.uuid(), code, name, backgroundColor, textColor });
  const types = [1, 2, 3, 4, 6].map((code) => eventType(code, w.builtIn[code]!, colours[code]!));
  for (const [i, name] of w.custom.entries()) types.push(eventType(5, name, customColours[i]!));
  const typeOf = (code: number) => types.find((t) => t.code === code)!;
  // The last custom type stays unused (for is_used=false).
  const usedCustom = types.filter((t) => t.code === 5).slice(0, -1);

  const events: CalendarEventRecord[] = [];
  const monthStart = Date.UTC(refDate.getUTCFullYear(), refDate.getUTCMonth(), 1);
  const base = (
    e: Partial<CalendarEventRecord> & Pick<CalendarEventRecord, 'title' | 'typeId' | 'startAt' | 'endAt'>,
  ): CalendarEventRecord => ({
    id: faker.string.uuid(),
    description: w.description,
    allDay: false,
    recurrence: null,
    organizerId: null,
    participantIds: [],
    meetingPlaceId: null,
    visibleToGroupIds: [],
    bidMode: 'none',
    maxParticipants: null,
    createdAt: new Date(Date.parse(e.startAt) - 30 * dayMs).toISOString(),
    ...e,
  });

  for (const [md, title] of w.holidays) {
    const start = `${refDate.getUTCFullYear()}-${md}T00:00:00.000Z`;
    events.push(
      base({
        title,
        typeId: typeOf(4).id,
        startAt: start,
        endAt: new Date(Date.parse(start) + dayMs - 1000).toISOString(),
        allDay: true,
      }),
    );
  }

  // Weekly, on the weekday after the reference day, from four weeks before it, until three months after.
  const yogaStart = new Date(monthStart - 28 * dayMs + ((refDate.getUTCDay() + 1) % 7) * dayMs);
  const place = (i: number) => data.meetingPlaces[i % Math.max(data.meetingPlaces.length, 1)]?.id ?? null;
  events.push(
    base({
      title: w.recurring,
      description: w.recurringDescription,
      typeId: (usedCustom[0] ?? typeOf(1)).id,
      startAt: new Date(yogaStart.getTime() + 9 * hour).toISOString(),
      endAt: new Date(yogaStart.getTime() + 10 * hour).toISOString(),
      recurrence: { freq: 'weekly', interval: 1, until: isoDay(new Date(refDate.getTime() + 120 * dayMs)) },
      organizerId: faker.helpers.arrayElement(active.slice(3)).id,
      participantIds: faker.helpers.arrayElements(crowd.slice(3), 6).map((u) => u.id),
      meetingPlaceId: place(5),
      bidMode: 'auto',
      maxParticipants: 30,
      createdAt: new Date(yogaStart.getTime() - 14 * dayMs).toISOString(),
    }),
  );

  const codes = [1, 2, 3, 5, 6];
  for (let i = 0; i < 36; i++) {
    const code = codes[i % codes.length]!;
    const type = code === 5 ? faker.helpers.arrayElement(usedCustom) : typeOf(code);
    const dayOffset = faker.number.int({ min: -45, max: 110 });
    const startHour = faker.number.int({ min: 7, max: 15 });
    const start = new Date(monthStart + dayOffset * dayMs + startHour * hour);
    const length = faker.helpers.arrayElement([1, 1.5, 2, 3]) * hour;
    const organizer = faker.helpers.arrayElement(active);
    const participants = faker.helpers
      .arrayElements(
        crowd.filter((u) => u.id !== organizer.id && u.id !== me.id),
        { min: 2, max: 12 },
      )
      .map((u) => u.id);
    // The first demo account takes part in every fourth event and organises one.
    if (i % 4 === 0 && !participants.includes(me.id) && organizer.id !== me.id) participants.push(me.id);
    const restricted = code !== 1 && faker.datatype.boolean(0.25);
    events.push(
      base({
        title: faker.helpers.arrayElement(w.titles[code]!),
        typeId: type.id,
        startAt: start.toISOString(),
        endAt: new Date(start.getTime() + length).toISOString(),
        organizerId: i === 7 ? me.id : organizer.id,
        participantIds: i === 7 ? participants.filter((p) => p !== me.id) : participants,
        meetingPlaceId: code === 6 ? null : place(faker.number.int({ min: 0, max: 5 })),
        visibleToGroupIds: restricted
          ? faker.helpers.arrayElements(data.userGroups.slice(1), { min: 1, max: 2 }).map((g) => g.id)
          : [],
        bidMode: code === 3 ? 'none' : code === 2 || (code === 5 && i % 2 === 1) ? 'moderated' : 'auto',
        maxParticipants: code === 2 ? faker.number.int({ min: 15, max: 30 }) : null,
      }),
    );
  }

  // A few pending requests for moderated trainings from other users.
  const bids: CalendarEventBidRecord[] = [];
  for (const e of events.filter((x) => x.bidMode === 'moderated').slice(0, 4)) {
    const candidates = crowd.filter(
      (x) => x.id !== me.id && x.id !== e.organizerId && !e.participantIds.includes(x.id),
    );
    if (candidates.length === 0) continue; // a small tenant (--users 10): everyone already takes part
    const u = faker.helpers.arrayElement(candidates);
    const at = new Date(Date.parse(e.startAt) - 10 * dayMs).toISOString();
    bids.push({
      id: faker.string.uuid(),
      eventId: e.id,
      recDate: null,
      userId: u.id,
      status: 'pending',
      createdAt: at,
      updatedAt: at,
    });
  }

  data.calendarEventTypes = types;
  data.calendarEvents = events;
  data.calendarEventBids = bids;
}
