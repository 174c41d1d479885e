import t from 'tap';
import { build } from '../helper.js';

const snapshot = (app: Awaited<ReturnType<typeof build>>) =>
  JSON.stringify(app.sandboxes.get('default').store.toData());

t.test('same seed and clock give byte-identical data; another seed gives other data', async (t) => {
  const a = await build(t, { seed: 7 });
  const b = await build(t, { seed: 7 });
  const c = await build(t, { seed: 8 });
  t.equal(snapshot(a), snapshot(b));
  t.not(snapshot(a), snapshot(c));
  t.equal(
    snapshot(a),
    JSON.stringify(a.sandboxes.get('another').store.toData()),
    'a new sandbox starts from the same seeded data',
  );
});

t.test('default size: 200 users per tenant in a department tree at least 3 levels deep', async (t) => {
  const app = await build(t);
  for (const tenant of app.sandboxes.get('default').store.tenants()) {
    t.equal(tenant.users.length, 200);
    t.ok(Math.max(...tenant.departments.map((d) => d.level)) >= 3);
    t.ok(
      tenant.users.every((u) => tenant.departments.some((d) => d.id === u.departmentId)),
      'every user sits in a department',
    );
    t.ok(tenant.employments.filter((e) => e.isMain).length === tenant.users.length, 'one main employment each');
  }
  const ru = app.sandboxes.get('default').store.tenant('7d3f9a2e-5b1c-4e8a-9f60-2c4b8d1e0a01')!;
  t.ok(ru.users.filter((u) => /[а-яё]/i.test(u.lastName)).length > 150, 'the Russian tenant has Cyrillic names');
});

t.test('--users scales the data', async (t) => {
  const app = await build(t, { users: 1000 });
  const tenant = app.sandboxes.get('default').store.tenants()[0]!;
  t.equal(tenant.users.length, 1000);
});
