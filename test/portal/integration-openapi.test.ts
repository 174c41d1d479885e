import t from 'tap';
import { build } from '../helper.js';

const ours = [
  'userApiTokenIndex',
  'userApiTokenCreate',
  'userApiTokenRevoke',
  'adminUserApiTokenIndex',
  'adminUserApiTokenRevoke',
  'userListCacheSet',
  'userListCacheData',
  'adminWalletIndex',
  'adminWalletView',
  'adminWalletExportExcel',
  'adminWalletTransactionIndex',
  'adminWalletTransactionView',
  'adminWalletTransactionCreate',
  'adminWalletTransactionExcelProcessing',
  'adminWalletTransactionCreateFromExcel',
  'adminWalletTransactionExportExcel',
  'fileProcessingIndex',
  'fileProcessingView',
  'adminEmploymentIndex',
  'adminEmploymentView',
];

t.test('the OpenAPI document lists every operation of the group with its tag', async (t) => {
  const app = await build(t);
  const doc = (await app.inject({ url: '/docs/json' })).json() as {
    paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>>;
    tags?: Array<{ name: string }>;
  };
  const ops = Object.values(doc.paths).flatMap((p) => Object.values(p));
  for (const id of ours) {
    const op = ops.find((o) => o.operationId === id);
    t.ok(op, id);
    t.ok(op?.tags?.length, `${id} has a tag`);
  }
  const tags = new Set((doc.tags ?? []).map((x) => x.name));
  for (const tag of ['user-api-token', 'user-list-cache', 'wallet', 'file-processing', 'admin-employment'])
    t.ok(tags.has(tag), tag);
});
