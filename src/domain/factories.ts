// Factories of the records API (docs/data.md): a partial record filled the way the seeder fills one, from draws
// minted by the sandbox's store (the same calls give the same records; a refused create mints nothing, as the
// store's transaction rolls its sequence back). Most collections take the schema-driven filler below; users and
// workflow tickets have their own, since the portal reads more of their shape.
import type { Faker } from '@faker-js/faker';
import type { TObject, TSchema } from '@sinclair/typebox';
import { fail } from '../errors.js';
import type { UserRecord } from '../schemas/records.js';
import type { WfProcessRecord, WfTicketRecord } from '../schemas/workflow.js';
import { hashSecret } from '../store/ids.js';
import { SeededRandom } from '../store/random.js';
import { transliterate, userRecord } from '../store/seed/people.js';
import { startFormValue } from '../store/seed/workflow.js';
import { isoDay, newFaker } from '../store/seed/context.js';
import { mainEmployment } from '../store/seed/organisation.js';
import { findById, type CollectionName, type Tenant } from '../store/store.js';
import type { RecordDraft } from './record-draft.js';
import { references } from './references.js';
import { chiefOf } from './workflow.js';

type Fields = Record<string, unknown>;

/**
 * What a factory draws from and writes with: one record's seeded draws, the tenant (as the draft of the call sees
 * it: the records made before this one are in it), and the sandbox's time.
 */
export type FactoryContext = {
  draft: RecordDraft;
  tenant: Tenant;
  now: Date;
  random: SeededRandom;
  /** a faker in the tenant's locale, seeded for this record (made on first use) */
  faker(): Faker;
};

/** A record another one needs: inserted after it (and answered in `dependents`). */
export type Dependent = { collection: CollectionName; record: Fields };
/** joins: the user groups a made user joins (changed, not answered: a group holds every member) */
export type Made = { record: Fields; dependents: Dependent[]; joins?: string[] };

// One faker per locale, reseeded before each record: building one costs more than a whole create, and a reseeded
// faker keeps nothing of the record before (each draw depends on the seed and the calls since).
const fakers = new Map<string, Faker>();
function fakerOf(locale: 'ru' | 'en', seed: number, now: Date): Faker {
  let faker = fakers.get(locale);
  if (!faker) {
    faker = newFaker(locale);
    fakers.set(locale, faker);
  }
  faker.seed(seed);
  faker.setDefaultRefDate(now);
  return faker;
}

/** The draws of one record: minted by the store, so they follow its sequence (and a rollback takes them back). */
export function factoryContext(draft: RecordDraft, collection: string, now: Date): FactoryContext {
  const bytes = draft.mint(`factory:${collection}`);
  const tenant = draft.tenant;
  let faker: Faker | undefined;
  return {
    draft,
    tenant,
    now,
    random: new SeededRandom(bytes.toString('hex')),
    faker: () => {
      faker ??= fakerOf(tenant.tenant.locale, bytes.readUInt32BE(0), now);
      return faker;
    },
  };
}

/** Fills the fields `input` leaves out; the fields given are kept as given (the caller checks the result whole). */
export function makeRecord(ctx: FactoryContext, collection: CollectionName, schema: TObject, input: Fields): Made {
  const own = factories[collection];
  if (own) return own(ctx, input, schema);
  return { record: fillFields(ctx, collection, schema, input), dependents: [] };
}

// ---------------------------------------------------------------- the schema-driven filler

type Filler = (ctx: FactoryContext, record: Fields) => unknown;

const hoursAfter = (stamp: unknown, hours: number) =>
  new Date(Date.parse(String(stamp)) + hours * 3600_000).toISOString();
const capitalised = (text: string) => text.charAt(0).toLocaleUpperCase() + text.slice(1);
const recordIn = <T>(tenant: Tenant, collection: CollectionName, id: unknown) =>
  typeof id === 'string' ? (findById(tenant[collection] as readonly { id: string }[], id) as T | undefined) : undefined;

