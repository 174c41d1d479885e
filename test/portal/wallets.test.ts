import t from 'tap';
import ExcelJS from 'exceljs';
import { accounts, build, expectError, json, setTenantOptions, signIn, tenants, sharedApp } from '../helper.js';
import { balanceFromTransactions } from '../../src/domain/wallets.js';
import type { Tenant } from '../../src/store/store.js';

// one app for the file's tests, each in a sandbox of its own
const ownSandbox = sharedApp(t);

type App = Awaited<ReturnType<typeof build>>;
const tenantOf = (app: App, sandbox: string, id: string = tenants.romashka) =>
  app.sandboxes.get(sandbox).store.tenant(id)!;
const agree = (t: { equal: Function }, tenant: Tenant, note: string) => {
  const bad = tenant.wallets.filter((w) => Math.abs(balanceFromTransactions(tenant, w.id) - w.balance) > 1e-9);
  t.equal(bad.length, 0, `balances = sums of transactions (${note})`);
};
const uuid0 = '00000000-0000-4000-8000-000000000000';

t.test('seed: a wallet per user, balances agree with transactions, never negative', async (t) => {
  const { app, sandbox } = await ownSandbox();
  for (const id of [tenants.romashka, tenants.northwind]) {
    const tenant = tenantOf(app, sandbox, id);
    t.equal(tenant.wallets.length, tenant.users.length);
    t.equal(new Set(tenant.wallets.map((w) => w.userId)).size, tenant.users.length);
    t.ok(tenant.walletTransactions.length > tenant.wallets.length);
    t.ok(
      tenant.walletTransactions.some((x) => x.operationTypeId === 9),
      'a purchase cancellation is seeded',
    );
    t.ok(
      tenant.walletTransactions.some((x) => x.operationTypeId === 3),
      'transfers are seeded',
    );
    t.ok(tenant.wallets.every((w) => w.balance >= 0));
    agree(t, tenant, id);
  }
});

t.test('wallets need enableWallet (403) and the right wallets-transactions (403)', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const nw = await signIn(app, accounts.nwAdmin, { sandbox });
  const off = expectError(t, await inject({ url: '/admin/wallet', headers: nw.headers }), 403);
  t.match(off.message, /wallets are disabled/);
  expectError(
    t,
    await inject({ method: 'POST', url: '/admin/wallet-transaction/create', headers: nw.headers, payload: {} }),
    403,
  );
  const plain = await signIn(app, accounts.noRights, { sandbox });
  const noRight = expectError(t, await inject({ url: '/admin/wallet', headers: plain.headers }), 403);
  t.match(noRight.message, /wallets-transactions/);
  const s = await signIn(app, accounts.admin, { sandbox });
  t.equal((await inject({ url: '/admin/wallet', headers: s.headers })).statusCode, 200);
  setTenantOptions(app, tenants.romashka, { enableWallet: false }, sandbox);
  expectError(t, await inject({ url: '/admin/wallet/view?id=nope', headers: s.headers }), 403);
  expectError(t, await inject({ url: '/admin/wallet' }), 401);
});

t.test('wallet index: paging clamped to 100, filters; view: 400 malformed, 404 unknown', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const tenant = tenantOf(app, sandbox);
  const page = json(await inject({ url: '/admin/wallet?per-page=1000&page=2', headers: s.headers }));
  t.match(page._meta, { perPage: 100, currentPage: 2, totalCount: tenant.wallets.length });
  t.equal(page.data.length, Math.min(100, tenant.wallets.length - 100));
  t.match(page._links.self, /^http:\/\/localhost\/admin\/wallet\?per-page=100&page=2$/);
  t.match(page._links.prev, /per-page=100&page=1$/);
  const me = json(await inject({ url: `/admin/wallet?user_id=${accounts.admin.userId}`, headers: s.headers }));
  t.equal(me.data.length, 1);
  t.match(me.data[0], { user_id: accounts.admin.userId, user: { name: String }, balance: Number });
  const dep = tenant.users[0]!.departmentId;
  const byDep = json(await inject({ url: `/admin/wallet?department_id=${dep}&per-page=100`, headers: s.headers }));
  t.ok(byDep.data.length >= 1);
  t.ok(
    byDep.data.some((w: { user_id: string }) => w.user_id === accounts.admin.userId),
    'sub-departments included',
  );
  const byName = json(
    await inject({
      url: `/admin/wallet?name=${encodeURIComponent(tenant.users[0]!.lastName)}`,
      headers: s.headers,
    }),
  );
  t.ok(byName.data.some((w: { user_id: string }) => w.user_id === accounts.admin.userId));

  const w = tenant.wallets[0]!;
  t.match(json(await inject({ url: `/admin/wallet/view?id=${w.id}`, headers: s.headers })), {
    id: w.id,
    balance: w.balance,
  });
  expectError(t, await inject({ url: '/admin/wallet/view?id=nope', headers: s.headers }), 400);
  expectError(t, await inject({ url: `/admin/wallet/view?id=${uuid0}`, headers: s.headers }), 404);
});

