// Shared organisation data several groups read: employments, user groups, meeting places.
import type { EmploymentRecord, UserGroupRecord, UserRecord } from '../../schemas/records.js';
import { dayMs, isoDay, type SeedContext } from './context.js';
import { fakerRandom, fakerUsers } from './fast-random.js';
import { SeededRandom } from '../random.js';

const words = {
  ru: {
    org: 'ООО «Ромашка»',
    org2: 'АО «Ромашка-Сервис»',
    groups: [
      'Все сотрудники',
      'Руководители',
      'Новые сотрудники',
      'Офис Москва',
      'Офис Казань',
      'Спортивный клуб',
      'Волонтёры',
    ],
    places: [
      'Переговорная «Байкал»',
      'Переговорная «Эльбрус»',
      'Конференц-зал',
      'Учебный класс',
      'Кофе-поинт 3 этаж',
      'Актовый зал',
    ],
    city: 'Москва, ул. Лесная, д. 5',
    department: 'Подразделение',
  },
  en: {
    org: 'Northwind Traders Ltd',
    org2: 'Northwind Services Ltd',
    groups: ['All employees', 'Managers', 'Newcomers', 'London office', 'Leeds office', 'Running club', 'Volunteers'],
    places: ['Room Thames', 'Room Severn', 'Conference hall', 'Training room', 'Coffee point 3F', 'Auditorium'],
    city: '12 King Street, London',
    department: 'Department',
  },
};

export function seedOrganisation(ctx: SeedContext): void {
  const { fixture, data, refDate } = ctx;
  const w = words[fixture.locale];
  const faker = ctx.faker('organisation');
  const fromFaker = fakerRandom(faker);
  const fast = new SeededRandom(ctx.seed, fixture.id, 'organisation');

  const employments: EmploymentRecord[] = [];
  const secondDepartments = data.departments.filter((d) => d.level >= 2);
  data.users.forEach((user, i) => {
    const random = i < fakerUsers ? fromFaker : fast;
    const origin = (n: number) => `${fixture.locale === 'ru' ? 'ТН' : 'EMP'}-${String(100000 + i * 3 + n)}`;
    employments.push(mainEmployment(user, { id: random.uuid(), originId: origin(0), organizationName: w.org }));
    // About one in ten holds a second, part-time employment in the sister company.
    if (i < 3 || random.boolean(0.1)) {
      const dep = random.pick(secondDepartments);
      const since = random.between(Date.parse(user.createdAt), refDate.getTime());
      employments.push({
        id: random.uuid(),
        userId: user.id,
        departmentId: dep.id,
        position: random.pick([user.position, `${w.department}: ${dep.name}`]),
        isMain: false,
        statusId: random.boolean(0.9) ? 1 : 2,
        employmentDate: isoDay(since),
        firedDate: null,
        originId: origin(1),
        originOrganizationId: 'ORG-2',
        organizationName: w.org2,
        rate: 0.5,
        createdAt: since.toISOString(),
      });
    }
  });

  const recent = isoDay(new Date(refDate.getTime() - 90 * dayMs));
  const chance = (j: number, p: number) => (j < fakerUsers ? fromFaker : fast).boolean(p);
  const members: Array<(u: (typeof data.users)[number], j: number) => boolean> = [
    () => true,
    (u) => u.isBoss,
    (u) => u.hiredAt >= recent,
    (_u, j) => chance(j, 0.7),
    (_u, j) => chance(j, 0.3),
    (_u, j) => chance(j, 0.1),
    (_u, j) => chance(j, 0.05),
  ];
  const conditions = ['*', 'isBoss', 'hiredAt ≥ 90 days ago', 'office', 'office', 'opt-in', 'opt-in'];
  const userGroups: UserGroupRecord[] = w.groups.map((name, i) => {
    const id = faker.string.uuid();
    return {
      id,
      name,
      description: faker.lorem.sentence(),
      iconUrl: `/images/user-group/${id}.svg`,
      conditionsReadable: conditions[i] ?? 'opt-in',
      memberIds: data.users.filter((u, j) => members[i]!(u, j)).map((u) => u.id),
    };
  });

  data.employments = employments;
  data.userGroups = userGroups;
  data.meetingPlaces = w.places.map((name) => ({
    id: faker.string.uuid(),
    name,
    address: w.city,
    capacity: faker.number.int({ min: 4, max: 120 }),
  }));
}

/** A user's main employment, full time in the user's department since the hire date (seeded users and made ones). */
export function mainEmployment(
  user: UserRecord,
  drawn: { id: string; originId: string; organizationName: string },
): EmploymentRecord {
  return {
    id: drawn.id,
    userId: user.id,
    departmentId: user.departmentId,
    position: user.position,
    isMain: true,
    statusId: 1,
    employmentDate: user.hiredAt,
    firedDate: null,
    originId: drawn.originId,
    originOrganizationId: 'ORG-1',
    organizationName: drawn.organizationName,
    rate: 1,
    createdAt: user.createdAt,
  };
}