/** What a list holds that `keep` keeps, carried over the records a draft appends (not a scan per record). */
const kept = <T>(ctx: FactoryContext, key: string, list: readonly T[], keep: (item: T) => boolean): readonly T[] =>
  ctx.draft.derive(
    key,
    list,
    (items) => items.filter(keep),
    (out, added) => {
      for (const item of added) if (keep(item)) out.push(item);
      return out;
    },
  );

/** The departments at the bottom of the tree (the deepest level). */
type Deepest = { level: number; departments: Tenant['departments'][number][] };
const deepestOf = (list: Tenant['departments'], from: Deepest = { level: -Infinity, departments: [] }): Deepest => {
  for (const d of list) {
    if (d.level > from.level) from = { level: d.level, departments: [d] };
    else if (d.level === from.level) from.departments.push(d);
  }
  return from;
};

/** A sensible record to name: an active user, a department at the bottom of the tree, else any. */
function pickRecord(ctx: FactoryContext, target: CollectionName, path: string): { id: string } {
  const all = ctx.tenant[target] as readonly { id: string }[];
  let candidates = all;
  if (target === 'users') candidates = kept(ctx, 'active users', ctx.tenant.users, (u) => u.state === 'active');
  if (target === 'departments')
    candidates = ctx.draft.derive('deepest departments', ctx.tenant.departments, deepestOf, (value, added) =>
      deepestOf(added, value),
    ).departments;
  if (candidates.length === 0)
    throw fail.badRequest(`${path}: the tenant has no ${target} record to name; give ${path} or create one first`, [
      { field: `body.${path}`, message: `no ${target} record to name` },
    ]);
  return ctx.random.pick(candidates);
}

/** A text for a field, by what its name says it holds. */
function textFor(ctx: FactoryContext, key: string, record: Fields): string {
  const faker = ctx.faker();
  if (/url$/i.test(key)) return `/images/${key.replace(/Url$/i, '') || 'item'}/${String(record.id)}.svg`;
  if (/^(title|name)$/.test(key)) return capitalised(faker.lorem.words(3));
  if (/^(description|text|lead|comment|brief|body)$/.test(key)) return faker.lorem.sentence();
  if (key === 'address') return faker.location.streetAddress();
  if (key === 'phone') return faker.phone.number({ style: 'international' });
  if (/color$/i.test(key)) return faker.color.rgb();
  if (key === 'author') return faker.person.fullName();
  if (key === 'secretHash') return hashSecret(ctx.random.uuid());
  if (/(token|code)$/i.test(key)) return ctx.random.numeric(12);
  return faker.lorem.word();
}

/** A value for a field of the schema: a reference names a sensible record, the rest by type and name. */
function valueFor(ctx: FactoryContext, collection: CollectionName, s: TSchema, path: string, record: Fields): unknown {
  const anyOf = s.anyOf as TSchema[] | undefined;
  if (anyOf) {
    // a nullable field is null (no organiser, not yet seen, no end); an enumeration takes its first value
    if (anyOf.some((o) => o.type === 'null')) return null;
    const literal = anyOf.find((o) => o.const !== undefined);
    if (literal) return literal.const;
    return valueFor(ctx, collection, anyOf[0]!, path, record);
  }
  const key = path.split('.').at(-1) ?? path;
  const target = references[collection]?.[path];
  if (s.const !== undefined) return s.const;
  switch (s.type) {
    case 'string':
      if (target) return pickRecord(ctx, target, path).id;
      if (s.format === 'uuid') return ctx.random.uuid();
      if (s.format === 'date-time') return ctx.now.toISOString();
      if (s.format === 'date') return isoDay(ctx.now);
      if (s.format === 'email') return `user.${ctx.random.numeric(8)}@${ctx.tenant.tenant.domain}`;
      return textFor(ctx, key, record);
    case 'integer':
    case 'number':
      if (typeof s.minimum === 'number') return s.minimum;
      return typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object': {
      if (!s.properties) return {};
      const out: Fields = {};
      for (const [k, v] of Object.entries(s.properties as Record<string, TSchema>))
        out[k] = valueFor(ctx, collection, v, `${path}.${k}`, out);
      return out;
    }
    default:
      return null;
  }
}