t.test('transaction index: every filter', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const tenant = tenantOf(app, sandbox);
  const get = async (q: string) =>
    json(await inject({ url: `/admin/wallet-transaction?per-page=100&${q}`, headers: s.headers }));
  const all = await get('');
  t.equal(all._meta.totalCount, tenant.walletTransactions.length);
  t.equal(all._meta.perPage, 100);
  t.ok(all.data[0].created_at >= all.data[1].created_at, 'newest first');

  const transfer = tenant.walletTransactions.find((x) => x.operationTypeId === 3)!;
  const bySender = await get(`sender_wallet_id=${transfer.senderWalletId}`);
  t.ok(bySender.data.every((x: { sender_wallet_id: string }) => x.sender_wallet_id === transfer.senderWalletId));
  t.ok(bySender.data.some((x: { id: string }) => x.id === transfer.id));
  const byRecipient = await get(`recipient_wallet_id=${transfer.recipientWalletId}`);
  t.ok(
    byRecipient.data.every(
      (x: { recipient_wallet_id: string }) => x.recipient_wallet_id === transfer.recipientWalletId,
    ),
  );

  const senderUser = tenant.wallets.find((w) => w.id === transfer.senderWalletId)!.userId;
  const recipientUser = tenant.wallets.find((w) => w.id === transfer.recipientWalletId)!.userId;
  await inject({
    method: 'POST',
    url: '/user-list-cache/set-user-list',
    headers: s.headers,
    payload: { key: 'snd', userList: { usersId: [senderUser] } },
  });
  await inject({
    method: 'POST',
    url: '/user-list-cache/set-user-list',
    headers: s.headers,
    payload: { key: 'rcp', userList: { usersId: [recipientUser] } },
  });
  const bySenderKey = await get('sender_user_list_key=snd');
  t.ok(
    bySenderKey.data.length > 0 &&
      bySenderKey.data.every((x: { sender: { id: string } | null }) => x.sender?.id === senderUser),
  );
  const byRecipientKey = await get('recipient_user_list_key=rcp');
  t.ok(
    byRecipientKey.data.length > 0 &&
      byRecipientKey.data.every((x: { recipient: { id: string } | null }) => x.recipient?.id === recipientUser),
  );
  const byWalletKey = await get('wallet_user_list_key=snd');
  t.equal(
    byWalletKey._meta.totalCount,
    tenant.walletTransactions.filter(
      (x) => x.senderWalletId === transfer.senderWalletId || x.recipientWalletId === transfer.senderWalletId,
    ).length,
  );
  t.equal((await get('wallet_user_list_key=unknown-key'))._meta.totalCount, 0, 'an unknown key matches nothing');

  const dep = tenant.users.find((u) => u.id === senderUser)!.departmentId;
  const byDep = await get(`department_id=${dep}`);
  t.ok(byDep.data.some((x: { id: string }) => x.id === transfer.id));

  const purchase = tenant.walletTransactions.find((x) => x.entityId !== null)!;
  const byEntity = await get(`entity_id=${purchase.entityId}`);
  t.ok(
    byEntity.data.length >= 1 && byEntity.data.every((x: { entity_id: string }) => x.entity_id === purchase.entityId),
  );
  const byRef = await get(`reference_id=${purchase.referenceId}`);
  t.ok(byRef.data.every((x: { reference_id: string }) => x.reference_id === purchase.referenceId));
  t.ok(
    (await get('operation_type_id=9')).data.every(
      (x: { operation_type_id: number; operation_type: string }) =>
        x.operation_type_id === 9 && x.operation_type === 'purchase cancellation',
    ),
  );

  const day = purchase.createdAt.slice(0, 10);
  const byDay = await get(`created_at=${day}|${day}`);
  t.ok(byDay.data.length >= 1 && byDay.data.every((x: { created_at: string }) => x.created_at.startsWith(day)));
  expectError(
    t,
    await inject({ url: '/admin/wallet-transaction?created_at=2026-01-01T10:00|2026-01-02', headers: s.headers }),
    422,
  );
  expectError(t, await inject({ url: '/admin/wallet-transaction?created_at=yesterday', headers: s.headers }), 400);

  t.match(json(await inject({ url: `/admin/wallet-transaction/view?id=${transfer.id}`, headers: s.headers })), {
    id: transfer.id,
    operation_type_id: 3,
    amount: transfer.amount,
  });
  expectError(t, await inject({ url: '/admin/wallet-transaction/view?id=1', headers: s.headers }), 400);
  expectError(t, await inject({ url: `/admin/wallet-transaction/view?id=${uuid0}`, headers: s.headers }), 404);
});

