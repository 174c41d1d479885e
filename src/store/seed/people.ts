// Core seeder: the department tree, the users in it (demo accounts from fixtures first),
// and the demo devices, bind links and API keys of the fixtures.
import type { DepartmentRecord, UserRecord } from '../../schemas/records.js';
import type { Right } from '../../schemas/common.js';
import { hashSecret } from '../ids.js';
import { cached } from '../world.js';
import { dayMs, isoDay, type SeedContext } from './context.js';
import { IsoFormat, fakerUsers, localeWords } from './fast-random.js';
import { SeededRandom } from '../random.js';

const names = {
  ru: {
    root: 'Компания',
    divisions: ['Коммерческая дирекция', 'Финансовая дирекция', 'Производство', 'ИТ-дирекция', 'Дирекция по персоналу'],
    departments: [
      ['Отдел продаж', 'Отдел маркетинга', 'Отдел по работе с ключевыми клиентами'],
      ['Бухгалтерия', 'Казначейство', 'Планово-экономический отдел'],
      ['Цех сборки', 'Служба качества', 'Логистика'],
      ['Разработка', 'Служба поддержки', 'Инфраструктура'],
      ['Подбор персонала', 'Обучение и развитие', 'Кадровое делопроизводство'],
    ],
    team: (n: number) => `Группа ${n}`,
    positions: [
      'Менеджер',
      'Ведущий специалист',
      'Инженер',
      'Аналитик',
      'Бухгалтер',
      'Разработчик',
      'Юрист',
      'Специалист по кадрам',
      'Оператор',
      'Дизайнер',
      'Экономист',
      'Логист',
    ],
    boss: 'Руководитель',
  },
  en: {
    root: 'Company',
    divisions: ['Commercial', 'Finance', 'Operations', 'Technology', 'People'],
    departments: [
      ['Sales', 'Marketing', 'Key Accounts'],
      ['Accounting', 'Treasury', 'Planning'],
      ['Assembly', 'Quality', 'Logistics'],
      ['Engineering', 'Support', 'Infrastructure'],
      ['Recruiting', 'Learning', 'HR Operations'],
    ],
    team: (n: number) => `Team ${n}`,
    positions: [
      'Manager',
      'Senior Specialist',
      'Engineer',
      'Analyst',
      'Accountant',
      'Developer',
      'Counsel',
      'HR Specialist',
      'Operator',
      'Designer',
      'Economist',
      'Logistician',
    ],
    boss: 'Head',
  },
};

const cyrillic: Record<string, string> = {
  а: 'a',
  б: 'b',
  в: 'v',
  г: 'g',
  д: 'd',
  е: 'e',
  ё: 'e',
  ж: 'zh',
  з: 'z',
  и: 'i',
  й: 'y',
  к: 'k',
  л: 'l',
  м: 'm',
  н: 'n',
  о: 'o',
  п: 'p',
  р: 'r',
  с: 's',
  т: 't',
  у: 'u',
  ф: 'f',
  х: 'kh',
  ц: 'ts',
  ч: 'ch',
  ш: 'sh',
  щ: 'shch',
  ъ: '',
  ы: 'y',
  ь: '',
  э: 'e',
  ю: 'yu',
  я: 'ya',
};
export const transliterate = (text: string) =>
  [...text.toLowerCase()]
    .map((c) => cyrillic[c] ?? c)
    .join('')
    .replace(/[^a-z0-9]/g, '');

/** The rights of an employee (not a manager, not HR): seeded users' and the records API's made ones. */
export const employeeRights: Right[] = ['show-content-categories', 'shop-usage', 'show-structure-names'];
/** The password of every generated user, listed by /__admin/fixtures: made users sign in with it too. */
export const generatedPassword = 'demo1234';

/** Who a user is: the caller's (a fixture account, the seeder's draws, a records-API input). */
export type UserIdentity = Pick<
  UserRecord,
  'id' | 'email' | 'firstName' | 'lastName' | 'middleName' | 'gender' | 'position' | 'departmentId'
> &
  Partial<Pick<UserRecord, 'password' | 'twoFactor' | 'rights'>>;
/** What was drawn for a user: its phone, dates and registration. */
export type UserDraws = Pick<
  UserRecord,
  'phone' | 'birthday' | 'hiredAt' | 'createdAt' | 'lastLoginAt' | 'regStatusId'
>;