/** Every field of the schema `input` leaves out, in the schema's order (later fields may read earlier ones). */
function fillFields(ctx: FactoryContext, collection: CollectionName, schema: TObject, input: Fields): Fields {
  const record: Fields = { ...input };
  const own = fieldFillers[collection] ?? {};
  for (const [key, s] of Object.entries(schema.properties as Record<string, TSchema>)) {
    if (record[key] !== undefined) continue;
    const filler = own[key];
    record[key] = filler ? filler(ctx, record) : valueFor(ctx, collection, s, key, record);
  }
  // the schema's order, so a created record reads as a seeded one does
  return Object.fromEntries(Object.keys(schema.properties).map((key) => [key, record[key]]));
}

/** Fields where the schema alone would make a record the portal reads wrongly. */
const fieldFillers: { [K in CollectionName]?: Record<string, Filler> } = {
  departments: {
    // under the root, not a second root: the structure screens walk one tree
    parentId: (ctx) => ctx.tenant.departments.find((d) => d.level === 0)?.id ?? null,
    path: (ctx, r) => {
      const parent = recordIn<{ path: string }>(ctx.tenant, 'departments', r.parentId);
      return parent ? `${parent.path} / ${String(r.name)}` : String(r.name);
    },
    level: (ctx, r) => (recordIn<{ level: number }>(ctx.tenant, 'departments', r.parentId)?.level ?? -1) + 1,
  },
  employments: {
    departmentId: (ctx, r) =>
      recordIn<UserRecord>(ctx.tenant, 'users', r.userId)?.departmentId ??
      pickRecord(ctx, 'departments', 'departmentId').id,
    position: (ctx, r) => recordIn<UserRecord>(ctx.tenant, 'users', r.userId)?.position ?? textFor(ctx, 'position', r),
    isMain: (ctx, r) => !mainEmployed(ctx).has(String(r.userId)),
    statusId: () => 1,
    employmentDate: (ctx, r) => recordIn<UserRecord>(ctx.tenant, 'users', r.userId)?.hiredAt ?? isoDay(ctx.now),
    originId: (ctx) => originId(ctx),
    originOrganizationId: () => 'ORG-1',
    organizationName: (ctx) => organizationName(ctx.tenant),
    rate: () => 1,
  },
  userGroups: {
    iconUrl: (_ctx, r) => `/images/user-group/${String(r.id)}.svg`,
    conditionsReadable: () => 'opt-in',
  },
  devices: { platform: () => 'ios', model: () => 'iPhone 15', osVersion: () => '17.4', appVersion: () => '2.0.0' },
  meetingPlaces: { capacity: (ctx) => ctx.random.int(4, 30) },
  files: {
    name: (ctx) => `${ctx.faker().lorem.word()}.pdf`,
    ext: () => 'pdf',
    mimeType: () => 'application/pdf',
    fileType: () => 'document',
  },
  sessions: {
    // the device's own user: a session of one user on another's device is no state the portal makes
    userId: (ctx, r) =>
      recordIn<{ userId: string }>(ctx.tenant, 'devices', r.deviceId)?.userId ?? pickRecord(ctx, 'users', 'userId').id,
    expiresAt: (ctx) => hoursAfter(ctx.now.toISOString(), 24),
  },
  wfCategories: {
    title: (_ctx, r) => r.name,
    hashId: (ctx) => ctx.random.numeric(10),
    slug: (_ctx, r) => transliterate(String(r.name)),
    contentStyleId: () => 1,
  },
  wfProcesses: {
    statusId: () => 1,
    stages: (ctx) => [
      { id: ctx.random.uuid(), name: capitalised(ctx.faker().lorem.words(2)), fields: [], responsibleIds: [] },
    ],
    stageMinutes: () => 10,
  },
  notifications: { kind: () => 'system' },
  orgEmploymentFiles: {
    employmentId: (ctx, r) => {
      const own = employmentsOf(ctx).get(String(r.userId)) ?? [];
      if (own.length === 0)
        throw fail.badRequest('employmentId: the user has no employment; give employmentId or create one first', [
          { field: 'body.employmentId', message: 'the user has no employment' },
        ]);
      return (own.find((e) => e.isMain) ?? own[0]!).id;
    },
    customId: (ctx) => `${ctx.tenant.tenant.locale === 'ru' ? 'ЗД' : 'REQ'}-${ctx.random.numeric(6)}`,
  },
  articles: {
    body: (ctx) => `<p>${ctx.faker().lorem.paragraph()}</p>`,
  },
  calendarEvents: {
    organizerId: (ctx) => pickRecord(ctx, 'users', 'organizerId').id,
    endAt: (_ctx, r) => hoursAfter(r.startAt, 1),
  },
  ideas: { statusId: () => 2 },
  // what is due or ends lies ahead, as in the seeded world: a widget lists only what is still open
  learningCourses: { dueDate: (ctx) => isoDay(new Date(ctx.now.getTime() + 14 * 86_400_000)) },
  surveys: { endsAt: (ctx) => hoursAfter(ctx.now.toISOString(), 14 * 24) },
  contests: { endsAt: (ctx) => hoursAfter(ctx.now.toISOString(), 14 * 24) },
  walletTransactions: {
    recipientWalletId: (ctx) => pickRecord(ctx, 'wallets', 'recipientWalletId').id,
    amount: (ctx) => ctx.random.int(1, 10) * 100,
    operationTypeId: () => 4,
  },
  feedback: {
    targetId: (ctx, r) => pickRecord(ctx, r.targetType === 'department' ? 'departments' : 'users', 'targetId').id,
    score: (ctx) => ctx.random.int(3, 5),
  },
};

