import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors, PageQuery, ref } from '../schemas/common.js';
import {
  CreateFromExcelBody,
  ExcelProcessingBody,
  FileProcessing,
  FileProcessingPage,
  FileProcessingResult,
  IdQuery,
  TransactionBatchResult,
  Wallet,
  WalletPage,
  WalletQuery,
  WalletTransaction,
  WalletTransactionCreateBody,
  WalletTransactionPage,
  WalletTransactionQuery,
} from '../schemas/admin-api.js';
import { callerTenant } from '../auth/caller.js';
import { domainContext } from '../http/context.js';
import { callerArgs, listUrl } from './handler.js';
import { fail } from '../errors.js';
import { tenantOptionsOf } from '../domain/context.js';
import {
  createTransactions,
  filterTransactions,
  filterWallets,
  listTransactions,
  listWallets,
  viewTransaction,
  viewWallet,
} from '../domain/wallets.js';
import { exportTransactions, exportWallets, xlsxMime } from '../domain/spreadsheets.js';
import {
  createFromExcel,
  listProcessing,
  runExcelProcessing,
  startExcelProcessing,
  viewProcessing,
} from '../domain/file-processing.js';

/** The OpenAPI tags of this group, described (src/routes/index.ts puts them in the document's order). */
export const openapiTags = [
  {
    name: 'wallet',
    description: 'Wallets of employees and their transactions (enableWallet, right wallets-transactions)',
  },
  { name: 'file-processing', description: 'Background processing of uploaded files, for polling' },
];

const tags = ['wallet'];
const config = { auth: 'session' as const, rights: ['wallets-transactions' as const] };
const needs = 'Requires the tenant option enableWallet (else 403) and the right wallets-transactions.';
const xlsx = {
  description: 'the .xlsx file, with a Content-Disposition file name',
  content: { [xlsxMime]: { schema: Type.String({ format: 'binary' }) } },
};

const sendXlsx = (req: FastifyRequest, reply: FastifyReply, name: string, bytes: Buffer) => {
  const day = req.mock.sandbox.clock.iso().slice(0, 10);
  return reply
    .header('content-type', xlsxMime)
    .header('content-disposition', `attachment; filename="${name}-${day}.xlsx"`)
    .send(bytes);
};

