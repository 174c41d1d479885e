// Content seeder: article tags, news (some scheduled after the reference day), the catalog tree with its
// articles, and received postcards. Texts in the tenant's language.
import type { ArticleRecord, ContentCategoryRecord, PostcardRecord } from '../../schemas/content.js';
import { dayMs, type SeedContext } from './context.js';
import { fakerRandom, fakerUsers, type Random } from './fast-random.js';
import { SeededRandom } from '../random.js';

const words = {
  ru: {
    tags: ['Компания', 'Производство', 'Спорт', 'Обучение', 'ИТ', 'Благотворительность', 'Награды'],
    newsTitles: [
      'Открыт новый офис в Казани',
      'Итоги квартала: выручка выросла на {n}%',
      'Стартует корпоративная спартакиада',
      'Запущена программа наставничества',
      'Обновление корпоративного портала',
      'Мы вошли в рейтинг лучших работодателей',
      'Сотрудники посадили {n} деревьев',
      'Новый курс по информационной безопасности',
      'День открытых дверей на производстве',
      'Запуск линии сборки №{n}',
      'Поздравляем победителей конкурса идей',
      'Изменения в графике работы столовой',
      'Приглашаем на донорскую акцию',
      'Как мы перешли на электронный документооборот',
      'Семейный день в парке',
    ],
    sentences: [
      'Проект готовился почти полгода, и в нём участвовали сотрудники из нескольких подразделений.',
      'Подробности можно узнать у своего руководителя или в службе персонала.',
      'Мы благодарим всех, кто помог сделать это возможным.',
      'Регистрация открыта до конца месяца, количество мест ограничено.',
      'Следующий этап запланирован на второй квартал.',
      'По итогам обсуждения команда подготовила план из нескольких шагов.',
      'Результаты превзошли ожидания: показатели улучшились по всем направлениям.',
      'Вопросы и предложения можно оставить в комментариях к новости.',
      'Фотографии с мероприятия опубликованы в галерее портала.',
      'Участие бесплатное, приглашаются все желающие.',
    ],
    subtitle: 'Главное',
    list: ['Сроки: до конца месяца', 'Ответственный: служба персонала', 'Формат: очно и онлайн'],
    root: 'База знаний',
    rootDescription: 'Документы, инструкции и полезные материалы',
    categories: [
      ['Кадровые вопросы', ['Отпуска', 'Командировки']],
      ['ИТ и оборудование', ['Доступы', 'Рабочее место']],
      ['Охрана труда', ['Инструктажи']],
      ['Корпоративная культура', ['Ценности', 'Традиции']],
    ] as Array<[string, string[]]>,
    pages: ['Инструкция: {x}', 'Порядок: {x}', 'Вопросы и ответы: {x}', 'Памятка: {x}'],
    postcardTitles: ['Спасибо!', 'С днём рождения!', 'Отличная работа', 'Так держать!', 'С праздником!'],
    postcardTexts: [
      'Спасибо за помощь с проектом, без тебя бы не справились!',
      'Поздравляю! Желаю успехов и отличного настроения.',
      'Блестяще провёл презентацию, клиент в восторге.',
      'Спасибо, что всегда готов прийти на помощь.',
      'Отличный результат квартала, так держать!',
    ],
  },
  en: {
    tags: ['Company', 'Operations', 'Sports', 'Learning', 'IT', 'Charity', 'Awards'],
    newsTitles: [
      'New office opens in Leeds',
      'Quarter results: revenue up {n}%',
      'Company sports games start next week',
      'Mentoring programme launched',
      'Portal update released',
      'We made the list of top employers',
      'Staff planted {n} trees',
      'New information security course',
      'Open day at the plant',
      'Assembly line {n} goes live',
      'Congratulations to the ideas contest winners',
      'Canteen opening hours change',
      'Join the blood donation day',
      'How we went paperless',
      'Family day in the park',
    ],
    sentences: [
      'The project took almost six months and involved people from several departments.',
      'Ask your manager or the People team for details.',
      'Thanks to everyone who made this possible.',
      'Registration is open until the end of the month; places are limited.',
      'The next stage is planned for the second quarter.',
      'After the discussion the team drew up a plan in several steps.',
      'The results beat expectations: every indicator improved.',
      'Leave your questions and suggestions in the comments.',
      'Photos from the event are in the portal gallery.',
      'Taking part is free and everyone is welcome.',
    ],
    subtitle: 'Key points',
    list: ['Deadline: end of the month', 'Owner: People team', 'Format: on site and online'],
    root: 'Knowledge base',
    rootDescription: 'Documents, guides and useful material',
    categories: [
      ['HR matters', ['Leave', 'Business travel']],
      ['IT and equipment', ['Access', 'Workplace']],
      ['Health and safety', ['Briefings']],
      ['Company culture', ['Values', 'Traditions']],
    ] as Array<[string, string[]]>,
    pages: ['Guide: {x}', 'Policy: {x}', 'FAQ: {x}', 'Checklist: {x}'],
    postcardTitles: ['Thank you!', 'Happy birthday!', 'Great job', 'Keep it up!', "Season's greetings!"],
    postcardTexts: [
      'Thanks for your help with the project, we could not have done it without you!',
      'Congratulations! Wishing you every success.',
      'Brilliant presentation, the client loved it.',
      'Thank you for always being ready to help.',
      'Great quarter, keep it up!',
    ],
  },
};

