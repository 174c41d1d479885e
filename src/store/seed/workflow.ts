// Workflow seeder: a two-level catalog of categories, ~12 processes (texts in the tenant language) and ~30
// tickets of fixture and generated users in various stages and statuses.
import type { Faker } from '@faker-js/faker';
import type { WfCategoryRecord, WfFieldRecord, WfProcessRecord, WfTicketRecord } from '../../schemas/workflow.js';
import type { UserRecord } from '../../schemas/records.js';
import { transliterate } from './people.js';
import { isoDay, type SeedContext } from './context.js';

type Text = [ru: string, en: string];
type FieldSpec = {
  id: string;
  name: Text;
  type: WfFieldRecord['type'];
  required?: boolean;
  values?: Text[];
  defaultValue?: string;
};
type ProcessSpec = {
  key: string;
  category: string;
  name: Text;
  brief: Text;
  text: Text[];
  tags: Text[];
  fields: FieldSpec[];
  stages: Text[];
  chief?: boolean;
  allowCategoryChange?: boolean;
  hidden?: boolean;
  managersOnly?: boolean;
  stageMinutes: number;
};

const categories: Array<{ key: string; name: Text; children: Array<{ key: string; name: Text }> }> = [
  {
    key: 'hr',
    name: ['Кадровые вопросы', 'HR matters'],
    children: [
      { key: 'leave', name: ['Отпуска и отсутствия', 'Leave and absence'] },
      { key: 'docs', name: ['Справки и документы', 'Certificates and documents'] },
      { key: 'staff', name: ['Персонал', 'Staffing'] },
    ],
  },
  {
    key: 'admin',
    name: ['Административные вопросы', 'Administration'],
    children: [
      { key: 'travel', name: ['Командировки', 'Business travel'] },
      { key: 'office', name: ['Офис и пропуска', 'Office and passes'] },
    ],
  },
  {
    key: 'it',
    name: ['ИТ-сервисы', 'IT services'],
    children: [
      { key: 'access', name: ['Доступы', 'Access'] },
      { key: 'hardware', name: ['Оборудование', 'Equipment'] },
    ],
  },
];

const comment: FieldSpec = { id: 'comment', name: ['Комментарий', 'Comment'], type: 'textarea' };
const dateFrom: FieldSpec = { id: 'dateFrom', name: ['Дата начала', 'Start date'], type: 'date', required: true };
const dateTo: FieldSpec = { id: 'dateTo', name: ['Дата окончания', 'End date'], type: 'date', required: true };

