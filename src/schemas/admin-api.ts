// API shapes of the administrative and integration operations: personal tokens, the user list cache,
// wallets and their transactions, file processing, and the administrative employment index.
import { Type, type Static } from '@sinclair/typebox';
import { ActionResult, assumed, Nullable, Page, PageQuery, PersonBrief, ref, Stamp, Uuid } from './common.js';
import { ColumnMapping, FileProcessingRecord, ProcessingResult } from './integration-records.js';
import { employmentHrFields } from './people.js';

const Range = (what: string) =>
  Type.Optional(
    Type.String({
      maxLength: 50,
      description: `${what}: range yyyy-MM-dd|yyyy-MM-dd (either side may be empty); a time of day gives 422`,
    }),
  );

// ---------- personal tokens ----------
export const PersonalToken = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    user_id: Uuid,
    user: ref(PersonBrief),
    created_at: Stamp,
    last_used_at: Nullable(Stamp),
    expires_at: Nullable(Stamp),
    revoked_at: Nullable(Stamp),
    active: Type.Boolean({ description: 'not revoked and not expired' }),
  },
  { $id: 'PersonalToken', ...assumed('A personal API token; never carries the clear value.') },
);
export type PersonalToken = Static<typeof PersonalToken>;

export const CreatedPersonalToken = Type.Object(
  {
    token: Type.String({
      description:
        'the clear value `pmt_<id>_<secret>`: shown only in this answer, send it as `Authorization: Bearer <token>`',
    }),
    record: ref(PersonalToken),
  },
  { $id: 'CreatedPersonalToken', ...assumed() },
);
export type CreatedPersonalToken = Static<typeof CreatedPersonalToken>;

export const PersonalTokenCreateBody = Type.Object(
  {
    name: Type.Optional(Type.String({ description: 'a label, 1 to 100 characters' })),
    expiresAt: Type.Optional(
      Nullable(Type.String({ description: 'ISO 8601 date-time in the future; absent or null: never expires' })),
    ),
  },
  assumed(),
);
export const PersonalTokenList = Type.Object(
  { data: Type.Array(ref(PersonalToken)) },
  { $id: 'PersonalTokenList', ...assumed() },
);
export const PersonalTokenPage = Page(ref(PersonalToken), { $id: 'PersonalTokenPage' });
export const PersonalTokenCreateResult = ActionResult(ref(CreatedPersonalToken), {
  $id: 'PersonalTokenCreateResult',
  ...assumed(),
});
export const PersonalTokenRevokeResult = ActionResult(ref(PersonalToken), {
  $id: 'PersonalTokenRevokeResult',
  ...assumed(),
});

// ---------- user list cache ----------
export const UserListBody = Type.Object(
  {
    usersId: Type.Optional(Type.Array(Uuid)),
    departmentsId: Type.Optional(
      Type.Array(Uuid, assumed('every user of these departments and their sub-departments')),
    ),
    userGroupsId: Type.Optional(Type.Array(Uuid, assumed('every member of these user groups'))),
    excludeUsersId: Type.Optional(Type.Array(Uuid, assumed('removed from the expanded selection'))),
  },
  { $id: 'UserListSelection', description: 'A selection of users; only `usersId` is named by the API description' },
);
export const UserListSetBody = Type.Object({
  key: Type.Optional(Type.String({ maxLength: 200, description: 'a key chosen by the client, 1 to 200 characters' })),
  userList: Type.Optional(ref(UserListBody)),
});
export const UserListSetResult = Type.Object(
  {
    success: Type.Boolean(),
    key: Nullable(Type.String(), assumed()),
    errors: Type.Optional(Type.Array(Type.String())),
  },
  { $id: 'UserListSetResult', ...assumed() },
);

