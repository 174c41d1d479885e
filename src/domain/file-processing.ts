// File processing: an uploaded spreadsheet is parsed in the background into rows for mass wallet transactions.
// The job record lives in the tenant's data (no module-level queue); the client polls /file-processing/view.
import type { UserRecord } from '../schemas/records.js';
import type { FileProcessingRecord, ParsedRow, ColumnMapping } from '../schemas/integration-records.js';
import type { CreateFromExcelBody, ExcelProcessingBody, FileProcessing } from '../schemas/admin-api.js';
import { findById, type SandboxStore, type Tenant } from '../store/store.js';
import { newUuid } from '../store/ids.js';
import { absolute, type DomainContext } from './context.js';
import { paginate, recordById, type PageRequest } from './lists.js';
import { columnIndex, readCsv, readXlsx, type SheetRows } from './spreadsheets.js';
import { parseAmount, parseOperationType, postTransactions, roundMoney } from './wallets.js';
import { isUuid } from '../schemas/check.js';
import { bytesOfContentInTurns } from '../store/file-bytes.js';
import { byStampThenId } from './grouped.js';

export function processingView(ctx: DomainContext, tenant: Tenant, r: FileProcessingRecord): FileProcessing {
  const file = findById(tenant.files, r.fileId);
  const status = r.finished ? (r.result?.error ? 'failed' : 'finished') : r.started ? 'processing' : 'queued';
  return {
    id: r.id,
    file: { id: r.fileId, name: file?.name ?? '', url: absolute(ctx, `/files/${r.fileId}/download`) },
    created: r.created,
    started: r.started,
    finished: r.finished,
    status,
    arguments: r.arguments,
    result: r.result,
  };
}

/**
 * Records of the caller; `seeAll` (the caller's effective right wallets-transactions) shows every record of the tenant.
 */
const visible = (tenant: Tenant, user: UserRecord, seeAll: boolean) =>
  tenant.fileProcessing.filter((r) => seeAll || r.userId === user.id);

export function listProcessing(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  q: PageRequest & { url: string; seeAll: boolean },
) {
  const list = byStampThenId(
    visible(tenant, user, q.seeAll),
    (r) => r.created,
    (r) => r.id,
    'newest',
  );
  const page = paginate(list, q, { defaultPerPage: 20, maxPerPage: 100 }, q.url);
  return { ...page, data: page.data.map((r) => processingView(ctx, tenant, r)) };
}

export function viewProcessing(
  ctx: DomainContext,
  tenant: Tenant,
  user: UserRecord,
  q: { id: string; seeAll: boolean },
): FileProcessing {
  const r = recordById(visible(tenant, user, q.seeAll), q.id, 'file processing');
  return processingView(ctx, tenant, r);
}

/**
 * Validates the form and queues the job. The answer carries the queued record; `run` is what the caller schedules
 * (e.g. with setImmediate) to parse the file in the background.
 */
export function startExcelProcessing(ctx: DomainContext, tenant: Tenant, user: UserRecord, body: ExcelProcessingBody) {
  if (body.file_processing_id !== undefined && body.file_id === undefined) {
    const id = body.file_processing_id.trim();
    const known = visible(tenant, user, true).find((r) => r.id === id);
    const answer = known
      ? {
          success: true,
          message: known.finished ? 'finished' : 'still processing',
          errors: null,
          data: processingView(ctx, tenant, known),
        }
      : {
          success: false,
          message: `warning: file processing "${id.slice(0, 40)}" not found`,
          errors: [`file_processing_id: not found`],
          data: null,
        };
    return { record: null, answer };
  }
  const errors: string[] = [];
  const fileId = (body.file_id ?? '').trim();
  const file = isUuid(fileId) ? tenant.files.find((f) => f.id === fileId) : undefined;
  if (!fileId) errors.push('file_id: is required');
  else if (!file) errors.push(`file_id: no file ${fileId.slice(0, 40)}`);
  else if (file.status !== 'UPLOADED' || file.contentBase64 === null)
    errors.push('file_id: the file is not uploaded yet (call /file/finish-upload)');
  else if (!['xlsx', 'csv'].includes(file.ext.toLowerCase()))
    errors.push('file_id: only .xlsx and .csv files can be processed');
  const m = body.mapping ?? {};
  const mapping: ColumnMapping = { amount: m.amount ?? '' };
  for (const field of ['email', 'user_id', 'amount', 'comment', 'entity_id', 'reference_id'] as const) {
    const spec = m[field];
    if (spec === undefined || spec === '') continue;
    if (columnIndex(spec) === null) errors.push(`mapping.${field}: a column letter (A, B, …) or a 1-based number`);
    mapping[field] = spec;
  }
  if (!m.amount) errors.push('mapping.amount: is required');
  if (!m.email && !m.user_id) errors.push('mapping: email or user_id is required');
  if (errors.length > 0 || !file)
    return { record: null, answer: { success: false, message: 'the file was not queued', errors, data: null } };
  const record: FileProcessingRecord = {
    id: newUuid(ctx.store, 'file-processing'),
    userId: user.id,
    fileId: file.id,
    type: 'wallet-transaction',
    created: ctx.now.toISOString(),
    started: null,
    finished: null,
    arguments: { file_id: file.id, mapping, first_row: body.first_row ?? 2 },
    result: null,
  };
  ctx.store.insert(tenant, 'fileProcessing', record);
  return {
    record,
    answer: {
      success: true,
      message: 'queued: poll /file-processing/view',
      errors: null,
      data: processingView(ctx, tenant, record),
    },
  };
}

/**
 * Parses the file of a queued record outside the request; `clock` gives the sandbox time at start and at finish.
 * The record is looked up again before each write: the sandbox may have been reset meanwhile.
 */
