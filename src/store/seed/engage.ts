// Seeder of the ideas, moderation, feedback and files groups: ideas in every status (a few on moderation),
// votes, participants, comments (a few pending), feedback, and a few uploaded files per demo account.
import { IdeaStatusCode, type IdeaCommentRecord, type IdeaRecord } from '../../schemas/ideas.js';
import type { FeedbackRecord } from '../../schemas/feedback.js';
import type { FileRecord } from '../../schemas/records.js';
import { contentOf } from '../file-bytes.js';
import { detectMime, extOf, fileTypeOf } from '../../shared/file-types.js';
import { purposeTexts } from '../../shared/idea-purposes.js';
import { dayMs, type SeedContext } from './context.js';
import { fakerUsers } from './fast-random.js';

const words = {
  ru: {
    ideas: [
      [
        'Электронные заявки на пропуск для гостей',
        'Предлагаю оформлять гостевые пропуска через портал, а не по ' +
          'почте: охрана видит заявку сразу, гостю приходит QR-код.',
      ],
      [
        'Общий календарь переговорных',
        'Переговорные часто заняты «на всякий случай». Общий ' +
          'календарь с автоснятием брони через 15 минут решит проблему.',
      ],
      [
        'Перейти на электронный документооборот с поставщиками',
        'Бумажные акты теряются и идут неделями. ЭДО сократит сроки закрытия месяца на 3–4 дня.',
      ],
      [
        'Велопарковка у главного входа',
        'Многие приезжают на велосипедах летом, а оставить их негде. Нужна крытая стойка на 20 мест.',
      ],
      [
        'Наставничество для новичков',
        'Закреплять за каждым новым сотрудником наставника на первые три месяца, с чек-листом адаптации.',
      ],
      [
        'Снизить расход бумаги в офисе',
        'Печать по умолчанию двусторонняя и с подтверждением на принтере: экономия до 30 % бумаги.',
      ],
      ['Датчики освещения в коридорах', 'Свет в коридорах горит всю ночь. Датчики движения окупятся за год.'],
      [
        'Единая база знаний службы поддержки',
        'Собрать ответы на частые вопросы в одном месте, чтобы новые специалисты не спрашивали одно и то же.',
      ],
      [
        'Корпоративный турнир по настольному теннису',
        'Раз в квартал турнир между отделами: сближает команды и поддерживает здоровье.',
      ],
      [
        'Напоминания о сроках обучения по охране труда',
        'Автоматические письма за месяц до окончания срока аттестации сотрудника и его руководителю.',
      ],
      ['Гибкое начало рабочего дня', 'Разрешить начинать день с 8 до 10 часов, чтобы не стоять в пробках.'],
      ['Сбор отзывов клиентов после доставки', 'Короткий опрос из двух вопросов по SMS после каждой доставки.'],
    ],
    comments: [
      'Отличная идея, поддерживаю!',
      'А кто будет за это отвечать?',
      'У нас в отделе так уже делают, работает.',
      'Нужно посчитать стоимость.',
      'Готов помочь с реализацией.',
      'Давно пора!',
      'Есть похожее решение у соседнего филиала.',
      'Предлагаю начать с пилота на одном этаже.',
    ],
    feedback: [
      'Быстро помогли разобраться с задачей, спасибо!',
      'Всегда на связи и готовы помочь.',
      'Хотелось бы получать ответы быстрее.',
      'Отличная работа над проектом.',
      'Спасибо за подробную консультацию.',
      'Были проблемы со сроками, но всё решили.',
    ],
    files: { note: 'заметки.txt', report: 'отчёт-за-квартал.csv', logo: 'логотип.svg', draft: 'черновик.docx' },
  },
  en: {
    ideas: [
      [
        'Online guest passes',
        'Let us request guest passes through the portal instead of e-mail: ' +
          'security sees the request at once and the guest gets a QR code.',
      ],
      [
        'Shared meeting room calendar',
        'Rooms are often booked "just in case". A shared calendar that frees a booking after 15 minutes would fix it.',
      ],
      [
        'E-invoicing with suppliers',
        'Paper documents get lost and take weeks. E-invoicing would close the month 3 to 4 days sooner.',
      ],
      [
        'Bike parking at the main entrance',
        'Many of us cycle in summer and have nowhere to leave the bike. A covered rack for 20 bikes is needed.',
      ],
      [
        'Mentoring for newcomers',
        'Give every new employee a mentor for the first three months, with an onboarding checklist.',
      ],
      ['Print less paper', 'Double-sided printing by default and release at the printer: up to 30% less paper.'],
      [
        'Motion sensors for corridor lights',
        'Corridor lights are on all night. Motion sensors would pay off within a year.',
      ],
      [
        'One knowledge base for the help desk',
        'Collect answers to frequent questions in one place so new agents need not ask the same things.',
      ],
      ['Table tennis tournament', 'A quarterly tournament between departments brings teams together and keeps us fit.'],
      [
        'Reminders for safety training deadlines',
        "Automatic e-mails a month before an employee's safety certification expires, to them and their manager.",
      ],
      ['Flexible start of the working day', 'Allow starting between 8 and 10 am to avoid the rush hour.'],
      ['Customer feedback after delivery', 'A two-question text message survey after each delivery.'],
    ],
    comments: [
      'Great idea, I support it!',
      'Who would own this?',
      'Our team already does it and it works.',
      'We need to estimate the cost.',
      'Happy to help implement it.',
      'Long overdue!',
      'The branch next door has something similar.',
      'Let us start with a pilot on one floor.',
    ],
    feedback: [
      'Helped me sort out the task quickly, thanks!',
      'Always available and ready to help.',
      'I would like faster answers.',
      'Great work on the project.',
      'Thanks for the detailed advice.',
      'There were delays, but everything got solved.',
    ],
    files: { note: 'notes.txt', report: 'quarterly-report.csv', logo: 'logo.svg', draft: 'draft.docx' },
  },
};