export const UserListUser = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    email: Type.String(),
    position: Type.String(),
    departmentId: Uuid,
    departmentName: Type.String(),
    faceUrl: Type.String(),
  },
  { $id: 'UserListUser', ...assumed() },
);
export const NamedRef = Type.Object({ id: Uuid, name: Type.String() }, { $id: 'NamedRef', ...assumed() });
export const UserListData = Type.Object(
  {
    key: Type.String(),
    users: Type.Array(ref(UserListUser), {
      description: 'the expanded selection: users ∪ departments ∪ groups, less excluded, without hidden users',
    }),
    departments: Type.Array(ref(NamedRef)),
    userGroups: Type.Array(ref(NamedRef)),
    excludeUsers: Type.Array(ref(NamedRef), assumed()),
    usersCount: Type.Integer({ minimum: 0, ...assumed() }),
    created_at: Type.String({ format: 'date-time', ...assumed() }),
  },
  { $id: 'UserListData' },
);
export type UserListData = Static<typeof UserListData>;

// ---------- wallets ----------
export const Wallet = Type.Object(
  {
    id: Uuid,
    user_id: Uuid,
    user: ref(PersonBrief),
    department_id: Uuid,
    balance: Type.Number({ description: "the sum of the wallet's transactions" }),
    created_at: Stamp,
    updated_at: Stamp,
  },
  { $id: 'Wallet', ...assumed('A wallet of an employee (one per user).') },
);
export type Wallet = Static<typeof Wallet>;
export const WalletPage = Page(ref(Wallet), { $id: 'WalletPage' });

export const WalletTransaction = Type.Object(
  {
    id: Uuid,
    sender_wallet_id: Nullable(Uuid),
    recipient_wallet_id: Nullable(Uuid),
    sender: Nullable(ref(PersonBrief)),
    recipient: Nullable(ref(PersonBrief)),
    amount: Type.Number({ minimum: 0.01, description: 'greater than 0, at most 2 decimals' }),
    operation_type_id: Type.Integer({
      description:
        '1 credit, 2 debit, 3 transfer, 4 bonus, 5 purchase, 9 purchase ' +
        'cancellation (only 9 is named by the API description)',
    }),
    operation_type: Type.String({ description: 'readable name of the operation type' }),
    comment: Type.String(),
    entity_id: Nullable(Type.String()),
    reference_id: Nullable(Type.String()),
    created_by: Nullable(Uuid),
    created_at: Stamp,
  },
  {
    $id: 'WalletTransaction',
    ...assumed('A transaction: a debit has only a sender, a credit only a recipient, a transfer both.'),
  },
);
export type WalletTransaction = Static<typeof WalletTransaction>;
export const WalletTransactionPage = Page(ref(WalletTransaction), { $id: 'WalletTransactionPage' });

export const WalletQuery = Type.Object(
  {
    ...PageQuery,
    user_id: Type.Optional(Type.String({ description: 'comma-separated user ids' })),
    department_id: Type.Optional(
      Type.String({ description: 'comma-separated department ids (sub-departments included)' }),
    ),
    user_list_key: Type.Optional(Type.String({ description: 'owners in this user-list-cache selection' })),
    name: Type.Optional(Type.String({ description: 'text search in the owner name and e-mail' })),
  },
  assumed(),
);
export type WalletQuery = Static<typeof WalletQuery>;

export const WalletTransactionQuery = Type.Object(
  {
    ...PageQuery,
    sender_wallet_id: Type.Optional(Type.String({ description: 'comma-separated wallet ids' })),
    recipient_wallet_id: Type.Optional(Type.String({ description: 'comma-separated wallet ids' })),
    wallet_id: Type.Optional(Type.String({ description: 'either side (assumed)' })),
    sender_user_list_key: Type.Optional(Type.String({ description: 'sender owner in this user-list-cache selection' })),
    recipient_user_list_key: Type.Optional(Type.String({ description: 'recipient owner in this selection' })),
    wallet_user_list_key: Type.Optional(Type.String({ description: "either side's owner in this selection" })),
    department_id: Type.Optional(
      Type.String({ description: "either side's owner in these departments (sub-departments included)" }),
    ),
    entity_id: Type.Optional(Type.String()),
    reference_id: Type.Optional(Type.String()),
    operation_type_id: Type.Optional(
      Type.String({ pattern: '^[0-9]+(,[0-9]+)*$', description: 'comma-separated (assumed)' }),
    ),
    created_at: Range('created_at'),
  },
  assumed('Only the filters named by the API description are guaranteed.'),
);
export type WalletTransactionQuery = Static<typeof WalletTransactionQuery>;