/** Administrative wallet operations; every route needs enableWallet and the right wallets-transactions. */
export const walletRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const sheetBytes = app.config.sandboxUploadMb * 1024 * 1024;
  app.addHook('onRequest', async (req) => {
    const tenant = callerTenant(req);
    if (!tenantOptionsOf(domainContext(req), tenant).enableWallet)
      throw fail.forbidden('wallets are disabled for this tenant (option enableWallet is off)');
  });

  app.get(
    '/admin/wallet',
    {
      schema: {
        operationId: 'adminWalletIndex',
        tags,
        summary: 'Wallets of employees (read-only)',
        description: `${needs} per-page is clamped to 100.`,
        querystring: WalletQuery,
        response: { 200: ref(WalletPage), ...errors(400, 401, 403) },
      },
      config,
    },
    async (req) => listWallets(...callerArgs(req), { ...req.query, url: listUrl(req) }),
  );

  app.get(
    '/admin/wallet/view',
    {
      schema: {
        operationId: 'adminWalletView',
        tags,
        summary: 'One wallet',
        description: needs,
        querystring: IdQuery,
        response: { 200: ref(Wallet), ...errors(400, 401, 403, 404) },
      },
      config,
    },
    async (req) => viewWallet(...callerArgs(req), req.query.id),
  );

  app.post(
    '/admin/wallet/export-excel',
    {
      schema: {
        operationId: 'adminWalletExportExcel',
        tags,
        summary: 'Export wallets as an .xlsx file',
        description:
          `${needs} Takes the filters of /admin/wallet in the query string; answers the file itself. ` +
          'Columns: Wallet ID, User ID, Employee, E-mail, Department, Balance, Created at, Updated at.',
        querystring: WalletQuery,
        response: { 200: xlsx, ...errors(400, 401, 403) },
      },
      config,
    },
    async (req, reply) => {
      const tenant = callerTenant(req);
      return sendXlsx(req, reply, 'wallets', await exportWallets(tenant, filterWallets(tenant, req.query)));
    },
  );

  app.get(
    '/admin/wallet-transaction',
    {
      schema: {
        operationId: 'adminWalletTransactionIndex',
        tags,
        summary: 'Wallet transactions, newest first',
        description:
          `${needs} per-page is clamped to 100; created_at with a time of day ` +
          'gives 422; a user-list-cache key that is not cached matches nothing.',
        querystring: WalletTransactionQuery,
        response: { 200: ref(WalletTransactionPage), ...errors(400, 401, 403, 422) },
      },
      config,
    },
    async (req) => listTransactions(...callerArgs(req), { ...req.query, url: listUrl(req) }),
  );

  app.get(
    '/admin/wallet-transaction/view',
    {
      schema: {
        operationId: 'adminWalletTransactionView',
        tags,
        summary: 'One wallet transaction',
        description: needs,
        querystring: IdQuery,
        response: { 200: ref(WalletTransaction), ...errors(400, 401, 403, 404) },
      },
      config,
    },
    async (req) => viewTransaction(...callerArgs(req), req.query.id),
  );

  app.post(
    '/admin/wallet-transaction/create',
    {
      schema: {
        operationId: 'adminWalletTransactionCreate',
        tags,
        summary: 'Mass credit or debit of the users of a user-list-cache key',
        description:
          `${needs} All or nothing: a debit that would take a wallet below zero refuses the ` +
          'whole batch. A failed form validation answers 200 with success false and errors.',
        body: WalletTransactionCreateBody,
        response: { 200: ref(TransactionBatchResult), ...errors(400, 401, 403) },
      },
      config,
    },
    async (req) => createTransactions(...callerArgs(req), req.body),
  );

  app.post(
    '/admin/wallet-transaction/export-excel',
    {
      schema: {
        operationId: 'adminWalletTransactionExportExcel',
        tags,
        summary: 'Export transactions as an .xlsx file',
        description:
          `${needs} Takes the filters of /admin/wallet-transaction in the query string; answers the ` +
          'file itself. Columns: Transaction ID, Created at, Operation type ID, Operation type, Sender ' +
          'wallet ID, Sender, Recipient wallet ID, Recipient, Amount, Comment, Entity ID, Reference ID.',
        querystring: WalletTransactionQuery,
        response: { 200: xlsx, ...errors(400, 401, 403, 422) },
      },
      config,
    },
    async (req, reply) => {
      const tenant = callerTenant(req);
      return sendXlsx(
        req,
        reply,
        'wallet-transactions',
        await exportTransactions(tenant, filterTransactions(tenant, req.query)),
      );
    },
  );

  app.post(
    '/admin/wallet-transaction/excel-processing',
    {
      schema: {
        operationId: 'adminWalletTransactionExcelProcessing',
        tags,
        summary: 'Parse an uploaded .xlsx or .csv in the background',
        description:
          `${needs} Queues a file-processing record and answers it; poll /file-processing/view ` +
          'until finished is set. A failed form validation answers 200 with success false.',
        body: ExcelProcessingBody,
        response: { 200: ref(FileProcessingResult), ...errors(400, 401, 403) },
      },
      config,
    },
    async (req) => {
      const [ctx, tenant, user] = callerArgs(req);
      const { record, answer } = startExcelProcessing(ctx, tenant, user, req.body);
      const sandbox = req.mock.sandbox;
      // parsed after the answer, as the real portal queues it; the job logs its own changes
      if (record) {
        setImmediate(() => {
          sandbox
            .background((store) =>
              runExcelProcessing(store, tenant.tenant.id, record.id, () => sandbox.clock.iso(), sheetBytes),
            )
            .catch((err: unknown) => req.log.error({ err }, 'file processing'));
        });
      }
      return answer;
    },
  );

  app.post(
    '/admin/wallet-transaction/create-from-excel',
    {
      schema: {
        operationId: 'adminWalletTransactionCreateFromExcel',
        tags,
        summary: 'Post the transactions of the valid rows of a parse result',
        description:
          `${needs} An unknown, unfinished or already posted file_processing_id ` +
          'answers 200 with success false and a warning message.',
        body: CreateFromExcelBody,
        response: { 200: ref(TransactionBatchResult), ...errors(400, 401, 403) },
      },
      config,
    },
    async (req) => createFromExcel(...callerArgs(req), req.body),
  );
};

/** Polling of file processing: the caller's own records (all of the tenant with the right wallets-transactions). */
export const fileProcessingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const fpTags = ['file-processing'];
  app.get(
    '/file-processing',
    {
      schema: {
        operationId: 'fileProcessingIndex',
        tags: fpTags,
        summary: 'File processing records, newest first',
        description:
          "The caller's file processing records (spreadsheet parses of " +
          '/admin/wallet-transaction/excel-processing), newest first; paged (per-page default 20, at most 100).',
        querystring: Type.Object({ ...PageQuery }),
        response: { 200: ref(FileProcessingPage), ...errors(400, 401, 403) },
      },
      config: { auth: 'session' },
    },
    async (req) => {
      const seeAll = req.mock.auth.rights.includes('wallets-transactions');
      return listProcessing(...callerArgs(req), {
        page: req.query.page,
        perPage: req.query['per-page'],
        url: listUrl(req),
        seeAll,
      });
    },
  );

  app.get(
    '/file-processing/view',
    {
      schema: {
        operationId: 'fileProcessingView',
        tags: fpTags,
        summary: 'One file processing record, for polling',
        description:
          'Poll it after excel-processing: `finished` is set and `result` holds the ' +
          'parsed rows when the background parse is done. An unknown id is a 404.',
        querystring: IdQuery,
        response: { 200: ref(FileProcessing), ...errors(400, 401, 403, 404) },
      },
      config: { auth: 'session' },
    },
    async (req) =>
      viewProcessing(...callerArgs(req), {
        id: req.query.id,
        seeAll: req.mock.auth.rights.includes('wallets-transactions'),
      }),
  );
};