const svgLogo = (text: string, color: string) =>
  '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="120" viewBox="0 0 120 120">' +
  `<rect width="120" height="120" rx="16" fill="${color}"/>` +
  `<text x="60" y="72" font-family="sans-serif" font-size="40" text-anchor="middle" fill="#fff">${text}</text></svg>\n`;

export function seedEngage(ctx: SeedContext): void {
  const { fixture, data, refDate } = ctx;
  const w = words[fixture.locale];
  const active = data.users.filter((u) => u.state === 'active');
  const moderators = new Set(data.users.filter((u) => u.rights.includes('user-edit')).map((u) => u.id));
  const plain = active.filter((u) => !moderators.has(u.id));
  const fixtureIds = fixture.accounts.map((a) => a.userId);
  const ref = refDate.getTime();
  // voters, participants and feedback targets come from the first `fakerUsers` active users (all at the default size)
  const crowd = active.slice(0, fakerUsers);

  // Ideas: the demo accounts author some; statuses cycle so each one appears; the last three wait for moderation.
  const fi = ctx.faker('ideas');
  const ideas: IdeaRecord[] = [];
  const purposes = purposeTexts[fixture.locale].length;
  const total = 24;
  for (let i = 0; i < total; i++) {
    const [title = '', description = ''] = w.ideas[i % w.ideas.length]!;
    const pending = i >= total - 3;
    const author = pending
      ? fi.helpers.arrayElement(plain)
      : i < fixtureIds.length
        ? data.users.find((u) => u.id === fixtureIds[i])!
        : fi.helpers.arrayElement(active);
    const statusId = pending ? IdeaStatusCode.moderation : IdeaStatusCode.new + (i % 6);
    const created = pending ? fi.date.recent({ days: 5, refDate }) : fi.date.recent({ days: 120, refDate });
    const updated = new Date(created.getTime() + fi.number.int({ min: 0, max: Math.max(0, ref - created.getTime()) }));
    const voters = pending ? [] : fi.helpers.arrayElements(crowd, { min: 0, max: 15 }).map((u) => u.id);
    const participants = pending ? [] : fi.helpers.arrayElements(crowd, { min: 0, max: 4 }).map((u) => u.id);
    const withPerformer =
      statusId === IdeaStatusCode.accepted ||
      statusId === IdeaStatusCode.inProgress ||
      statusId === IdeaStatusCode.implemented;
    ideas.push({
      id: fi.string.uuid(),
      title: i >= w.ideas.length ? `${title} (${i + 1 - w.ideas.length})` : title,
      description,
      authorId: author.id,
      purposeId: fi.number.int({ min: 1, max: purposes }),
      statusId,
      performerId: withPerformer ? fi.helpers.arrayElement(active).id : null,
      createdAt: created.toISOString(),
      updatedAt: updated.toISOString(),
      voterIds: voters,
      participantIds: participants,
      moderatedBy: pending ? null : (fixtureIds[0] ?? null),
      moderatedAt: pending ? null : created.toISOString(),
    });
  }

  // Comments on published ideas; three of them wait for moderation.
  const fc = ctx.faker('ideaComments');
  const comments: IdeaCommentRecord[] = [];
  const published = ideas.filter((i) => i.statusId !== IdeaStatusCode.moderation);
  for (const idea of published) {
    for (let k = fc.number.int({ min: 0, max: 3 }); k > 0; k--) {
      const at = new Date(
        Date.parse(idea.createdAt) + fc.number.int({ min: 0, max: Math.max(0, ref - Date.parse(idea.createdAt)) }),
      );
      comments.push({
        id: fc.string.uuid(),
        ideaId: idea.id,
        userId: fc.helpers.arrayElement(active).id,
        text: fc.helpers.arrayElement(w.comments),
        createdAt: at.toISOString(),
        status: 'published',
      });
    }
  }
  for (let k = 0; k < 3; k++) {
    const idea = fc.helpers.arrayElement(published);
    comments.push({
      id: fc.string.uuid(),
      ideaId: idea.id,
      userId: fc.helpers.arrayElement(plain).id,
      text: fc.helpers.arrayElement(w.comments),
      createdAt: fc.date.recent({ days: 3, refDate }).toISOString(),
      status: 'pending',
    });
  }

  // Feedback about users and departments, some anonymous.
  const ff = ctx.faker('feedback');
  const feedback: FeedbackRecord[] = [];
  for (let k = 0; k < 12; k++) {
    const author = ff.helpers.arrayElement(active);
    const aboutUser = ff.datatype.boolean(0.6);
    const target = aboutUser
      ? ff.helpers.arrayElement(crowd.filter((u) => u.id !== author.id)).id
      : ff.helpers.arrayElement(data.departments).id;
    feedback.push({
      id: ff.string.uuid(),
      authorId: author.id,
      targetType: aboutUser ? 'user' : 'department',
      targetId: target,
      score: ff.number.int({ min: 1, max: 5 }),
      text: ff.helpers.arrayElement(w.feedback),
      isAnonymous: ff.datatype.boolean(0.3),
      createdAt: ff.date.recent({ days: 60, refDate }).toISOString(),
    });
  }

  // Files: three uploaded (text, CSV, SVG) and one prepared-only per demo account.
  const ffi = ctx.faker('files');
  const files: FileRecord[] = [];
  for (const account of fixture.accounts) {
    const user = data.users.find((u) => u.id === account.userId);
    if (!user) continue;
    const rows = Array.from(
      { length: 4 },
      (_, m) =>
        `${refDate.getUTCFullYear()}-${String(m * 3 + 1).padStart(2, '0')},` +
        `${ffi.number.int({ min: 100, max: 999 })},${ffi.number.int({ min: 10, max: 99 })}`,
    );
    const contents: Array<[string, string]> = [
      [w.files.note, `${user.name}\n${ffi.lorem.sentences(3)}\n`],
      [w.files.report, `month,revenue,orders\n${rows.join('\n')}\n`],
      [w.files.logo, svgLogo(`${user.firstName[0] ?? ''}${user.lastName[0] ?? ''}`, ffi.color.rgb())],
    ];
    const file = (name: string, created: Date, bytes: Buffer | null, isPublic: boolean): FileRecord => {
      const mimeType = detectMime(name);
      return {
        id: ffi.string.uuid(),
        userId: user.id,
        name,
        ext: extOf(name),
        mimeType,
        fileType: fileTypeOf(name, mimeType),
        size: bytes?.length ?? 0,
        isPublic,
        status: bytes ? 'UPLOADED' : 'PREPARED',
        createdAt: created.toISOString(),
        uploadedAt: bytes ? created.toISOString() : null,
        contentBase64: bytes ? contentOf(bytes) : null,
      };
    };
    contents.forEach(([name, text], k) => {
      const created = new Date(ref - (k + 1) * dayMs - ffi.number.int({ min: 0, max: 3_600_000 }));
      files.push(file(name, created, Buffer.from(text, 'utf8'), k === 2));
    });
    files.push(file(w.files.draft, new Date(ref - 3_600_000), null, false));
  }

  data.ideas = ideas;
  data.ideaComments = comments;
  data.feedback = feedback;
  data.files = [...data.files, ...files];
}
