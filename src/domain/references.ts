// Which fields of a tenant's records name another record, and of which collection: the one table behind the
// records API's reference checks (a create or patch naming a record that does not exist is refused) and its
// "who names this record" before a delete (docs/data.md). test/control/records-references.test.ts fails when a
// collection gains an id field that is in neither table below.
import { fail } from '../errors.js';
import { findById, type CollectionName, type Tenant } from '../store/store.js';

/**
 * A field path inside one record: names joined by `.`, `[]` for each item of a list, `*` for each value of an
 * object used as a map; `''` is the item itself (a collection of bare ids).
 * @example 'authorId', 'tagIds[]', 'stages[].responsibleIds[]', 'responsible.*[]'
 */
export type FieldPath = string;

/** For each collection, the fields that name a record, and the collection of that record. */
export const references: { readonly [K in CollectionName]?: Readonly<Record<FieldPath, CollectionName>> } = {
  departments: { parentId: 'departments', headId: 'users' },
  users: { departmentId: 'departments' },
  devices: { userId: 'users' },
  sessions: { deviceId: 'devices', userId: 'users' },
  pushTokens: { deviceId: 'devices', userId: 'users' },
  bindLinks: { userId: 'users' },
  twoFactorChallenges: { userId: 'users' },
  personalTokens: { userId: 'users' },
  employments: { userId: 'users', departmentId: 'departments' },
  userGroups: { 'memberIds[]': 'users' },
  files: { userId: 'users' },
  wfCategories: { parentId: 'wfCategories' },
  wfProcesses: {
    categoryId: 'wfCategories',
    'visibleGroupIds[]': 'userGroups',
    'stages[].responsibleIds[]': 'users',
  },
  wfTickets: { processId: 'wfProcesses', categoryId: 'wfCategories', userId: 'users', 'responsible.*[]': 'users' },
  notifications: { userId: 'users' },
  orgEmploymentFiles: { userId: 'users', employmentId: 'employments' },
  calendarUserGroupIds: { '': 'userGroups' },
  learningCourses: { 'assigneeIds[]': 'users' },
  surveys: { 'assigneeIds[]': 'users' },
  achievementAwards: { achievementId: 'achievements', userId: 'users' },
  postcards: { senderId: 'users', recipientId: 'users' },
  articles: { categoryId: 'contentCategories', 'tagIds[]': 'articleTags', authorId: 'users' },
  contentCategories: { parentId: 'contentCategories' },
  calendarEvents: {
    typeId: 'calendarEventTypes',
    organizerId: 'users',
    'participantIds[]': 'users',
    meetingPlaceId: 'meetingPlaces',
    'visibleToGroupIds[]': 'userGroups',
  },
  calendarEventBids: { eventId: 'calendarEvents', userId: 'users' },
  ideas: {
    authorId: 'users',
    performerId: 'users',
    'voterIds[]': 'users',
    'participantIds[]': 'users',
    moderatedBy: 'users',
  },
  ideaComments: { ideaId: 'ideas', userId: 'users' },
  feedback: { authorId: 'users' },
  userListCache: {
    userId: 'users',
    'userList.usersId[]': 'users',
    'userList.departmentsId[]': 'departments',
    'userList.userGroupsId[]': 'userGroups',
    'userList.excludeUsersId[]': 'users',
  },
  wallets: { userId: 'users' },
  walletTransactions: { senderWalletId: 'wallets', recipientWalletId: 'wallets', createdBy: 'users' },
  fileProcessing: {
    userId: 'users',
    fileId: 'files',
    'arguments.file_id': 'files',
    'result.rows[].userId': 'users',
    'result.transactionIds[]': 'walletTransactions',
  },
};

/** Id-like fields that name no record of a collection, and why. */
export const notReferences: Readonly<Record<string, string>> = {
  'wfProcesses.stages[].id': "the stage's own id",
  'wfTickets.stageId': "a stage inside the ticket's process, not a record (the ticket factory checks it)",
  'wfTickets.history[].stageId': "a stage inside the ticket's process, not a record",
  'wfCategories.hashId': 'a short public code of the category, not an id of a record',
  'employments.originId': "the record number in the HR system (outside the portal's data)",
  'employments.originOrganizationId': 'an organisation of the HR system (outside the portal)',
  'orgEmploymentFiles.customId': 'the human-readable request number',
  'orgEmploymentFiles.fileId': "the prepared document's bytes, served by the org-files group, not a files record",
  'feedback.targetId': 'a user or a department, by targetType: two collections (checked as either)',
  'apiKeys.clientId': "the API key's own public name (API keys have no id)",
  'fileProcessing.arguments.mapping.user_id': 'the name of a spreadsheet column holding user ids',
  'fileProcessing.arguments.mapping.entity_id': 'the name of a spreadsheet column',
  'fileProcessing.arguments.mapping.reference_id': 'the name of a spreadsheet column',
  'fileProcessing.result.rows[].entityId': 'a value read from the spreadsheet, passed on to the shop',
  'fileProcessing.result.rows[].referenceId': 'a value read from the spreadsheet, passed on to the shop',
  'walletTransactions.entityId': 'an order or entity of the shop (outside the portal)',
  'walletTransactions.referenceId': 'an external reference of the shop (outside the portal)',
};

