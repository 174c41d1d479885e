// Wallets of employees and their transactions. A wallet's balance is always the sum of its transactions
// (credits in, debits out); every change goes through postTransactions so the two never disagree.
import type { UserRecord } from '../schemas/records.js';
import type { WalletRecord, WalletTransactionRecord } from '../schemas/integration-records.js';
import type {
  TransactionBatch,
  Wallet,
  WalletQuery,
  WalletTransaction,
  WalletTransactionCreateBody,
  WalletTransactionQuery,
} from '../schemas/admin-api.js';
import { findById, type Tenant } from '../store/store.js';
import { newUuid } from '../store/ids.js';
import { type DomainContext, personBrief } from './context.js';
import { idList, inDayRange, matchesText, pageOf, parseDayRange, recordById, subtreeIds } from './lists.js';
import { peopleIndex } from './people-index.js';
import { expandSelection, findUserList, userIdsOfKey } from './user-list-cache.js';
import { byStampThenId } from './grouped.js';

/** Operation types; only 9 (purchase cancellation) is named by the API description. */
export const operationTypes = {
  1: { name: 'credit', direction: 'in' },
  2: { name: 'debit', direction: 'out' },
  3: { name: 'transfer', direction: 'transfer' },
  4: { name: 'bonus', direction: 'in' },
  5: { name: 'purchase', direction: 'out' },
  9: { name: 'purchase cancellation', direction: 'in' },
} as const;
export type OperationTypeId = keyof typeof operationTypes;
export const isOperationType = (n: number): n is OperationTypeId => Object.hasOwn(operationTypes, n);

export const roundMoney = (n: number) => Math.round(n * 100) / 100;

/** The balance a wallet must have: the sum of its transactions. */
export function balanceFromTransactions(tenant: Tenant, walletId: string): number {
  let sum = 0;
  for (const t of tenant.walletTransactions) {
    if (t.recipientWalletId === walletId) sum += t.amount;
    if (t.senderWalletId === walletId) sum -= t.amount;
  }
  return roundMoney(sum);
}

export function walletView(ctx: DomainContext, tenant: Tenant, w: WalletRecord): Wallet {
  const owner = findById(tenant.users, w.userId);
  return {
    id: w.id,
    user_id: w.userId,
    user: personBrief(ctx, tenant, w.userId),
    department_id: owner?.departmentId ?? w.userId,
    balance: w.balance,
    created_at: w.createdAt,
    updated_at: w.updatedAt,
  };
}

export function transactionView(ctx: DomainContext, tenant: Tenant, t: WalletTransactionRecord): WalletTransaction {
  const owner = (walletId: string | null) => {
    const w = walletId ? tenant.wallets.find((x) => x.id === walletId) : undefined;
    return w ? personBrief(ctx, tenant, w.userId) : null;
  };
  const type = isOperationType(t.operationTypeId)
    ? operationTypes[t.operationTypeId].name
    : `type ${t.operationTypeId}`;
  return {
    id: t.id,
    sender_wallet_id: t.senderWalletId,
    recipient_wallet_id: t.recipientWalletId,
    sender: owner(t.senderWalletId),
    recipient: owner(t.recipientWalletId),
    amount: t.amount,
    operation_type_id: t.operationTypeId,
    operation_type: type,
    comment: t.comment,
    entity_id: t.entityId,
    reference_id: t.referenceId,
    created_by: t.createdBy,
    created_at: t.createdAt,
  };
}

export function filterWallets(tenant: Tenant, q: Omit<WalletQuery, 'page' | 'per-page'>): WalletRecord[] {
  const users = idList(q.user_id);
  const deps = idList(q.department_id);
  const tree = deps ? subtreeIds(tenant.departments, deps) : null;
  const listed = userIdsOfKey(tenant, q.user_list_key);
  const { byId } = peopleIndex(tenant);
  return tenant.wallets.filter((w) => {
    const owner = byId.get(w.userId);
    return (
      (users === null || users.has(w.userId)) &&
      (tree === null || (owner !== undefined && tree.has(owner.departmentId))) &&
      (listed === null || listed.has(w.userId)) &&
      matchesText(q.name, [owner?.name, owner?.email])
    );
  });
}

export function listWallets(ctx: DomainContext, tenant: Tenant, _user: UserRecord, q: WalletQuery & { url: string }) {
  return pageOf(filterWallets(tenant, q), q, q.url, (w) => walletView(ctx, tenant, w));
}

export function viewWallet(ctx: DomainContext, tenant: Tenant, _user: UserRecord, id: string): Wallet {
  return walletView(ctx, tenant, recordById(tenant.wallets, id, 'wallet'));
}

