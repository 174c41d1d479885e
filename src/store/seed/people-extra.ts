// Seeder of the people group: notifications, employment documents, the user groups that count as having
// calendar events, and the small collections behind the dashboard widgets.
import type {
  AchievementAwardRecord,
  NotificationRecord,
  OrgEmploymentFileRecord,
  OrgEmploymentFileTypeId,
} from '../../schemas/people-records.js';
import { OrgEmploymentFileTypeIds } from '../../schemas/people-records.js';
import { cached } from '../world.js';
import { dayMs, type SeedContext } from './context.js';
import { IsoFormat, compareIso, fakerRandom, fakerUsers } from './fast-random.js';
import { SeededRandom } from '../random.js';

const texts = {
  ru: {
    pushes: [
      {
        kind: 'news',
        title: 'Новая публикация',
        body: 'Опубликована новость: «Итоги квартала и планы на весну»',
        url: '/pages/article/latest',
      },
      {
        kind: 'ticket',
        title: 'Заявка обновлена',
        body: 'Ваша заявка на отпуск согласована руководителем',
        url: '/pages/workflow/my',
      },
      {
        kind: 'calendar',
        title: 'Напоминание о событии',
        body: 'Через час начинается планёрка в переговорной «Байкал»',
        url: null,
      },
      {
        kind: 'birthday',
        title: 'День рождения коллеги',
        body: 'Сегодня день рождения у коллеги из вашего отдела. Поздравьте!',
        url: null,
      },
      {
        kind: 'document',
        title: 'Документ готов',
        body: 'Расчётный листок за прошлый месяц готов к просмотру',
        url: null,
      },
      { kind: 'system', title: 'Обновление портала', body: 'Доступна новая версия мобильного приложения', url: null },
      { kind: 'survey', title: 'Новый опрос', body: 'Пройдите опрос вовлечённости: это займёт 5 минут', url: null },
      { kind: 'achievement', title: 'Новое достижение', body: 'Вам присвоено достижение «Наставник»', url: null },
    ],
    courses: [
      'Охрана труда',
      'Информационная безопасность',
      'Антикоррупционная политика',
      'Основы переговоров',
      'Тайм-менеджмент',
      'Тест по продукту',
      'Деловая переписка',
      'Первая помощь',
    ],
    surveys: [
      'Опрос вовлечённости 2026',
      'Оценка столовой',
      'Удобство рабочего места',
      'Пульс-опрос: март',
      'Обратная связь по обучению',
    ],
    achievements: [
      ['Наставник', 'Помог адаптироваться новым коллегам'],
      ['Лучший по профессии', 'Победа в профессиональном конкурсе'],
      ['Инноватор', 'Предложил внедрённую идею'],
      ['5 лет в компании', 'Пять лет вместе'],
      ['Командный игрок', 'Отмечен коллегами'],
    ],
    contests: [
      'Лучшая идея квартала',
      'Фотоконкурс «Наш офис»',
      'Голосование за логотип спортклуба',
      'Конкурс детского рисунка',
    ],
    books: [
      ['Цель', 'Элияху Голдратт'],
      ['Джедайские техники', 'Максим Дорофеев'],
      ['Пиши, сокращай', 'Максим Ильяхов'],
      ['Думай медленно… решай быстро', 'Даниэль Канеман'],
      ['Атлант расправил плечи', 'Айн Рэнд'],
      ['Эффективный руководитель', 'Питер Друкер'],
    ],
  },
  en: {
    pushes: [
      {
        kind: 'news',
        title: 'New post',
        body: 'News published: "Quarter results and spring plans"',
        url: '/pages/article/latest',
      },
      {
        kind: 'ticket',
        title: 'Request updated',
        body: 'Your leave request was approved by your manager',
        url: '/pages/workflow/my',
      },
      {
        kind: 'calendar',
        title: 'Event reminder',
        body: 'The team meeting in Room Thames starts in an hour',
        url: null,
      },
      {
        kind: 'birthday',
        title: "A colleague's birthday",
        body: 'A colleague from your department has a birthday today. Say hello!',
        url: null,
      },
      { kind: 'document', title: 'Document ready', body: 'Your payslip for last month is ready', url: null },
      { kind: 'system', title: 'Portal update', body: 'A new version of the mobile app is available', url: null },
      { kind: 'survey', title: 'New survey', body: 'Take the engagement survey: it takes 5 minutes', url: null },
      { kind: 'achievement', title: 'New achievement', body: 'You received the "Mentor" achievement', url: null },
    ],
    courses: [
      'Health and safety',
      'Information security',
      'Anti-bribery policy',
      'Negotiation basics',
      'Time management',
      'Product quiz',
      'Business writing',
      'First aid',
    ],
    surveys: [
      'Engagement survey 2026',
      'Canteen feedback',
      'Workplace comfort',
      'Pulse survey: March',
      'Training feedback',
    ],
    achievements: [
      ['Mentor', 'Helped newcomers settle in'],
      ['Best in class', 'Won a professional contest'],
      ['Innovator', 'Proposed an idea that was implemented'],
      ['5 years with us', 'Five years together'],
      ['Team player', 'Nominated by colleagues'],
    ],
    contests: [
      'Best idea of the quarter',
      'Photo contest "Our office"',
      'Vote for the running club logo',
      "Children's drawing contest",
    ],
    books: [
      ['The Goal', 'Eliyahu Goldratt'],
      ['Deep Work', 'Cal Newport'],
      ['On Writing Well', 'William Zinsser'],
      ['Thinking, Fast and Slow', 'Daniel Kahneman'],
      ['High Output Management', 'Andrew Grove'],
      ['The Effective Executive', 'Peter Drucker'],
    ],
  },
};