export function seedContent(ctx: SeedContext): void {
  const { data, refDate, fixture } = ctx;
  const w = words[fixture.locale];
  const faker = ctx.faker('content');
  const users = data.users.filter((u) => u.state === 'active');
  const authors = users.slice(0, 12);

  const tags = w.tags.map((name) => ({ id: faker.string.uuid(), name }));
  const paragraphs = (n: number) =>
    Array.from({ length: n }, () => faker.helpers.arrayElements(w.sentences, { min: 2, max: 4 }).join(' '));
  const body = (lead: string) => {
    const [first = '', ...rest] = paragraphs(3);
    return (
      `<p><b>${lead}</b></p><p>${first}</p><h3>${w.subtitle}</h3>` +
      `<ul>${w.list.map((l) => `<li>${l}</li>`).join('')}</ul>` +
      `${rest.map((p) => `<p>${p}</p>`).join('')}`
    );
  };
  const counters = () => ({
    views: faker.number.int({ min: 20, max: 2500 }),
    likes: faker.number.int({ min: 0, max: 150 }),
    comments: faker.number.int({ min: 0, max: 40 }),
  });
  const fill = (t: string, x = '') => t.replace('{n}', String(faker.number.int({ min: 2, max: 40 }))).replace('{x}', x);

  const articles: ArticleRecord[] = [];
  // a news item's publication date is drawn first and given; a page's is drawn last, within the last 400 to 30 days
  const addArticle = (
    category: ContentCategoryRecord | null,
    title: string,
    tagCount: { min: number; max: number },
    published?: Date,
  ) => {
    const lead = faker.helpers.arrayElements(w.sentences, 2).join(' ');
    articles.push({
      id: faker.string.uuid(),
      kind: category ? 'page' : 'news',
      categoryId: category?.id ?? null,
      title: fill(title, category?.title),
      lead,
      body: body(lead),
      tagIds: faker.helpers.arrayElements(tags, tagCount).map((t) => t.id),
      authorId: faker.helpers.arrayElement(authors).id,
      publishedAt: (
        published ?? faker.date.between({ from: refDate.getTime() - 400 * dayMs, to: refDate.getTime() - 30 * dayMs })
      ).toISOString(),
      ...counters(),
    });
  };
  // 28 published news over the last 90 days (the newest on the reference day), 2 scheduled ahead.
  for (let i = 0; i < 30; i++) {
    const published =
      i === 0
        ? new Date(refDate.getTime() - 3600_000)
        : i >= 28
          ? new Date(refDate.getTime() + (i === 28 ? 2 : 10) * dayMs)
          : faker.date.between({ from: refDate.getTime() - 90 * dayMs, to: refDate.getTime() - 3600_000 });
    addArticle(null, w.newsTitles[i % w.newsTitles.length]!, { min: 1, max: 3 }, published);
  }

  const root: ContentCategoryRecord = {
    id: faker.string.uuid(),
    parentId: null,
    title: w.root,
    description: w.rootDescription,
    sort: 0,
  };
  const categories = [root];
  const addPages = (cat: ContentCategoryRecord, n: number) => {
    for (let i = 0; i < n; i++) addArticle(cat, w.pages[i % w.pages.length]!, { min: 0, max: 2 });
  };
  const addCategory = (parentId: string, title: string, sort: number) => {
    const category: ContentCategoryRecord = {
      id: faker.string.uuid(),
      parentId,
      title,
      description: faker.helpers.arrayElement(w.sentences),
      sort,
    };
    categories.push(category);
    return category;
  };
  w.categories.forEach(([title, subs], i) => {
    const top = addCategory(root.id, title, i);
    addPages(top, 1);
    for (const [j, sub] of subs.entries()) addPages(addCategory(top.id, sub, j), faker.number.int({ min: 2, max: 4 }));
  });
  addPages(root, 1);

  // Postcards: the first demo account receives five; about a third of the others one to three.
  const postcards: PostcardRecord[] = [];
  // active users beyond the first `fakerUsers` draw from a SeededRandom (see fast-random.ts)
  const fromFaker = fakerRandom(faker);
  const fast = new SeededRandom(ctx.seed, fixture.id, 'postcards');
  const send = (random: Random, recipientId: string, recipientIndex: number) => {
    const k = random.int(0, w.postcardTitles.length - 1);
    // any user but the recipient, without copying the array per postcard
    const n = users.length - 1;
    const j = n > 1 ? random.int(0, n - 1) : 0;
    const sender = users[j < recipientIndex ? j : j + 1]!;
    postcards.push({
      id: random.uuid(),
      senderId: sender.id,
      recipientId,
      title: w.postcardTitles[k]!,
      text: w.postcardTexts[k]!,
      sentAt: random.between(refDate.getTime() - 120 * dayMs, refDate.getTime() - 60_000).toISOString(),
    });
  };
  users.forEach((u, i) => {
    const random = i < fakerUsers ? fromFaker : fast;
    const n = i === 0 ? 5 : random.boolean(0.33) ? random.int(1, 3) : 0;
    for (let k = 0; k < n; k++) send(random, u.id, i);
  });

  data.articleTags = tags;
  data.articles = articles;
  data.contentCategories = categories;
  data.postcards = postcards;
}