export function filterTransactions(
  tenant: Tenant,
  q: Omit<WalletTransactionQuery, 'page' | 'per-page'>,
): WalletTransactionRecord[] {
  const created = parseDayRange(q.created_at, 'created_at');
  const senders = idList(q.sender_wallet_id);
  const recipients = idList(q.recipient_wallet_id);
  const either = idList(q.wallet_id);
  const types = idList(q.operation_type_id);
  const ownerOf = new Map(tenant.wallets.map((w) => [w.id, w.userId]));
  const owner = (walletId: string | null) => (walletId ? ownerOf.get(walletId) : undefined);
  const senderUsers = userIdsOfKey(tenant, q.sender_user_list_key);
  const recipientUsers = userIdsOfKey(tenant, q.recipient_user_list_key);
  const walletUsers = userIdsOfKey(tenant, q.wallet_user_list_key);
  const deps = idList(q.department_id);
  const tree = deps ? subtreeIds(tenant.departments, deps) : null;
  const { byId } = peopleIndex(tenant);
  const inTree = (userId: string | undefined) =>
    userId !== undefined && tree?.has(byId.get(userId)?.departmentId ?? '') === true;
  const has = (set: Set<string> | null, v: string | undefined | null) => set === null || (v != null && set.has(v));
  const found = tenant.walletTransactions.filter((t) => {
    const s = owner(t.senderWalletId);
    const r = owner(t.recipientWalletId);
    return (
      has(senders, t.senderWalletId) &&
      has(recipients, t.recipientWalletId) &&
      (either === null || either.has(t.senderWalletId ?? '') || either.has(t.recipientWalletId ?? '')) &&
      has(types, String(t.operationTypeId)) &&
      has(senderUsers, s) &&
      has(recipientUsers, r) &&
      (walletUsers === null || (s !== undefined && walletUsers.has(s)) || (r !== undefined && walletUsers.has(r))) &&
      (tree === null || inTree(s) || inTree(r)) &&
      (q.entity_id === undefined || q.entity_id === '' || t.entityId === q.entity_id) &&
      (q.reference_id === undefined || q.reference_id === '' || t.referenceId === q.reference_id) &&
      inDayRange(t.createdAt, created)
    );
  });
  return byStampThenId(
    found,
    (t) => t.createdAt,
    (t) => t.id,
    'newest',
  );
}

export function listTransactions(
  ctx: DomainContext,
  tenant: Tenant,
  _user: UserRecord,
  q: WalletTransactionQuery & { url: string },
) {
  return pageOf(filterTransactions(tenant, q), q, q.url, (t) => transactionView(ctx, tenant, t));
}

export function viewTransaction(ctx: DomainContext, tenant: Tenant, _user: UserRecord, id: string): WalletTransaction {
  return transactionView(ctx, tenant, recordById(tenant.walletTransactions, id, 'wallet transaction'));
}

/** The user's wallet, opened on first use. */
export function walletOf(ctx: DomainContext, tenant: Tenant, userId: string): WalletRecord {
  const at = ctx.now.toISOString();
  return (
    tenant.wallets.find((w) => w.userId === userId) ??
    ctx.store.insert(tenant, 'wallets', {
      id: newUuid(ctx.store, 'wallet'),
      userId,
      balance: 0,
      createdAt: at,
      updatedAt: at,
    })
  );
}

export type PostingLine = {
  userId: string;
  amount: number;
  comment: string;
  entityId: string | null;
  referenceId: string | null;
};
export type Posting = {
  operationTypeId: number;
  senderWalletId: string | null;
  lines: PostingLine[];
  createdBy: string;
};

/** Parses a form's operation type; returns an error text when it is not one of the known types. */
export function parseOperationType(v: number | string | undefined): OperationTypeId | string {
  const n = typeof v === 'number' ? v : v !== undefined && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isInteger(n) || !isOperationType(n))
    return `operation_type_id: must be one of ${Object.entries(operationTypes)
      .map(([k, t]) => `${k} (${t.name})`)
      .join(', ')}`;
  return n;
}

/** Parses an amount: > 0, at most 2 decimals; returns a number or an error text. */
export function parseAmount(v: number | string | undefined | null): number | string {
  const n =
    typeof v === 'number'
      ? v
      : typeof v === 'string' && /^\s*\d+([.,]\d+)?\s*$/.test(v)
        ? Number(v.trim().replace(',', '.'))
        : NaN;
  if (!Number.isFinite(n) || n <= 0) return 'amount: must be a number greater than 0';
  if (Math.abs(roundMoney(n) - n) > 1e-9) return 'amount: at most 2 decimals';
  if (n > 1_000_000_000) return 'amount: at most 1000000000';
  return n;
}

/**
 * Validates and posts a batch atomically: either every line is posted (balances updated with it) or none is,
 * with the reasons in `errors` (a debit may not take a wallet below zero).
 */