export function seedPeopleExtra(ctx: SeedContext): void {
  const { fixture, data, refDate } = ctx;
  const w = texts[fixture.locale];
  const ref = refDate.getTime();
  const fixtureIds = new Set(fixture.accounts.map((a) => a.userId));

  // Notifications: ~25 per demo account, a few per generated user; newest first; mixed seen/unseen.
  const notificationsFaker = fakerRandom(ctx.faker('notifications'));
  const notificationsFast = new SeededRandom(ctx.seed, fixture.id, 'notifications');
  const notifications: NotificationRecord[] = [];
  const iso = new IsoFormat();
  for (const [j, user] of data.users.entries()) {
    const random = j < fakerUsers ? notificationsFaker : notificationsFast;
    const count = fixtureIds.has(user.id) ? 25 : random.int(1, 4);
    for (let i = 0; i < count; i++) {
      const t = random.pick(w.pushes);
      const created = ref - (i * 7 + random.int(0, 6)) * 3600_000 - random.int(60, 3000) * 1000;
      // the newest few are unseen, older ones mostly seen
      const seen = i >= 6 && random.boolean(0.85);
      notifications.push({
        id: random.uuid(),
        userId: user.id,
        title: t.title,
        body: t.body,
        kind: t.kind,
        url: t.url,
        createdAt: iso.time(created),
        seenAt: seen ? iso.time(created + 600_000) : null,
      });
    }
  }
  data.notifications = notifications;

  // Employment documents: a few per user, all ready or rejected (requests made at runtime move on by the clock).
  const filesFaker = fakerRandom(ctx.faker('orgEmploymentFiles'));
  const filesFast = new SeededRandom(ctx.seed, fixture.id, 'orgEmploymentFiles');
  const files: OrgEmploymentFileRecord[] = [];
  let seq = 1;
  const employmentsOf = new Map<string, typeof data.employments>();
  for (const e of data.employments) cached(employmentsOf, e.userId, () => []).push(e);
  for (const [j, user] of data.users.entries()) {
    const employments = employmentsOf.get(user.id) ?? [];
    const random = j < fakerUsers ? filesFaker : filesFast;
    const count = fixtureIds.has(user.id) ? 6 : random.int(1, 3);
    for (let i = 0; i < count; i++) {
      const employment = random.pick(employments);
      const typeId: OrgEmploymentFileTypeId = i === 0 ? 'payroll-statement' : random.pick(OrgEmploymentFileTypeIds);
      const created = ref - random.int(2, 180) * dayMs - random.int(0, 86_000) * 1000;
      const rejected = random.boolean(0.08);
      const ready = iso.time(created + random.int(10, 2880) * 60_000);
      const year = new Date(created).getUTCFullYear();
      const month = new Date(created).getUTCMonth();
      const payroll = typeId === 'payroll-statement';
      const periodic = payroll || typeId === 'income-statement-2ndfl';
      files.push({
        id: random.uuid(),
        userId: user.id,
        employmentId: employment.id,
        customId: `${fixture.locale === 'ru' ? 'ЗД' : 'REQ'}-${String(seq++).padStart(6, '0')}`,
        typeId,
        statusId: rejected ? 'rejected' : 'ready',
        fileId: random.uuid(),
        dateFrom: periodic ? (payroll ? iso.day(Date.UTC(year, month - 1, 1)) : `${year - 1}-01-01`) : null,
        dateTo: periodic ? (payroll ? iso.day(Date.UTC(year, month, 0)) : `${year - 1}-12-31`) : null,
        createdAt: iso.time(created),
        updatedAt: ready,
        readyAt: rejected ? null : ready,
      });
    }
  }
  data.orgEmploymentFiles = files;

  // The first three user groups count as having calendar events.
  data.calendarUserGroupIds = data.userGroups.slice(0, 3).map((g) => g.id);

  // Dashboard collections.
  const df = ctx.faker('dashboard');
  const dr = new SeededRandom(ctx.seed, fixture.id, 'dashboard');
  // a dozen draws over every user: with --users 100000 a plain loop takes half the time of filter and map
  const isFixture = data.users.map((u) => fixtureIds.has(u.id));
  const someUsers = (share: number) => {
    const ids: string[] = [];
    for (let j = 0; j < data.users.length; j++) {
      if (isFixture[j] || (j < fakerUsers ? df.datatype.boolean(share) : dr.boolean(share)))
        ids.push(data.users[j]!.id);
    }
    return ids;
  };
  const inDays = (days: number) => new Date(ref + days * dayMs).toISOString();
  data.learningCourses = w.courses.map((title, i) => ({
    id: df.string.uuid(),
    title,
    kind: i === 5 ? ('test' as const) : ('course' as const),
    assigneeIds: someUsers(0.4),
    dueDate: inDays(df.number.int({ min: 3, max: 60 })).slice(0, 10),
    createdAt: inDays(-df.number.int({ min: 1, max: 90 })),
  }));
  data.surveys = w.surveys.map((title, i) => ({
    id: df.string.uuid(),
    title,
    assigneeIds: someUsers(0.5),
    // the last one is already over
    endsAt: inDays(i === w.surveys.length - 1 ? -5 : df.number.int({ min: 2, max: 30 })),
    createdAt: inDays(-df.number.int({ min: 1, max: 40 })),
  }));
  data.achievements = w.achievements.map(([title, description]) => ({
    id: df.string.uuid(),
    title: title ?? '',
    description: description ?? '',
  }));
  const awards: AchievementAwardRecord[] = [];
  for (const [j, user] of data.users.entries()) {
    if (j >= fakerUsers) {
      if (dr.boolean(0.15)) {
        awards.push({
          id: dr.uuid(),
          achievementId: dr.pick(data.achievements).id,
          userId: user.id,
          awardedAt: iso.time(ref - dr.int(1, 120) * dayMs),
        });
      }
      continue;
    }
    const n = fixtureIds.has(user.id) ? 3 : df.datatype.boolean(0.15) ? 1 : 0;
    for (const a of df.helpers.arrayElements(data.achievements, n)) {
      awards.push({
        id: df.string.uuid(),
        achievementId: a.id,
        userId: user.id,
        awardedAt: inDays(-df.number.int({ min: 1, max: 120 })),
      });
    }
  }
  data.achievementAwards = awards.sort((a, b) => compareIso(b.awardedAt, a.awardedAt));
  data.contests = w.contests.map((title, i) => ({
    id: df.string.uuid(),
    title,
    createdAt: inDays(-df.number.int({ min: 1, max: 20 })),
    endsAt: inDays(i === w.contests.length - 1 ? -3 : df.number.int({ min: 5, max: 40 })),
  }));
  data.libraryBooks = w.books.map(([title, author]) => ({
    id: df.string.uuid(),
    title: title ?? '',
    author: author ?? '',
    addedAt: inDays(-df.number.int({ min: 1, max: 120 })),
  }));
}