t.test(
  'create: mass credit and debit to a user list; balances follow; form errors are 200 success false',
  async (t) => {
    const { app, sandbox, inject } = await ownSandbox();
    const s = await signIn(app, accounts.admin, { sandbox });
    const tenant = tenantOf(app, sandbox);
    const users = tenant.users
      .filter((u) => u.state === 'active')
      .slice(10, 13)
      .map((u) => u.id);
    await inject({
      method: 'POST',
      url: '/user-list-cache/set-user-list',
      headers: s.headers,
      payload: { key: 'bonus', userList: { usersId: users } },
    });
    const before = new Map(tenant.wallets.map((w) => [w.userId, w.balance]));
    const credit = await inject({
      method: 'POST',
      url: '/admin/wallet-transaction/create',
      headers: s.headers,
      payload: { usersListKey: 'bonus', amount: 150.5, operation_type_id: 4, comment: 'Q1 bonus', reference_id: 'q1' },
    });
    t.equal(credit.statusCode, 200);
    const c = json(credit);
    t.match(c, { success: true, data: { count: 3, total_amount: 451.5 } });
    for (const u of users) t.equal(tenant.wallets.find((w) => w.userId === u)!.balance, before.get(u)! + 150.5);
    t.ok(
      c.data.transactions.every(
        (x: { recipient_wallet_id: string; sender_wallet_id: null; created_by: string }) =>
          x.recipient_wallet_id && x.sender_wallet_id === null && x.created_by === accounts.admin.userId,
      ),
    );
    agree(t, tenant, 'after credit');

    const debit = json(
      await inject({
        method: 'POST',
        url: '/admin/wallet-transaction/create',
        headers: s.headers,
        payload: { usersListKey: 'bonus', amount: '50', operation_type_id: '2', comment: 'correction' },
      }),
    );
    t.match(debit, { success: true, data: { count: 3 } });
    for (const u of users) t.equal(tenant.wallets.find((w) => w.userId === u)!.balance, before.get(u)! + 100.5);

    const count = tenant.walletTransactions.length;
    const over = json(
      await inject({
        method: 'POST',
        url: '/admin/wallet-transaction/create',
        headers: s.headers,
        payload: { usersListKey: 'bonus', amount: 1_000_000, operation_type_id: 2, comment: 'too much' },
      }),
    );
    t.match(over, { success: false, errors: [/insufficient balance/] });
    t.equal(tenant.walletTransactions.length, count, 'all or nothing');

    const invalid = await inject({
      method: 'POST',
      url: '/admin/wallet-transaction/create',
      headers: s.headers,
      payload: { usersListKey: 'missing', amount: -1, operation_type_id: 7 },
    });
    t.equal(invalid.statusCode, 200);
    const errors: string[] = json(invalid).errors;
    t.equal(json(invalid).success, false);
    t.ok(
      errors.some((e) => e.startsWith('usersListKey')) &&
        errors.some((e) => e.startsWith('amount')) &&
        errors.some((e) => e.startsWith('operation_type_id')) &&
        errors.some((e) => e.startsWith('comment')),
    );
    t.match(
      json(
        await inject({
          method: 'POST',
          url: '/admin/wallet-transaction/create',
          headers: s.headers,
          payload: { usersListKey: 'bonus', amount: 1.234, operation_type_id: 1, comment: 'x' },
        }),
      ),
      { success: false, errors: [/2 decimals/] },
    );

    // a transfer from one wallet to the list; and a purchase cancellation
    const payer = tenant.wallets.find((w) => w.userId === accounts.admin.userId)!;
    const payerBefore = payer.balance;
    const transfer = json(
      await inject({
        method: 'POST',
        url: '/admin/wallet-transaction/create',
        headers: s.headers,
        payload: {
          usersListKey: 'bonus',
          amount: 10,
          operation_type_id: 3,
          comment: 'thanks',
          sender_wallet_id: payer.id,
        },
      }),
    );
    t.match(transfer, { success: true, data: { count: 3 } });
    t.equal(tenant.wallets.find((w) => w.id === payer.id)!.balance, payerBefore - 30);
    t.match(
      json(
        await inject({
          method: 'POST',
          url: '/admin/wallet-transaction/create',
          headers: s.headers,
          payload: { usersListKey: 'bonus', amount: 10, operation_type_id: 3, comment: 'thanks' },
        }),
      ),
      { success: false, errors: [/sender_wallet_id/] },
    );
    t.match(
      json(
        await inject({
          method: 'POST',
          url: '/admin/wallet-transaction/create',
          headers: s.headers,
          payload: {
            usersListKey: 'bonus',
            amount: 5,
            operation_type_id: 9,
            comment: 'order cancelled',
            entity_id: 'order-1',
          },
        }),
      ),
      { success: true },
    );
    agree(t, tenant, 'after every operation');
    const seen = json(await inject({ url: '/admin/wallet-transaction?reference_id=q1', headers: s.headers }));
    t.equal(seen._meta.totalCount, 3, 'created transactions are listed');

    await inject({
      method: 'POST',
      url: '/user-list-cache/set-user-list',
      headers: s.headers,
      payload: { key: 'empty', userList: { usersId: [] } },
    });
    t.match(
      json(
        await inject({
          method: 'POST',
          url: '/admin/wallet-transaction/create',
          headers: s.headers,
          payload: { usersListKey: 'empty', amount: 5, operation_type_id: 1, comment: 'x' },
        }),
      ),
      { success: false, errors: [/empty/] },
    );
  },
);