export async function runExcelProcessing(
  store: SandboxStore,
  tenantId: string,
  recordId: string,
  clock: () => string,
  /** the most an .xlsx file may inflate to (--sandbox-upload-mb: what the sandbox may keep of files at all) */
  maxSheetBytes: number,
): Promise<void> {
  const current = () => {
    const tenant = store.tenant(tenantId);
    const record = tenant?.fileProcessing.find((r) => r.id === recordId);
    return tenant && record ? { tenant, record } : null;
  };
  const queued = current();
  if (!queued) return;
  const { tenant, record } = queued;
  store.update(tenant, 'fileProcessing', record, { started: clock() });
  const empty = { total: 0, valid: 0, invalid: 0, totalAmount: 0, rows: [], postedAt: null, transactionIds: [] };
  let result: FileProcessingRecord['result'];
  try {
    const file = findById(tenant.files, record.fileId);
    if (!file || file.contentBase64 === null) throw new Error('the file is gone');
    const bytes = await bytesOfContentInTurns(file.contentBase64);
    const sheet: SheetRows = file.ext.toLowerCase() === 'csv' ? readCsv(bytes) : await readXlsx(bytes, maxSheetBytes);
    const rows = sheet
      .filter((r) => r.row >= record.arguments.first_row)
      .map((r) => parseRow(tenant, record.arguments.mapping, r));
    const valid = rows.filter((r) => r.valid);
    result = {
      ...empty,
      error: null,
      total: rows.length,
      valid: valid.length,
      invalid: rows.length - valid.length,
      totalAmount: roundMoney(valid.reduce((s, r) => s + (r.amount ?? 0), 0)),
      rows,
    };
  } catch (e) {
    result = { ...empty, error: `the file could not be read: ${e instanceof Error ? e.message : String(e)}` };
  }
  const now = current();
  if (now) store.update(now.tenant, 'fileProcessing', now.record, { result, finished: clock() });
}

function parseRow(tenant: Tenant, mapping: ColumnMapping, r: { row: number; cells: string[] }): ParsedRow {
  const at = (spec: string | undefined) => {
    const i = columnIndex(spec);
    return i === null ? '' : (r.cells[i] ?? '');
  };
  const problems: string[] = [];
  const email = at(mapping.email) || null;
  const userIdText = at(mapping.user_id) || null;
  let user = userIdText ? tenant.users.find((u) => u.id === userIdText.toLowerCase()) : undefined;
  if (!user && email) user = tenant.users.find((u) => u.email.toLowerCase() === email.toLowerCase());
  if (!email && !userIdText) problems.push('no e-mail or user id');
  else if (!user) problems.push(`user not found: ${(userIdText ?? email ?? '').slice(0, 100)}`);
  else if (user.state !== 'active') problems.push(`user is ${user.state}`);
  const amountText = at(mapping.amount);
  const amount = parseAmount(amountText === '' ? undefined : amountText);
  if (typeof amount === 'string')
    problems.push(amountText === '' ? 'amount: empty' : `${amount} (got "${amountText.slice(0, 40)}")`);
  return {
    row: r.row,
    userId: user?.id ?? null,
    email: email ?? user?.email ?? null,
    userName: user?.name ?? null,
    amount: typeof amount === 'number' ? amount : null,
    comment: at(mapping.comment) || null,
    entityId: at(mapping.entity_id) || null,
    referenceId: at(mapping.reference_id) || null,
    valid: problems.length === 0,
    problems,
  };
}

/** Posts the valid rows of a finished parse. An unknown processing id answers success false with a warning. */
export function createFromExcel(ctx: DomainContext, tenant: Tenant, user: UserRecord, body: CreateFromExcelBody) {
  const id = (body.file_processing_id ?? '').trim();
  const record = tenant.fileProcessing.find((r) => r.id === id);
  const refuse = (message: string, errors: string[] = [message]) => ({ success: false, message, errors, data: null });
  if (!record)
    return refuse(
      `warning: file processing "${id.slice(0, 40)}" not found; process ` +
        'the file first with /admin/wallet-transaction/excel-processing',
    );
  if (!record.finished || !record.result)
    return refuse('warning: the file is still being processed; poll /file-processing/view');
  if (record.result.error) return refuse(`warning: the file could not be processed: ${record.result.error}`);
  if (record.result.postedAt) return refuse('warning: the transactions of this file were already posted');
  const type = parseOperationType(body.operation_type_id);
  if (typeof type === 'string') return refuse('the transactions were not created', [type]);
  const comment = (body.comment ?? '').trim();
  const rows = record.result.rows.filter((r) => r.valid && r.userId !== null && r.amount !== null);
  if (rows.some((r) => !r.comment) && comment === '')
    return refuse('the transactions were not created', ['comment: is required for rows without a comment']);
  const result = postTransactions(ctx, tenant, {
    operationTypeId: type,
    senderWalletId: body.sender_wallet_id ?? null,
    createdBy: user.id,
    lines: rows.map((r) => ({
      userId: r.userId!,
      amount: r.amount!,
      comment: r.comment ?? comment,
      entityId: r.entityId,
      referenceId: r.referenceId,
    })),
  });
  if (!result.batch) return refuse('the transactions were not created', result.errors);
  ctx.store.update(tenant, 'fileProcessing', record, {
    result: {
      ...record.result,
      postedAt: ctx.now.toISOString(),
      transactionIds: result.batch.transactions.map((t) => t.id),
    },
  });
  return {
    success: true,
    message: `${result.batch.count} transaction(s) created from ${record.result.total} row(s)`,
    errors: null,
    data: result.batch,
  };
}