const processes: ProcessSpec[] = [
  {
    key: 'vacation',
    category: 'leave',
    name: ['Заявление на отпуск', 'Vacation request'],
    brief: ['Ежегодный или иной отпуск', 'Annual or other leave'],
    text: [
      [
        'Оформите отпуск не позднее чем за две недели до его начала.',
        'Request your leave at least two weeks before it starts.',
      ],
      ['Заявку согласует ваш руководитель, затем отдел кадров.', 'Your manager approves it, then HR processes it.'],
    ],
    tags: [
      ['отпуск', 'vacation'],
      ['отсутствие', 'absence'],
    ],
    fields: [
      {
        id: 'leaveType',
        name: ['Вид отпуска', 'Leave type'],
        type: 'select',
        required: true,
        values: [
          ['Ежегодный оплачиваемый', 'Annual paid'],
          ['Без сохранения заработной платы', 'Unpaid'],
          ['Учебный', 'Study leave'],
        ],
      },
      dateFrom,
      dateTo,
      comment,
    ],
    stages: [
      ['Согласование руководителем', 'Manager approval'],
      ['Оформление в отделе кадров', 'HR processing'],
      ['Ознакомление с приказом', 'Order acknowledgement'],
    ],
    chief: true,
    stageMinutes: 10,
  },
  {
    key: 'sick',
    category: 'leave',
    name: ['Больничный лист', 'Sick leave notice'],
    brief: ['Сообщить о больничном', 'Report a sick leave'],
    text: [['Укажите номер электронного листка нетрудоспособности.', 'Give the number of your sick note.']],
    tags: [
      ['больничный', 'sick'],
      ['отсутствие', 'absence'],
    ],
    fields: [
      dateFrom,
      { id: 'noteNumber', name: ['Номер листка', 'Sick note number'], type: 'text', required: true },
      { id: 'scan', name: ['Скан', 'Scan'], type: 'file' },
    ],
    stages: [
      ['Проверка отделом кадров', 'HR check'],
      ['Передача в бухгалтерию', 'Payroll'],
    ],
    stageMinutes: 30,
  },
  {
    key: 'certificate',
    category: 'docs',
    name: ['Справка с места работы', 'Certificate of employment'],
    brief: ['Справка для банка, визы, детского сада', 'For a bank, a visa or a school'],
    text: [['Справка готовится в течение трёх рабочих дней.', 'The certificate is ready within three working days.']],
    tags: [
      ['справка', 'certificate'],
      ['документы', 'documents'],
    ],
    fields: [
      {
        id: 'purpose',
        name: ['Назначение', 'Purpose'],
        type: 'select',
        required: true,
        values: [
          ['Банк', 'Bank'],
          ['Посольство', 'Embassy'],
          ['По месту требования', 'Other'],
        ],
      },
      { id: 'copies', name: ['Количество экземпляров', 'Copies'], type: 'number', required: true, defaultValue: '1' },
      {
        id: 'delivery',
        name: ['Способ получения', 'Delivery'],
        type: 'select',
        required: true,
        values: [
          ['Электронно', 'Electronic'],
          ['Бумажный оригинал', 'Paper original'],
        ],
        defaultValue: '',
      },
    ],
    stages: [
      ['Подготовка справки', 'Preparation'],
      ['Выдача', 'Hand-over'],
    ],
    allowCategoryChange: true,
    stageMinutes: 10,
  },
  {
    key: 'income',
    category: 'docs',
    name: ['Справка о доходах', 'Income statement'],
    brief: ['Справка о доходах за год', 'Yearly income statement'],
    text: [['Справка формируется бухгалтерией.', 'Prepared by accounting.']],
    tags: [
      ['справка', 'certificate'],
      ['доход', 'income'],
    ],
    fields: [
      {
        id: 'year',
        name: ['Год', 'Year'],
        type: 'select',
        required: true,
        values: [
          ['2025', '2025'],
          ['2024', '2024'],
          ['2023', '2023'],
        ],
      },
      { id: 'copies', name: ['Количество экземпляров', 'Copies'], type: 'number', defaultValue: '1' },
    ],
    stages: [['Подготовка в бухгалтерии', 'Accounting']],
    stageMinutes: 60,
  },
  {
    key: 'hiring',
    category: 'staff',
    name: ['Заявка на подбор сотрудника', 'Hiring request'],
    brief: ['Открыть вакансию', 'Open a vacancy'],
    text: [['Только для руководителей подразделений.', 'For heads of departments only.']],
    tags: [
      ['вакансия', 'vacancy'],
      ['подбор', 'recruiting'],
    ],
    fields: [
      { id: 'position', name: ['Должность', 'Position'], type: 'text', required: true },
      { id: 'headcount', name: ['Количество', 'Headcount'], type: 'number', required: true },
      { id: 'startDate', name: ['Желаемая дата выхода', 'Desired start date'], type: 'date' },
      comment,
    ],
    stages: [
      ['Согласование бюджета', 'Budget approval'],
      ['Поиск кандидатов', 'Sourcing'],
      ['Закрытие вакансии', 'Closing'],
    ],
    managersOnly: true,
    stageMinutes: 1440,
  },
  {
    key: 'trip',
    category: 'travel',
    name: ['Командировка', 'Business trip'],
    brief: ['Оформление служебной поездки', 'Arrange a business trip'],
    text: [['Билеты и гостиницу закажет служба командировок.', 'The travel desk books tickets and a hotel.']],
    tags: [
      ['командировка', 'trip'],
      ['поездка', 'travel'],
    ],
    fields: [
      { id: 'city', name: ['Город', 'City'], type: 'text', required: true },
      dateFrom,
      dateTo,
      { id: 'purpose', name: ['Цель поездки', 'Purpose'], type: 'textarea', required: true },
      {
        id: 'transport',
        name: ['Транспорт', 'Transport'],
        type: 'select',
        values: [
          ['Самолёт', 'Plane'],
          ['Поезд', 'Train'],
          ['Автомобиль', 'Car'],
        ],
      },
      { id: 'advance', name: ['Аванс, руб.', 'Advance, GBP'], type: 'number' },
    ],
    stages: [
      ['Согласование руководителем', 'Manager approval'],
      ['Бронирование', 'Booking'],
      ['Выдача документов', 'Documents'],
    ],
    chief: true,
    stageMinutes: 10,
  },
  {
    key: 'expenses',
    category: 'travel',
    name: ['Авансовый отчёт', 'Expense report'],
    brief: ['Отчёт о расходах командировки', 'Report travel expenses'],
    text: [['Приложите чеки.', 'Attach the receipts.']],
    tags: [
      ['расходы', 'expenses'],
      ['командировка', 'trip'],
    ],
    fields: [
      { id: 'amount', name: ['Сумма', 'Amount'], type: 'number', required: true },
      { id: 'receipts', name: ['Чеки', 'Receipts'], type: 'file', required: true },
      comment,
    ],
    stages: [
      ['Проверка бухгалтерией', 'Accounting check'],
      ['Выплата', 'Payment'],
    ],
    stageMinutes: 240,
  },
  {
    key: 'guest',
    category: 'office',
    name: ['Пропуск для гостя', 'Guest pass'],
    brief: ['Разовый пропуск посетителю', 'A one-day pass for a visitor'],
    text: [['Пропуск действует в указанный день.', 'The pass is valid on the given day.']],
    tags: [
      ['пропуск', 'pass'],
      ['гость', 'guest'],
    ],
    fields: [
      { id: 'guestName', name: ['ФИО гостя', 'Guest name'], type: 'text', required: true },
      { id: 'visitDate', name: ['Дата визита', 'Visit date'], type: 'date', required: true },
      { id: 'company', name: ['Компания', 'Company'], type: 'text' },
      { id: 'car', name: ['Гость на автомобиле', 'Arrives by car'], type: 'checkbox', defaultValue: 'false' },
    ],
    stages: [['Оформление пропуска', 'Issuing']],
    stageMinutes: 10,
  },
  {
    key: 'repair',
    category: 'office',
    name: ['Заявка в хозяйственную службу', 'Facilities request'],
    brief: ['Ремонт, уборка, мебель', 'Repairs, cleaning, furniture'],
    text: [['Опишите проблему и место.', 'Describe the problem and the place.']],
    tags: [
      ['офис', 'office'],
      ['ремонт', 'repair'],
    ],
    fields: [
      { id: 'place', name: ['Помещение', 'Room'], type: 'text', required: true },
      { id: 'problem', name: ['Описание', 'Description'], type: 'textarea', required: true },
    ],
    stages: [
      ['Принято в работу', 'Accepted'],
      ['Выполнение', 'Work'],
    ],
    allowCategoryChange: true,
    stageMinutes: 60,
  },
  {
    key: 'itaccess',
    category: 'access',
    name: ['Доступ к ИТ-системе', 'IT system access'],
    brief: ['Доступ к 1С, CRM, VPN', 'Access to ERP, CRM, VPN'],
    text: [['Доступ согласует руководитель и владелец системы.', 'Your manager and the system owner approve it.']],
    tags: [
      ['доступ', 'access'],
      ['ИТ', 'IT'],
    ],
    fields: [
      {
        id: 'system',
        name: ['Система', 'System'],
        type: 'select',
        required: true,
        values: [
          ['1С', 'ERP'],
          ['CRM', 'CRM'],
          ['VPN', 'VPN'],
          ['Jira', 'Jira'],
        ],
      },
      { id: 'role', name: ['Роль', 'Role'], type: 'text' },
      { id: 'until', name: ['Доступ до', 'Access until'], type: 'date' },
      {
        id: 'agree',
        name: ['Ознакомлен с правилами ИБ', 'I accept the security rules'],
        type: 'checkbox',
        required: true,
      },
    ],
    stages: [
      ['Согласование руководителем', 'Manager approval'],
      ['Согласование владельцем системы', 'System owner approval'],
      ['Предоставление доступа', 'Provisioning'],
    ],
    chief: true,
    stageMinutes: 10,
  },
  {
    key: 'equipment',
    category: 'hardware',
    name: ['Заявка на оборудование', 'Equipment request'],
    brief: ['Ноутбук, монитор, гарнитура', 'Laptop, monitor, headset'],
    text: [['Оборудование выдаётся со склада ИТ.', 'Issued from the IT store.']],
    tags: [
      ['оборудование', 'equipment'],
      ['ноутбук', 'laptop'],
    ],
    fields: [
      {
        id: 'item',
        name: ['Оборудование', 'Item'],
        type: 'select',
        required: true,
        values: [
          ['Ноутбук', 'Laptop'],
          ['Монитор', 'Monitor'],
          ['Гарнитура', 'Headset'],
          ['Клавиатура и мышь', 'Keyboard and mouse'],
        ],
      },
      { id: 'reason', name: ['Обоснование', 'Justification'], type: 'textarea', required: true },
      { id: 'urgent', name: ['Срочно', 'Urgent'], type: 'checkbox' },
    ],
    stages: [
      ['Согласование руководителем', 'Manager approval'],
      ['Выдача со склада', 'Hand-over'],
    ],
    chief: true,
    stageMinutes: 30,
  },
  {
    key: 'card',
    category: 'office',
    name: ['Корпоративная карта (архив)', 'Corporate card (archived)'],
    brief: ['Процесс больше не используется', 'No longer in use'],
    text: [['Архивный процесс.', 'Archived process.']],
    tags: [['архив', 'archive']],
    fields: [comment],
    stages: [['Рассмотрение', 'Review']],
    hidden: true,
    stageMinutes: 60,
  },
  {
    key: 'audit',
    category: 'access',
    name: ['Аудит доступов (служебный)', 'Access audit (internal)'],
    brief: ['Запускается службой ИБ', 'Started by the security team'],
    text: [['Служебный процесс.', 'Internal process.']],
    tags: [['аудит', 'audit']],
    fields: [comment],
    stages: [
      ['Проверка', 'Check'],
      ['Отчёт', 'Report'],
    ],
    hidden: true,
    stageMinutes: 60,
  },
];

