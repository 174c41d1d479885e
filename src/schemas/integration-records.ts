// Records of the administrative and integration group as the store keeps them:
// user list cache entries, wallets, wallet transactions and file-processing jobs.
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Stamp, Uuid } from './common.js';

export const UserListSelection = Type.Object({
  usersId: Type.Array(Uuid),
  departmentsId: Type.Array(Uuid),
  userGroupsId: Type.Array(Uuid),
  excludeUsersId: Type.Array(Uuid),
});
export type UserListSelection = Static<typeof UserListSelection>;

export const UserListCacheRecord = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 200 }),
  userId: Uuid,
  userList: UserListSelection,
  createdAt: Stamp,
});
export type UserListCacheRecord = Static<typeof UserListCacheRecord>;

export const WalletRecord = Type.Object({
  id: Uuid,
  userId: Uuid,
  /** always the sum of the wallet's transactions (credits minus debits) */
  balance: Type.Number(),
  createdAt: Stamp,
  updatedAt: Stamp,
});
export type WalletRecord = Static<typeof WalletRecord>;

/** A movement of points: from a sender wallet (debit), to a recipient wallet (credit), or both (transfer). */
export const WalletTransactionRecord = Type.Object({
  id: Uuid,
  senderWalletId: Nullable(Uuid),
  recipientWalletId: Nullable(Uuid),
  amount: Type.Number({ exclusiveMinimum: 0 }),
  operationTypeId: Type.Integer({ minimum: 1 }),
  comment: Type.String(),
  entityId: Nullable(Type.String()),
  referenceId: Nullable(Type.String()),
  createdBy: Nullable(Uuid),
  createdAt: Stamp,
});
export type WalletTransactionRecord = Static<typeof WalletTransactionRecord>;

export const ColumnMapping = Type.Object({
  email: Type.Optional(Type.String()),
  user_id: Type.Optional(Type.String()),
  amount: Type.String(),
  comment: Type.Optional(Type.String()),
  entity_id: Type.Optional(Type.String()),
  reference_id: Type.Optional(Type.String()),
});
export type ColumnMapping = Static<typeof ColumnMapping>;

export const ParsedRow = Type.Object({
  row: Type.Integer({ minimum: 1 }),
  userId: Nullable(Uuid),
  email: Nullable(Type.String()),
  userName: Nullable(Type.String()),
  amount: Nullable(Type.Number()),
  comment: Nullable(Type.String()),
  entityId: Nullable(Type.String()),
  referenceId: Nullable(Type.String()),
  valid: Type.Boolean(),
  problems: Type.Array(Type.String()),
});
export type ParsedRow = Static<typeof ParsedRow>;

export const ProcessingResult = Type.Object({
  error: Nullable(Type.String()),
  total: Type.Integer({ minimum: 0 }),
  valid: Type.Integer({ minimum: 0 }),
  invalid: Type.Integer({ minimum: 0 }),
  totalAmount: Type.Number(),
  rows: Type.Array(ParsedRow),
  /** set when create-from-excel posted the rows */
  postedAt: Nullable(Stamp),
  transactionIds: Type.Array(Uuid),
});

export const FileProcessingRecord = Type.Object({
  id: Uuid,
  userId: Uuid,
  fileId: Uuid,
  type: Type.Literal('wallet-transaction'),
  created: Stamp,
  started: Nullable(Stamp),
  finished: Nullable(Stamp),
  arguments: Type.Object({ file_id: Uuid, mapping: ColumnMapping, first_row: Type.Integer({ minimum: 1 }) }),
  result: Nullable(ProcessingResult),
});
export type FileProcessingRecord = Static<typeof FileProcessingRecord>;

export const IntegrationCollections = {
  userListCache: Type.Array(UserListCacheRecord),
  wallets: Type.Array(WalletRecord),
  walletTransactions: Type.Array(WalletTransactionRecord),
  fileProcessing: Type.Array(FileProcessingRecord),
};