t.test('exports are real .xlsx files with the documented columns', async (t) => {
  const { app, sandbox, inject } = await ownSandbox();
  const s = await signIn(app, accounts.admin, { sandbox });
  const tenant = tenantOf(app, sandbox);
  const res = await inject({
    method: 'POST',
    url: `/admin/wallet/export-excel?user_id=${accounts.admin.userId}`,
    headers: s.headers,
  });
  t.equal(res.statusCode, 200);
  t.equal(res.headers['content-type'], 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
  t.match(res.headers['content-disposition'], /attachment; filename="wallets-2026-03-02\.xlsx"/);
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(
    res.rawPayload.buffer.slice(
      res.rawPayload.byteOffset,
      res.rawPayload.byteOffset + res.rawPayload.byteLength,
    ) as ArrayBuffer,
  );
  const ws = wb.worksheets[0]!;
  t.same((ws.getRow(1).values as unknown[]).slice(1), [
    'Wallet ID',
    'User ID',
    'Employee',
    'E-mail',
    'Department',
    'Balance',
    'Created at',
    'Updated at',
  ]);
  t.equal(ws.rowCount, 2);
  const mine = tenant.wallets.find((w) => w.userId === accounts.admin.userId)!;
  t.equal(ws.getRow(2).getCell(1).value, mine.id);
  t.equal(ws.getRow(2).getCell(6).value, mine.balance);

  const tx = await inject({
    method: 'POST',
    url: '/admin/wallet-transaction/export-excel?operation_type_id=9',
    headers: s.headers,
  });
  t.equal(tx.statusCode, 200);
  t.match(tx.headers['content-disposition'], /wallet-transactions-2026-03-02\.xlsx/);
  const wb2 = new ExcelJS.Workbook();
  await wb2.xlsx.load(
    tx.rawPayload.buffer.slice(
      tx.rawPayload.byteOffset,
      tx.rawPayload.byteOffset + tx.rawPayload.byteLength,
    ) as ArrayBuffer,
  );
  const ws2 = wb2.worksheets[0]!;
  t.equal(ws2.getRow(1).getCell(1).value, 'Transaction ID');
  t.equal(ws2.rowCount - 1, tenant.walletTransactions.filter((x) => x.operationTypeId === 9).length);
  t.equal(ws2.getRow(2).getCell(4).value, 'purchase cancellation');
  expectError(
    t,
    await inject({
      method: 'POST',
      url: '/admin/wallet-transaction/export-excel?created_at=2026-01-01 10:00|',
      headers: s.headers,
    }),
    422,
  );
  const plain = await signIn(app, accounts.noRights, { sandbox });
  expectError(t, await inject({ method: 'POST', url: '/admin/wallet/export-excel', headers: plain.headers }), 403);
});

t.test('a scenario that turns enableWallet off (x-mock-scenario) makes wallet routes answer 403', async (t) => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'portal-mock-scenarios-'));
  writeFileSync(
    join(dir, 'wallet-off.json'),
    JSON.stringify({ name: 'wallet-off', description: 'wallets disabled', tenantOptions: { enableWallet: false } }),
  );
  const app = await build(t, { scenarios: [dir] });
  const s = await signIn(app);
  t.equal((await app.inject({ url: '/admin/wallet', headers: s.headers })).statusCode, 200);
  const off = expectError(
    t,
    await app.inject({ url: '/admin/wallet', headers: { ...s.headers, 'x-mock-scenario': 'wallet-off' } }),
    403,
  );
  t.match(off.message, /wallets are disabled/);
});