export const WalletTransactionCreateBody = Type.Object(
  {
    usersListKey: Type.Optional(
      Type.String({ description: 'a key from /user-list-cache/set-user-list: the recipients' }),
    ),
    amount: Type.Optional(
      Type.Union([Type.Number(), Type.String()], { description: 'per user, > 0, at most 2 decimals' }),
    ),
    operation_type_id: Type.Optional(
      Type.Union([Type.Integer(), Type.String()], {
        description: 'credit types 1, 4, 9; debit types 2, 5; transfer 3 (needs sender_wallet_id)',
      }),
    ),
    comment: Type.Optional(Type.String({ maxLength: 1000 })),
    sender_wallet_id: Type.Optional(Type.String({ description: 'the paying wallet of a transfer (type 3)' })),
    entity_id: Type.Optional(Type.String({ maxLength: 200 })),
    reference_id: Type.Optional(Type.String({ maxLength: 200 })),
  },
  assumed('Only usersListKey is named by the API description.'),
);
export type WalletTransactionCreateBody = Static<typeof WalletTransactionCreateBody>;

export const TransactionBatch = Type.Object(
  {
    count: Type.Integer({ minimum: 0 }),
    total_amount: Type.Number(),
    transactions: Type.Array(ref(WalletTransaction)),
  },
  { $id: 'TransactionBatch', ...assumed() },
);
export type TransactionBatch = Static<typeof TransactionBatch>;
export const TransactionBatchResult = ActionResult(ref(TransactionBatch), { $id: 'TransactionBatchResult' });

// ---------- file processing ----------
export const FileProcessing = Type.Object(
  {
    id: Uuid,
    file: Type.Object({
      id: Uuid,
      name: Type.String(),
      url: Type.String({ description: 'absolute download address' }),
    }),
    created: Stamp,
    started: Nullable(Stamp),
    finished: Nullable(Stamp),
    status: Type.Union(
      ['queued', 'processing', 'finished', 'failed'].map((s) => Type.Literal(s)),
      assumed(),
    ),
    // the stored job's own arguments and result, as the API shows them (src/domain/file-processing.ts)
    arguments: FileProcessingRecord.properties.arguments,
    result: Nullable(Type.Object(ProcessingResult.properties, assumed('parsed rows with per-row problems'))),
  },
  { $id: 'FileProcessing', description: 'A background processing of an uploaded file, for polling' },
);
export type FileProcessing = Static<typeof FileProcessing>;
export const FileProcessingPage = Page(ref(FileProcessing), { $id: 'FileProcessingPage' });
export const FileProcessingResult = ActionResult(ref(FileProcessing), { $id: 'FileProcessingResult' });

export const ExcelProcessingBody = Type.Object(
  {
    file_id: Type.Optional(Type.String({ description: 'an UPLOADED file (.xlsx or .csv) from the upload flow' })),
    mapping: Type.Optional(
      Type.Object(Type.Partial(ColumnMapping).properties, {
        description:
          'column of each field: a letter (A, B, … AA) or a 1-based number; email or user_id, and amount, are required',
      }),
    ),
    first_row: Type.Optional(
      Type.Integer({ minimum: 1, description: 'first data row, 1-based; default 2 (row 1 holds headers)' }),
    ),
    file_processing_id: Type.Optional(
      Type.String({
        description:
          'when given instead of file_id: answers the state of that processing; ' +
          'an unknown id answers success false with a warning message',
      }),
    ),
  },
  assumed('Only file_id and "column mappings" are named by the API description.'),
);
export type ExcelProcessingBody = Static<typeof ExcelProcessingBody>;