const slugOf = (text: string) => text.split(/\s+/).map(transliterate).filter(Boolean).join('-');

export function seedWorkflow(ctx: SeedContext): void {
  const { fixture, data, refDate } = ctx;
  const faker = ctx.faker('workflow');
  const L = (t: Text) => (fixture.locale === 'ru' ? t[0] : t[1]);
  const at = (minutesBefore: number) => new Date(refDate.getTime() - minutesBefore * 60_000).toISOString();

  const cats: WfCategoryRecord[] = [];
  const catByKey = new Map<string, WfCategoryRecord>();
  let sort = 0;
  const addCategory = (key: string, name: Text, parent: WfCategoryRecord | null) => {
    const c: WfCategoryRecord = {
      id: faker.string.uuid(),
      parentId: parent?.id ?? null,
      name: L(name),
      title: L(name),
      description: parent ? `${parent.name}: ${L(name)}` : L(name),
      hashId: faker.string.alphanumeric(10),
      slug: slugOf(name[1]),
      tags: [L(name).toLocaleLowerCase(fixture.locale)],
      contentStyleId: 1,
      sort: sort++,
    };
    cats.push(c);
    catByKey.set(key, c);
    return c;
  };
  for (const top of categories) {
    const parent = addCategory(top.key, top.name, null);
    for (const child of top.children) addCategory(child.key, child.name, parent);
  }

  const heads = data.users.filter((u) => u.isBoss && u.state === 'active');
  const managers = data.userGroups.find((g) => g.conditionsReadable === 'isBoss') ?? data.userGroups[1];
  const procs: WfProcessRecord[] = processes.map((spec) => ({
    id: faker.string.uuid(),
    categoryId: catByKey.get(spec.category)!.id,
    name: L(spec.name),
    brief: L(spec.brief),
    descriptionBlocks: [
      { id: faker.string.alphanumeric(10), type: 'header', text: L(spec.name) },
      ...spec.text.map((t) => ({ id: faker.string.alphanumeric(10), type: 'paragraph', text: L(t) })),
    ],
    tags: spec.tags.map(L),
    statusId: 1,
    isHidden: spec.hidden === true,
    visibleGroupIds: spec.managersOnly && managers ? [managers.id] : [],
    isChiefRequired: spec.chief === true,
    isAllowCategoryChange: spec.allowCategoryChange === true,
    fields: spec.fields.map((f) => ({
      id: f.id,
      name: L(f.name),
      type: f.type,
      values: (f.values ?? []).map(L),
      required: f.required === true,
      defaultValue: f.defaultValue === undefined || f.defaultValue === '' ? null : f.defaultValue,
    })),
    stages: spec.stages.map((s) => ({
      id: faker.string.uuid(),
      name: L(s),
      fields: [],
      responsibleIds: heads.length > 0 ? [faker.helpers.arrayElement(heads).id] : [],
    })),
    stageMinutes: spec.stageMinutes,
    feedbackCount: faker.number.int({ min: 0, max: 40 }),
    feedbackScore: faker.number.int({ min: 3, max: 5 }),
    createdAt: faker.date.past({ years: 2, refDate }).toISOString(),
  }));
  // The last stage of every process may carry a field for the executor's comment.
  for (const p of procs) {
    const last = p.stages.at(-1)!;
    last.fields.push({
      id: 'resolution',
      name: L(['Результат', 'Resolution']),
      type: 'textarea',
      values: [],
      required: false,
      defaultValue: null,
    });
  }

  const fixtureUsers = fixture.accounts
    .map((a) => data.users.find((u) => u.id === a.userId))
    .filter((u): u is UserRecord => !!u);
  const others = data.users.filter((u) => u.state === 'active' && !fixtureUsers.includes(u));
  const owners: UserRecord[] = [
    ...[0, 0, 0, 0, 0, 1, 1, 2, 2].map((i) => fixtureUsers[i]).filter((u): u is UserRecord => !!u),
    ...faker.helpers.arrayElements(others, Math.min(others.length, 21)),
  ];
  const statuses = [1, 1, 2, 1, 2, 3, 1, 4, 2, 1, 2, 2, 1, 3, 2, 1, 4, 2, 1, 2, 2, 1, 2, 3, 1, 2, 2, 1, 2, 2];
  const groupOf = (u: UserRecord) => data.userGroups.filter((g) => g.memberIds.includes(u.id)).map((g) => g.id);
  const tickets: WfTicketRecord[] = owners.map((user, i) => {
    const groups = groupOf(user);
    const startable = procs.filter(
      (p) => p.visibleGroupIds.length === 0 || p.visibleGroupIds.some((g) => groups.includes(g)),
    );
    const p = i % 13 === 12 ? (procs.find((x) => x.isHidden) ?? startable[0]!) : startable[i % startable.length]!;
    const status = statuses[i % statuses.length]!;
    const step = p.stageMinutes;
    const stageIndex = status === 2 ? p.stages.length - 1 : faker.number.int({ min: 0, max: p.stages.length - 1 });
    let createdMin: number;
    let enteredMin: number;
    let solvedAt: string | null = null;
    if (status === 1) {
      // in progress: entered the current stage a little before the reference time, so it moves soon after
      enteredMin = faker.number.int({ min: 0, max: Math.max(0, Math.floor(step * 0.8)) });
      createdMin = enteredMin + stageIndex * step;
    } else {
      createdMin = faker.number.int({ min: 2, max: 60 }) * 1440 + faker.number.int({ min: 0, max: 600 });
      enteredMin = createdMin - stageIndex * step;
      if (status === 2) solvedAt = at(enteredMin - step);
    }
    const responsible = Object.fromEntries(p.stages.map((s) => [s.id, [...s.responsibleIds]]));
    const history = p.stages
      .slice(0, stageIndex + 1)
      .map((s, k) => ({ at: at(createdMin - k * step), stageId: s.id, statusId: 1 }));
    const stage = p.stages[stageIndex]!;
    const updatedAt = status === 1 ? at(enteredMin) : (solvedAt ?? at(enteredMin - Math.floor(step / 2)));
    if (status !== 1) history.push({ at: updatedAt, stageId: stage.id, statusId: status });
    return {
      id: faker.string.uuid(),
      processId: p.id,
      categoryId: p.categoryId,
      userId: user.id,
      stageId: stage.id,
      statusId: status,
      createdAt: at(createdMin),
      updatedAt,
      solvedAt,
      stageEnteredAt: at(enteredMin),
      fieldValues: Object.fromEntries(p.fields.map((f) => [f.id, f.defaultValue ?? startFormValue(faker, f, refDate)])),
      responsible,
      history,
    };
  });

  data.wfCategories = cats;
  data.wfProcesses = procs;
  data.wfTickets = tickets;
}

/** A value for a field of a start form as a tester would fill it (the seeder's tickets and the factory's). */
export function startFormValue(faker: Faker, f: WfFieldRecord, refDate: Date): string {
  switch (f.type) {
    case 'select':
      return f.values[0] === undefined ? '' : faker.helpers.arrayElement(f.values);
    case 'date':
      return isoDay(faker.date.soon({ days: 60, refDate }));
    case 'number':
      return String(faker.number.int({ min: 1, max: 5 }));
    case 'checkbox':
      return 'true';
    case 'file':
      return faker.string.uuid();
    case 'textarea':
      return faker.lorem.sentence();
    default:
      return faker.lorem.words(2);
  }
}
