// A wallet per user with a few transactions (opening credit, bonuses, purchases, a cancellation, transfers).
// Balances are computed from the transactions, so the two always agree.
import type { WalletRecord, WalletTransactionRecord } from '../../schemas/integration-records.js';
import type { SeedContext } from './context.js';
import { FastRandom, IsoFormat, fakerUsers } from './fast-random.js';

export function seedWallets(ctx: SeedContext): void {
  const { data, refDate, fixture } = ctx;
  const faker = ctx.faker('wallets');
  const ru = fixture.locale === 'ru';
  const texts = ru
    ? { opening: 'Начисление за год', bonus: 'Бонус за проект', purchase: 'Покупка в магазине', cancel: 'Отмена покупки', thanks: 'Спасибо за помощь' }
    : { opening: 'Annual allowance', bonus: 'Project bonus', purchase: 'Shop purchase', cancel: 'Purchase cancelled', thanks: 'Thanks for the help' };
  const day = 86400_000;
  const at = (daysAgo: number) => new Date(refDate.getTime() - daysAgo * day - faker.number.int({ min: 0, max: day - 1 })).toISOString();
  // users beyond the first `fakerUsers`: the same records from FastRandom (see fast-random.ts)
  const r = new FastRandom(ctx.seed, fixture.id, 'wallets');
  const iso = new IsoFormat();
  const atFast = (daysAgo: number) => iso.time(refDate.getTime() - daysAgo * day - r.int(0, day - 1));
  const wallets: WalletRecord[] = data.users.map((u, j) => {
    if (j >= fakerUsers) {
      const opened = atFast(200);
      return { id: r.uuid(), userId: u.id, balance: 0, createdAt: u.createdAt < opened ? u.createdAt : opened, updatedAt: '' };
    }
    return { id: faker.string.uuid(), userId: u.id, balance: 0, createdAt: u.createdAt < at(200) ? u.createdAt : at(200), updatedAt: '' };
  });
  const tx: WalletTransactionRecord[] = [];
  const add = (t: Omit<WalletTransactionRecord, 'id' | 'entityId' | 'referenceId' | 'createdBy'> & Partial<WalletTransactionRecord>) =>
    tx.push({ id: faker.string.uuid(), entityId: null, referenceId: null, createdBy: null, ...t });
  const balance = new Map<string, number>();
  const move = (from: string | null, to: string | null, amount: number) => {
    if (from) balance.set(from, (balance.get(from) ?? 0) - amount);
    if (to) balance.set(to, (balance.get(to) ?? 0) + amount);
  };
  const addFast = (t: Omit<WalletTransactionRecord, 'id' | 'entityId' | 'referenceId' | 'createdBy'> & Partial<WalletTransactionRecord>) =>
    tx.push({ id: r.uuid(), entityId: null, referenceId: null, createdBy: null, ...t });
  for (const [j, w] of wallets.entries()) {
    if (j >= fakerUsers) {
      const opening = r.int(10, 50) * 100;
      addFast({ senderWalletId: null, recipientWalletId: w.id, amount: opening, operationTypeId: 1, comment: texts.opening, createdAt: atFast(180) });
      move(null, w.id, opening);
      if (r.boolean(0.4)) {
        const bonus = r.int(1, 10) * 50;
        addFast({ senderWalletId: null, recipientWalletId: w.id, amount: bonus, operationTypeId: 4, comment: texts.bonus, createdAt: atFast(r.int(60, 170)) });
        move(null, w.id, bonus);
      }
      if (r.boolean(0.5)) {
        const price = r.int(1, 9) * 100;
        const order = `order-${String(r.int(0, 999_999)).padStart(6, '0')}`;
        addFast({ senderWalletId: w.id, recipientWalletId: null, amount: price, operationTypeId: 5, comment: texts.purchase, entityId: order, referenceId: order, createdAt: atFast(r.int(20, 59)) });
        move(w.id, null, price);
        if (r.boolean(0.2)) {
          addFast({ senderWalletId: null, recipientWalletId: w.id, amount: price, operationTypeId: 9, comment: texts.cancel, entityId: order, referenceId: order, createdAt: atFast(r.int(1, 19)) });
          move(null, w.id, price);
        }
      }
      continue;
    }
    const opening = faker.number.int({ min: 10, max: 50 }) * 100;
    add({ senderWalletId: null, recipientWalletId: w.id, amount: opening, operationTypeId: 1, comment: texts.opening, createdAt: at(180) });
    move(null, w.id, opening);
    if (faker.datatype.boolean(0.4)) {
      const bonus = faker.number.int({ min: 1, max: 10 }) * 50;
      add({ senderWalletId: null, recipientWalletId: w.id, amount: bonus, operationTypeId: 4, comment: texts.bonus, createdAt: at(faker.number.int({ min: 60, max: 170 })) });
      move(null, w.id, bonus);
    }
    if (faker.datatype.boolean(0.5)) {
      const price = faker.number.int({ min: 1, max: 9 }) * 100;
      const order = `order-${faker.string.numeric(6)}`;
      add({ senderWalletId: w.id, recipientWalletId: null, amount: price, operationTypeId: 5, comment: texts.purchase, entityId: order, referenceId: order, createdAt: at(faker.number.int({ min: 20, max: 59 })) });
      move(w.id, null, price);
      if (faker.datatype.boolean(0.2)) {
        add({ senderWalletId: null, recipientWalletId: w.id, amount: price, operationTypeId: 9, comment: texts.cancel, entityId: order, referenceId: order, createdAt: at(faker.number.int({ min: 1, max: 19 })) });
        move(null, w.id, price);
      }
    }
  }
  for (let i = 0; i < Math.min(40, wallets.length); i++) {
    const [from, to] = faker.helpers.arrayElements(wallets, 2);
    if (!from || !to) break;
    const amount = faker.number.int({ min: 1, max: 5 }) * 10;
    if ((balance.get(from.id) ?? 0) < amount) continue;
    add({ senderWalletId: from.id, recipientWalletId: to.id, amount, operationTypeId: 3, comment: texts.thanks, createdAt: at(faker.number.int({ min: 0, max: 15 })) });
    move(from.id, to.id, amount);
  }
  const latest = new Map<string, string>();
  const touch = (id: string | null, at: string) => { if (id && !(at <= (latest.get(id) ?? ''))) latest.set(id, at); };
  for (const t of tx) { touch(t.senderWalletId, t.createdAt); touch(t.recipientWalletId, t.createdAt); }
  for (const w of wallets) {
    w.balance = Math.round((balance.get(w.id) ?? 0) * 100) / 100;
    const last = latest.get(w.id);
    w.updatedAt = last !== undefined && last > w.createdAt ? last : w.createdAt;
  }
  data.wallets = wallets;
  // ISO times of one format: code-unit order is their localeCompare order (cheaper at 100 000 users)
  data.walletTransactions = wallets.length > fakerUsers ? tx.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0))
    : tx.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}