type Employment = Tenant['employments'][number];
/** The users with a main employment. */
const mainEmployed = (ctx: FactoryContext) =>
  ctx.draft.derive('main employments', ctx.tenant.employments, (list) => addMain(new Set<string>(), list), addMain);
const addMain = (set: Set<string>, list: readonly Employment[]) => {
  for (const e of list) if (e.isMain) set.add(e.userId);
  return set;
};
/** Each user's employments, in store order. */
const employmentsOf = (ctx: FactoryContext) =>
  ctx.draft.derive(
    'employments by user',
    ctx.tenant.employments,
    (list) => addByUser(new Map<string, Employment[]>(), list),
    addByUser,
  );
const addByUser = (map: Map<string, Employment[]>, list: readonly Employment[]) => {
  for (const e of list) {
    const own = map.get(e.userId);
    if (own) own.push(e);
    else map.set(e.userId, [e]);
  }
  return map;
};

const originId = (ctx: FactoryContext) =>
  `${ctx.tenant.tenant.locale === 'ru' ? 'ТН' : 'EMP'}-${String(ctx.random.int(500_000, 999_999))}`;
const organizationName = (tenant: Tenant) =>
  tenant.employments.find((e) => e.originOrganizationId === 'ORG-1')?.organizationName ?? tenant.tenant.name;

// ---------------------------------------------------------------- users

type User = Tenant['users'][number];
/** The e-mails of the tenant's users as written, and in lower case (sign-in finds users by it). */
const emailsOf = (ctx: FactoryContext) =>
  ctx.draft.derive(
    'e-mails',
    ctx.tenant.users,
    (list) => addEmails({ exact: new Set(), lower: new Set() }, list),
    addEmails,
  );
const addEmails = (sets: { exact: Set<string>; lower: Set<string> }, list: readonly User[]) => {
  for (const u of list) {
    sets.exact.add(u.email);
    sets.lower.add(u.email.toLowerCase());
  }
  return sets;
};

/** Whether a user has the e-mail, as written or (`lower`) in lower case: one scan for one record, sets for many. */
function emailTaken(ctx: FactoryContext, email: string, { lower }: { lower: boolean }): boolean {
  if (ctx.draft.many) return (lower ? emailsOf(ctx).lower : emailsOf(ctx).exact).has(email);
  return ctx.tenant.users.some((u) => (lower ? u.email.toLowerCase() : u.email) === email);
}