export function postTransactions(
  ctx: DomainContext,
  tenant: Tenant,
  p: Posting,
): { errors: string[]; batch: TransactionBatch | null } {
  const type = isOperationType(p.operationTypeId) ? operationTypes[p.operationTypeId] : null;
  if (!type) return { errors: [parseOperationType(p.operationTypeId) as string], batch: null };
  const errors: string[] = [];
  let sender: WalletRecord | undefined;
  if (type.direction === 'transfer') {
    sender = p.senderWalletId ? findById(tenant.wallets, p.senderWalletId) : undefined;
    if (!sender) errors.push('sender_wallet_id: a transfer needs an existing sender wallet');
  }
  if (p.lines.length === 0) errors.push('no recipients: the selection is empty');
  // Debits may not overdraw: sum per wallet first.
  const outflow = new Map<string, number>();
  for (const line of p.lines) {
    const payer =
      type.direction === 'out'
        ? (tenant.wallets.find((w) => w.userId === line.userId)?.id ?? `user:${line.userId}`)
        : type.direction === 'transfer'
          ? sender?.id
          : undefined;
    if (payer) outflow.set(payer, roundMoney((outflow.get(payer) ?? 0) + line.amount));
  }
  for (const [walletId, amount] of outflow) {
    const w = findById(tenant.wallets, walletId);
    const balance = w?.balance ?? 0;
    if (amount > balance + 1e-9) {
      const name = findById(tenant.users, w?.userId ?? walletId.replace('user:', ''))?.name ?? walletId;
      errors.push(`insufficient balance: wallet of ${name} has ${balance}, the operation needs ${amount}`);
    }
  }
  if (errors.length > 0) return { errors, batch: null };
  const at = ctx.now.toISOString();
  const posted: WalletTransactionRecord[] = [];
  ctx.store.transaction(() => {
    for (const line of p.lines) {
      const own = walletOf(ctx, tenant, line.userId);
      const t: WalletTransactionRecord = {
        id: newUuid(ctx.store, 'wallet-transaction'),
        senderWalletId: type.direction === 'out' ? own.id : type.direction === 'transfer' ? sender!.id : null,
        recipientWalletId: type.direction === 'out' ? null : own.id,
        amount: line.amount,
        operationTypeId: p.operationTypeId,
        comment: line.comment,
        entityId: line.entityId,
        referenceId: line.referenceId,
        createdBy: p.createdBy,
        createdAt: at,
      };
      posted.push(ctx.store.insert(tenant, 'walletTransactions', t));
      for (const id of [t.senderWalletId, t.recipientWalletId]) {
        const w = id ? findById(tenant.wallets, id) : undefined;
        if (w)
          ctx.store.update(tenant, 'wallets', w, {
            balance: roundMoney(w.balance + (id === t.recipientWalletId ? t.amount : -t.amount)),
            updatedAt: at,
          });
      }
    }
  });
  return {
    errors: [],
    batch: {
      count: posted.length,
      total_amount: roundMoney(posted.reduce((s, t) => s + t.amount, 0)),
      transactions: posted.map((t) => transactionView(ctx, tenant, t)),
    },
  };
}

/** Mass credit or debit of the users of a cached user list. A failed form validation is 200 with success false. */
export function createTransactions(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  body: WalletTransactionCreateBody,
) {
  const errors: string[] = [];
  const key = (body.usersListKey ?? '').trim();
  const list = key ? findUserList(tenant, key) : undefined;
  if (!key) errors.push('usersListKey: is required (a key from /user-list-cache/set-user-list)');
  else if (!list) errors.push(`usersListKey: no user list is cached under "${key.slice(0, 100)}"`);
  const amount = parseAmount(body.amount);
  if (typeof amount === 'string') errors.push(amount);
  const type = parseOperationType(body.operation_type_id);
  if (typeof type === 'string') errors.push(type);
  const comment = (body.comment ?? '').trim();
  if (comment === '') errors.push('comment: is required');
  if (errors.length > 0 || !list || typeof amount === 'string' || typeof type === 'string') {
    return { success: false, message: 'the transactions were not created', errors, data: null };
  }
  const recipients = expandSelection(tenant, list.userList);
  const result = postTransactions(ctx, tenant, {
    operationTypeId: type,
    senderWalletId: body.sender_wallet_id ?? null,
    createdBy: user.id,
    lines: recipients.map((u) => ({
      userId: u.id,
      amount,
      comment,
      entityId: body.entity_id ?? null,
      referenceId: body.reference_id ?? null,
    })),
  });
  if (!result.batch)
    return { success: false, message: 'the transactions were not created', errors: result.errors, data: null };
  return { success: true, message: `${result.batch.count} transaction(s) created`, errors: null, data: result.batch };
}