export const CreateFromExcelBody = Type.Object(
  {
    file_processing_id: Type.Optional(Type.String()),
    operation_type_id: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
    comment: Type.Optional(Type.String({ maxLength: 1000, description: 'used for rows without a comment' })),
    sender_wallet_id: Type.Optional(Type.String({ description: 'for a transfer (type 3)' })),
  },
  assumed('Only file_processing_id is named by the API description.'),
);
export type CreateFromExcelBody = Static<typeof CreateFromExcelBody>;

// ---------- administrative employment ----------
export const AdminEmployment = Type.Object(
  {
    id: Uuid,
    user_id: Uuid,
    user: ref(PersonBrief),
    email: Type.String(),
    reg_status_id: Type.Integer({ description: '1 invited, 2 registered, 3 declined' }),
    department_id: Uuid,
    department_name: Type.String(),
    chief_id: Nullable(Uuid, { description: 'head of the department' }),
    position: Type.String(),
    is_main: Type.Boolean(),
    ...employmentHrFields,
    organization_name: Type.String(),
    rate: Type.Number(),
    created_at: Stamp,
  },
  { $id: 'AdminEmployment', ...assumed('An employment as the administrative index shows it.') },
);
export type AdminEmployment = Static<typeof AdminEmployment>;
export const AdminEmploymentPage = Page(ref(AdminEmployment), { $id: 'AdminEmploymentPage' });

const Bool = Type.Optional(Type.Union(['0', '1', 'true', 'false'].map((v) => Type.Literal(v))));
export const AdminEmploymentQuery = Type.Object({
  ...PageQuery,
  'origin_id[]': Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { description: 'repeatable' })),
  origin_id: Type.Optional(Type.String({ description: 'comma-separated (assumed, besides origin_id[])' })),
  origin_organization_id: Type.Optional(Type.String()),
  'user_id[]': Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { description: 'repeatable' })),
  user_id: Type.Optional(Type.String({ description: 'comma-separated (assumed, besides user_id[])' })),
  department_id: Type.Optional(Type.String({ description: 'comma-separated; sub-departments not included' })),
  chief_id: Type.Optional(Type.String({ description: "head of the employment's department" })),
  is_main: Bool,
  status_id: Type.Optional(Type.String({ pattern: '^[0-9]+(,[0-9]+)*$' })),
  reg_status_id: Type.Optional(Type.String({ pattern: '^[0-9]+(,[0-9]+)*$' })),
  employment_date: Range('employment_date'),
  fired_date: Range('fired_date'),
  created_at: Range('created_at'),
  name: Type.Optional(Type.String({ description: 'text search in the user name' })),
  position: Type.Optional(Type.String({ description: 'text search in the position' })),
  user_list_key: Type.Optional(Type.String()),
  multipleEmployment: Bool,
});
export type AdminEmploymentQuery = Static<typeof AdminEmploymentQuery>;

export const IdQuery = Type.Object({ id: Uuid });

export const adminApiSchemas = [
  PersonalToken,
  CreatedPersonalToken,
  PersonalTokenList,
  PersonalTokenPage,
  PersonalTokenCreateResult,
  PersonalTokenRevokeResult,
  UserListBody,
  UserListSetResult,
  UserListUser,
  NamedRef,
  UserListData,
  Wallet,
  WalletPage,
  WalletTransaction,
  WalletTransactionPage,
  TransactionBatch,
  TransactionBatchResult,
  FileProcessing,
  FileProcessingPage,
  FileProcessingResult,
  AdminEmployment,
  AdminEmploymentPage,
];