/** A unique e-mail as the seeder makes one: first.last@tenant.test, numbered when taken. */
function uniqueEmail(ctx: FactoryContext, first: string, last: string): string {
  const { tenant } = ctx;
  // the seeder writes e-mails in lower case, as this does
  const taken = (email: string) => emailTaken(ctx, email, { lower: false });
  const local = `${transliterate(first)}.${transliterate(last)}`;
  const domain = `${tenant.tenant.domain.split('.')[0]}.test`;
  let email = `${local}@${domain}`;
  for (let n = 2; taken(email); n++) email = `${local}${n}@${domain}`;
  return email;
}

/**
 * An employee as the seeder makes one (names in the tenant's locale, the demo password, an employee's rights, a
 * department at the bottom of the tree), with its main employment (a dependent), and a member of the groups whose
 * rule it meets (everyone; managers when a boss; newcomers when hired in the last 90 days; changed, not answered).
 */
function makeUser(ctx: FactoryContext, input: Fields, schema: TObject): Made {
  const { tenant, now } = ctx;
  const faker = ctx.faker();
  const email = typeof input.email === 'string' ? input.email.toLowerCase() : undefined;
  if (email && emailTaken(ctx, email, { lower: true }))
    throw fail.conflict(`email: a user "${email}" exists in tenant ${tenant.tenant.id}; sign-in finds users by e-mail`);
  const gender = (input.gender as 'male' | 'female' | undefined) ?? ctx.random.pick(['male', 'female'] as const);
  const firstName = (input.firstName as string | undefined) ?? faker.person.firstName(gender);
  const lastName = (input.lastName as string | undefined) ?? faker.person.lastName(gender);
  const middleName =
    input.middleName !== undefined
      ? (input.middleName as string | null)
      : tenant.tenant.locale === 'ru'
        ? faker.person.middleName(gender)
        : null;
  const hired = faker.date.past({ years: 8, refDate: now });
  const employee = kept(ctx, 'employees', tenant.users, (u) => !u.isBoss && u.state === 'active');
  const id = input.id as string;
  const made = userRecord({
    id,
    email: email ?? uniqueEmail(ctx, firstName, lastName),
    firstName,
    lastName,
    middleName,
    gender,
    position: employee.length > 0 ? ctx.random.pick(employee).position : capitalised(faker.lorem.word()),
    departmentId: (input.departmentId as string | undefined) ?? pickRecord(ctx, 'departments', 'departmentId').id,
    phone: faker.phone.number({ style: 'international' }),
    birthday: isoDay(faker.date.birthdate({ mode: 'age', min: 20, max: 64, refDate: now })),
    hiredAt: isoDay(hired),
    createdAt: hired.toISOString(),
    lastLoginAt: null,
    regStatusId: 2,
  });
  const user = { ...made, ...input } as UserRecord;
  const record = Object.fromEntries(Object.keys(schema.properties).map((key) => [key, user[key as keyof UserRecord]]));
  const employment = mainEmployment(user, {
    id: ctx.random.uuid(),
    originId: originId(ctx),
    organizationName: organizationName(tenant),
  });
  const recent = isoDay(new Date(now.getTime() - 90 * 86_400_000));
  const joins = (rule: string) =>
    rule === '*' || (rule === 'isBoss' && user.isBoss) || (rule.startsWith('hiredAt') && user.hiredAt >= recent);
  const groups = tenant.userGroups
    .filter((g) => joins(g.conditionsReadable) && !ctx.draft.isMember(g, user.id))
    .map((g) => g.id);
  return { record, dependents: [{ collection: 'employments', record: employment }], joins: groups };
}

// ---------------------------------------------------------------- workflow tickets

const WfStatus = { inProgress: 1, solved: 2 } as const;

/**
 * A ticket of a process the author may start (a visible one, unless `processId` is given), with its form filled,
 * its stages' responsible users (the author's chief on the first stage when the process asks for one), and a
 * history that fits its status: in progress it entered its stage now; solved, rejected or cancelled it was
 * closed half a stage after entering its stage.
 */