/**
 * A user as the seeder and the records API make one: an active employee, not a boss (the seeder makes heads after),
 * with the demo password and an employee's rights unless given. One object literal, not a spread: 100 000 users
 * built by spreading were slower to read in every later seeder.
 */
export function userRecord(u: UserIdentity & UserDraws): UserRecord {
  return {
    id: u.id,
    email: u.email,
    password: u.password ?? generatedPassword,
    twoFactor: u.twoFactor ?? false,
    rights: u.rights ?? [...employeeRights],
    firstName: u.firstName,
    lastName: u.lastName,
    middleName: u.middleName,
    gender: u.gender,
    position: u.position,
    // join() gives flat strings (a long template literal keeps cons strings: memory at 100 000 users)
    name: [u.lastName, u.firstName, u.middleName].filter(Boolean).join(' '),
    departmentId: u.departmentId,
    isBoss: false,
    phone: u.phone,
    birthday: u.birthday,
    hiredAt: u.hiredAt,
    createdAt: u.createdAt,
    lastLoginAt: u.lastLoginAt,
    regStatusId: u.regStatusId,
    state: 'active',
    faceUrl: ['/images/avatar/', u.id, '.svg'].join(''),
    statusText: '',
    activeStatusTypes: [],
  };
}

export function seedPeople(ctx: SeedContext): void {
  const { fixture, data, refDate, size } = ctx;
  const words = names[fixture.locale];
  const faker = ctx.faker('people');

  // Departments: root → divisions → departments → teams (4 levels; teams grow with --users).
  const departments: DepartmentRecord[] = [];
  const addDepartment = (name: string, parent: DepartmentRecord | null): DepartmentRecord => {
    const dep: DepartmentRecord = {
      id: faker.string.uuid(),
      name,
      parentId: parent?.id ?? null,
      path: parent ? `${parent.path} / ${name}` : name,
      level: parent ? parent.level + 1 : 0,
      headId: null,
    };
    departments.push(dep);
    return dep;
  };
  const root = addDepartment(words.root, null);
  const teamsPerDepartment = Math.min(50, Math.max(2, Math.ceil(size.users / 200) * 2));
  words.divisions.forEach((division, i) => {
    const div = addDepartment(division, root);
    for (const depName of words.departments[i] ?? []) {
      const dep = addDepartment(depName, div);
      for (let t = 1; t <= teamsPerDepartment; t++) addDepartment(words.team(t), dep);
    }
  });

  const users: UserRecord[] = [];
  const emails = new Set<string>();
  const translit = new Map<string, string>();
  const translitOf = (word: string) => cached(translit, word, () => transliterate(word));
  const domainPart = fixture.domain.split('.')[0];
  const uniqueEmail = (first: string, last: string) => {
    // join() gives flat strings (a long template literal keeps cons strings: memory at 100 000 users)
    const local = [translitOf(first), '.', translitOf(last)].join('');
    let email = [local, '@', domainPart, '.test'].join('');
    for (let n = 2; emails.has(email); n++) email = [local, n, '@', domainPart, '.test'].join('');
    emails.add(email);
    return email;
  };

  /** A user of `who` with faker's draws (the first `fakerUsers` users and the fixture accounts). */
  const makeUser = (who: UserIdentity): UserRecord => {
    const hired = faker.date.past({ years: 8, refDate });
    return userRecord({
      ...who,
      phone: faker.phone.number({ style: 'international' }),
      birthday: isoDay(faker.date.birthdate({ mode: 'age', min: 20, max: 64, refDate })),
      hiredAt: isoDay(hired),
      createdAt: hired.toISOString(),
      lastLoginAt: faker.datatype.boolean(0.8) ? faker.date.recent({ days: 30, refDate }).toISOString() : null,
      regStatusId: faker.datatype.boolean(0.95) ? 2 : 1,
    });
  };

  const leaves = departments.filter((d) => d.level === 3);
  const peopleDivision = departments.find((d) => d.level === 1 && d.name === words.divisions[4])!;
  fixture.accounts.forEach((account, i) => {
    emails.add(account.email);
    const dep = i === 0 ? peopleDivision : faker.helpers.arrayElement(leaves);
    const { note: _note, userId, ...rest } = account;
    const who = { id: userId, ...rest };
    // the account's own fields first, in the fixture's order (the seeded bytes stay what they were)
    users.push({ ...who, ...makeUser({ ...who, departmentId: dep.id }) });
  });

  // Users beyond the first `fakerUsers`: the same kinds of values from the locale's word lists and a SeededRandom.
  const r = new SeededRandom(ctx.seed, fixture.id, 'people');
  const lw = localeWords(faker);
  const ref = refDate.getTime();
  const iso = new IsoFormat();
  const fastUser = (departmentId: string): UserRecord => {
    const gender = r.boolean() ? ('male' as const) : ('female' as const);
    const firstName = r.pick(lw.firstName(gender));
    const lastName = r.pick(lw.lastName(gender));
    const middleName = fixture.locale === 'ru' ? r.pick(lw.middleName(gender)) : null;
    const hired = r.int(ref - 8 * 365 * dayMs, ref - 1000);
    const born = r.int(ref - 64 * 365 * dayMs, ref - 20 * 366 * dayMs);
    const id = r.uuid();
    return userRecord({
      id,
      email: uniqueEmail(firstName, lastName),
      firstName,
      lastName,
      middleName,
      gender,
      position: r.pick(words.positions),
      departmentId,
      phone: r.digits(r.pick(lw.phones)),
      birthday: iso.day(born),
      hiredAt: iso.day(hired),
      createdAt: iso.time(hired),
      lastLoginAt: r.boolean(0.8) ? iso.time(r.int(ref - 30 * dayMs, ref - 1000)) : null,
      regStatusId: r.boolean(0.95) ? 2 : 1,
    });
  };

  for (let i = users.length; i < size.users; i++) {
    if (i >= fakerUsers) {
      users.push(fastUser(r.pick(leaves).id));
      continue;
    }
    const gender = faker.helpers.arrayElement(['male', 'female'] as const);
    const firstName = faker.person.firstName(gender);
    const lastName = faker.person.lastName(gender);
    const middleName = fixture.locale === 'ru' ? faker.person.middleName(gender) : null;
    users.push(
      makeUser({
        id: faker.string.uuid(),
        email: uniqueEmail(firstName, lastName),
        firstName,
        lastName,
        middleName,
        gender,
        position: faker.helpers.arrayElement(words.positions),
        departmentId: faker.helpers.arrayElement(leaves).id,
      }),
    );
  }

  // Every department gets a head: the first fixture account heads the People division.
  const generated = users.slice(fixture.accounts.length);
  let next = 0;
  for (const dep of departments) {
    const head = dep.id === peopleDivision.id ? users[0]! : generated[next++ % generated.length];
    if (!head || (head.isBoss && dep.id !== peopleDivision.id)) continue;
    dep.headId = head.id;
    if (head !== users[0]) {
      head.departmentId = dep.id;
      head.position = `${words.boss}: ${dep.name}`;
    }
    head.isBoss = true;
  }

  // A few users whose birthday is the reference day and a few recent hires, so those widgets are never empty;
  // one blocked and one hidden user for the personal-token rules.
  const today = isoDay(refDate);
  for (const u of generated.slice(-3)) u.birthday = `${u.birthday.slice(0, 4)}${today.slice(4)}`;
  for (const u of generated.slice(-8, -3)) {
    const hired = faker.date.recent({ days: 25, refDate });
    u.hiredAt = isoDay(hired);
    u.createdAt = hired.toISOString();
  }
  const blocked = generated.at(-9);
  const hidden = generated.at(-10);
  if (blocked) blocked.state = 'blocked';
  if (hidden) hidden.state = 'hidden';

  data.departments = departments;
  data.users = users;
  data.apiKeys = fixture.apiKeys.map((k) => ({
    clientId: k.clientId,
    secretHash: hashSecret(k.clientSecret),
    name: k.name,
    createdAt: refDate.toISOString(),
  }));
  data.devices = fixture.devices.map((d) => ({
    id: d.id,
    userId: d.userId,
    secretHash: hashSecret(d.secret),
    name: d.name,
    platform: d.platform,
    model: d.model,
    osVersion: d.osVersion,
    appVersion: d.appVersion,
    boundAt: refDate.toISOString(),
    bindMethod: 'fixture' as const,
  }));
  data.bindLinks = fixture.bindLinks.map((b) => ({
    id: b.id,
    token: b.token,
    userId: b.userId,
    singleUse: false,
    usedAt: null,
    createdAt: refDate.toISOString(),
    expiresAt: null,
  }));
}
