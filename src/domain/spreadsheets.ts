// Real spreadsheets: wallet and transaction exports (.xlsx), and reading an uploaded .xlsx or .csv into rows of cell
// texts for file processing. The .xlsx format itself is in ./xlsx.ts.
import type { Tenant } from '../store/store.js';
import type { WalletRecord, WalletTransactionRecord } from '../schemas/integration-records.js';
import { isOperationType, operationTypes } from './wallets.js';
import { peopleIndex } from './people-index.js';
import { readXlsx as readSheet, writeXlsx, type SheetRows } from './xlsx.js';

export const xlsxMime = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** Column headers of the wallet export, in order. */
export const walletColumns = [
  'Wallet ID',
  'User ID',
  'Employee',
  'E-mail',
  'Department',
  'Balance',
  'Created at',
  'Updated at',
] as const;
/** Column headers of the transaction export, in order. */
export const transactionColumns = [
  'Transaction ID',
  'Created at',
  'Operation type ID',
  'Operation type',
  'Sender wallet ID',
  'Sender',
  'Recipient wallet ID',
  'Recipient',
  'Amount',
  'Comment',
  'Entity ID',
  'Reference ID',
] as const;

function workbookBytes(
  sheetName: string,
  headers: readonly string[],
  rows: Array<Array<string | number | null>>,
): Promise<Buffer> {
  return writeXlsx(sheetName, headers, rows, { columnWidth: 22, creator: 'portal-mock' });
}

export function exportWallets(tenant: Tenant, wallets: WalletRecord[]): Promise<Buffer> {
  const { byId: users, departmentById: deps } = peopleIndex(tenant);
  return workbookBytes(
    'Wallets',
    walletColumns,
    wallets.map((w) => {
      const u = users.get(w.userId);
      return [
        w.id,
        w.userId,
        u?.name ?? '',
        u?.email ?? '',
        deps.get(u?.departmentId ?? '')?.name ?? '',
        w.balance,
        w.createdAt,
        w.updatedAt,
      ];
    }),
  );
}

export function exportTransactions(tenant: Tenant, list: WalletTransactionRecord[]): Promise<Buffer> {
  const users = peopleIndex(tenant).byId;
  const owners = new Map(tenant.wallets.map((w) => [w.id, users.get(w.userId)?.name ?? '']));
  return workbookBytes(
    'Transactions',
    transactionColumns,
    list.map((t) => [
      t.id,
      t.createdAt,
      t.operationTypeId,
      isOperationType(t.operationTypeId) ? operationTypes[t.operationTypeId].name : '',
      t.senderWalletId,
      t.senderWalletId ? (owners.get(t.senderWalletId) ?? '') : '',
      t.recipientWalletId,
      t.recipientWalletId ? (owners.get(t.recipientWalletId) ?? '') : '',
      t.amount,
      t.comment,
      t.entityId,
      t.referenceId,
    ]),
  );
}

export type { SheetRows };

/**
 * Every non-empty row of the first worksheet, 1-based row numbers, cells 0-based and trimmed; the file may inflate to
 * at most `maxBytes`.
 */
export async function readXlsx(bytes: Buffer, maxBytes: number): Promise<SheetRows> {
  return (await readSheet(bytes, maxBytes)).map(({ row, cells }) => ({ row, cells: cells.map((c) => c.trim()) }));
}

/** CSV with `,` or `;` (whichever the first line has more of), double-quoted fields, UTF-8 with or without BOM. */
export function readCsv(bytes: Buffer): SheetRows {
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  const firstLine = text.split(/\r?\n/, 1)[0] ?? '';
  const sep = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : ',';
  const rows: SheetRows = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let rowNumber = 1;
  const endRow = () => {
    cells.push(cell.trim());
    if (cells.some((c) => c !== '')) rows.push({ row: rowNumber, cells });
    cells = [];
    cell = '';
    rowNumber++;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === sep) {
      cells.push(cell.trim());
      cell = '';
    } else if (c === '\n') endRow();
    else if (c !== '\r') cell += c;
  }
  if (cell !== '' || cells.length > 0) endRow();
  return rows;
}

/** A column given as a letter (A, B, … AA) or a 1-based number → 0-based index, or null when malformed. */
export function columnIndex(spec: string | undefined): number | null {
  if (spec === undefined) return null;
  const s = spec.trim().toUpperCase();
  if (/^\d+$/.test(s)) return Number(s) >= 1 && Number(s) <= 16384 ? Number(s) - 1 : null;
  if (!/^[A-Z]{1,3}$/.test(s)) return null;
  let n = 0;
  for (const ch of s) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n <= 16384 ? n - 1 : null;
}