function makeTicket(ctx: FactoryContext, input: Fields, schema: TObject): Made {
  const { tenant } = ctx;
  const userId = (input.userId as string | undefined) ?? pickRecord(ctx, 'users', 'userId').id;
  const user = recordIn<UserRecord>(tenant, 'users', userId);
  let process = recordIn<WfProcessRecord>(tenant, 'wfProcesses', input.processId);
  if (!process) {
    const groups = new Set(tenant.userGroups.filter((g) => ctx.draft.isMember(g, userId)).map((g) => g.id));
    const startable = tenant.wfProcesses.filter(
      (p) => !p.isHidden && (p.visibleGroupIds.length === 0 || p.visibleGroupIds.some((g) => groups.has(g))),
    );
    if (startable.length === 0)
      throw fail.badRequest('processId: the tenant has no process the author may start; give processId', [
        { field: 'body.processId', message: 'no process to name' },
      ]);
    process = ctx.random.pick(startable);
  }
  const p = process;
  const statusId = (input.statusId as number | undefined) ?? WfStatus.inProgress;
  let index: number;
  if (input.stageId !== undefined) {
    index = p.stages.findIndex((s) => s.id === input.stageId);
    if (index < 0) {
      const stages = p.stages.map((s) => s.id).join(', ');
      throw fail.badRequest(
        `stageId: "${String(input.stageId).slice(0, 80)}" is not a stage of process ${p.id}; its stages: ${stages}`,
        [{ field: 'body.stageId', message: 'not a stage of the process' }],
      );
    }
  } else if (statusId === WfStatus.inProgress) index = 0;
  else if (statusId === WfStatus.solved) index = p.stages.length - 1;
  else index = ctx.random.int(0, p.stages.length - 1);
  const stage = p.stages[index]!;
  const step = p.stageMinutes * 60_000;
  const now = ctx.now.getTime();
  const created = statusId === WfStatus.inProgress ? now - index * step : now - (index + 1) * step;
  const entered = created + index * step;
  const closed = new Date(entered + Math.floor(step / 2)).toISOString();
  const at = (ms: number) => new Date(ms).toISOString();
  const history = p.stages
    .slice(0, index + 1)
    .map((s, k) => ({ at: at(created + k * step), stageId: s.id, statusId: 1 }));
  if (statusId !== WfStatus.inProgress) history.push({ at: closed, stageId: stage.id, statusId });
  const responsible: Record<string, string[]> = Object.fromEntries(p.stages.map((s) => [s.id, [...s.responsibleIds]]));
  const chief = p.isChiefRequired && user ? chiefOf(tenant, user) : null;
  if (chief) responsible[p.stages[0]!.id] = [chief.id];
  const given = (input.fieldValues as Record<string, string> | undefined) ?? {};
  const made: WfTicketRecord = {
    id: input.id as string,
    processId: p.id,
    categoryId: p.categoryId,
    userId,
    stageId: stage.id,
    statusId,
    createdAt: at(created),
    updatedAt: statusId === WfStatus.inProgress ? at(entered) : closed,
    solvedAt: statusId === WfStatus.solved ? closed : null,
    stageEnteredAt: at(entered),
    fieldValues: {
      ...Object.fromEntries(p.fields.map((f) => [f.id, f.defaultValue ?? startFormValue(ctx.faker(), f, ctx.now)])),
      ...given,
    },
    responsible,
    history,
  };
  const ticket = { ...made, ...input, fieldValues: made.fieldValues } as WfTicketRecord;
  const record = Object.fromEntries(
    Object.keys(schema.properties).map((key) => [key, ticket[key as keyof WfTicketRecord]]),
  );
  return { record, dependents: [] };
}

/** The collections with a factory of their own. */
const factories: { [K in CollectionName]?: (ctx: FactoryContext, input: Fields, schema: TObject) => Made } = {
  users: makeUser,
  wfTickets: makeTicket,
};