const tokensOf = new Map<FieldPath, string[]>();
const tokens = (path: FieldPath) => {
  let found = tokensOf.get(path);
  if (!found) {
    found = path.split('.').flatMap((part) => (part.endsWith('[]') ? [part.slice(0, -2), '[]'] : [part]));
    found = found.filter(Boolean);
    tokensOf.set(path, found);
  }
  return found;
};

function collect(value: unknown, path: readonly string[], at: number, out: string[]): void {
  if (value === null || value === undefined) return;
  if (at === path.length) {
    if (typeof value === 'string') out.push(value);
    return;
  }
  const step = path[at]!;
  if (step === '[]') {
    if (Array.isArray(value)) for (const item of value) collect(item, path, at + 1, out);
  } else if (typeof value === 'object' && !Array.isArray(value)) {
    const fields = value as Record<string, unknown>;
    if (step === '*') for (const item of Object.values(fields)) collect(item, path, at + 1, out);
    else collect(fields[step], path, at + 1, out);
  }
}

/** The ids a record holds at a path (none for null or a missing field). */
export function idsAt(record: unknown, path: FieldPath): string[] {
  const out: string[] = [];
  collect(record, tokens(path), 0, out);
  return out;
}

/** The first field of a path: what a patch must touch for the path to change. */
export const topField = (path: FieldPath) => tokens(path)[0] ?? '';

/** Whether `id` names a record of `collection` in the tenant. */
export function exists(tenant: Tenant, collection: CollectionName, id: string): boolean {
  const list = tenant[collection] as readonly unknown[];
  return findById(list as readonly { id: string }[], id) !== undefined;
}

/**
 * Refuses a record that names a record the tenant does not have (400 naming the field and the id). With `fields`,
 * only paths starting at one of those fields are checked (a patch: fields it did not touch were checked before).
 */
export function checkReferences(
  tenant: Tenant,
  collection: CollectionName,
  record: Record<string, unknown>,
  fields?: ReadonlySet<string>,
): void {
  for (const [path, target] of Object.entries(references[collection] ?? {})) {
    if (fields && !fields.has(topField(path))) continue;
    for (const id of idsAt(record, path)) {
      if (exists(tenant, target, id)) continue;
      throw fail.badRequest(`${path}: no ${target} record "${id.slice(0, 80)}" in tenant ${tenant.tenant.id}`, [
        {
          field: `body.${path.replaceAll('[]', '').replaceAll('*', '')}`.replace(/\.+$/, ''),
          message: `no such ${target} record`,
        },
      ]);
    }
  }
  if (collection === 'feedback' && (!fields || fields.has('targetId') || fields.has('targetType'))) {
    const target = record.targetType === 'department' ? 'departments' : 'users';
    if (typeof record.targetId === 'string' && !exists(tenant, target, record.targetId))
      throw fail.badRequest(
        `targetId: no ${target} record "${record.targetId.slice(0, 80)}" in tenant ${tenant.tenant.id}`,
        [{ field: 'body.targetId', message: `no such ${target} record` }],
      );
  }
}

/** Where the tenant's records name `id` of `collection`, as "collection/id.path" (a record's position without an id). */
export function referrersOf(tenant: Tenant, collection: CollectionName, id: string): string[] {
  const found: string[] = [];
  for (const [name, paths] of Object.entries(references) as Array<
    [CollectionName, Record<FieldPath, CollectionName>]
  >) {
    const pointing = Object.entries(paths).filter(([, target]) => target === collection);
    const feedbackTarget = name === 'feedback' && (collection === 'users' || collection === 'departments');
    if (pointing.length === 0 && !feedbackTarget) continue;
    for (const [i, record] of (tenant[name] as readonly unknown[]).entries()) {
      const key = (record as { id?: unknown }).id;
      // a record naming itself (a department its own parent) does not hold it back
      if (name === collection && key === id) continue;
      const where = `${name}/${typeof key === 'string' ? key : i}`;
      for (const [path] of pointing) if (idsAt(record, path).includes(id)) found.push(`${where}.${path || '(item)'}`);
      if (feedbackTarget) {
        const f = record as { targetType: string; targetId: string };
        if (f.targetId === id && (f.targetType === 'department') === (collection === 'departments'))
          found.push(`${where}.targetId`);
      }
    }
  }
  return found;
}
