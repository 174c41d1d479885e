// The OpenAPI document is generated from the route schemas: every operation is described.
import t from 'tap';
import { build } from './helper.js';

t.test('every operation has an operationId, tags and response schemas; every $ref resolves', async (t) => {
  const app = await build(t);
  const res = await app.inject({ url: '/docs/json' });
  t.equal(res.statusCode, 200);
  const doc = res.json() as {
    openapi: string;
    paths: Record<string, Record<string, any>>;
    components: { schemas: Record<string, unknown> };
  };
  t.match(doc.openapi, /^3\./);
  const ids = new Set<string>();
  let operations = 0;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'delete', 'patch'].includes(method)) continue;
      if (path.startsWith('/docs')) continue;
      operations++;
      const where = `${method.toUpperCase()} ${path}`;
      t.ok(op.operationId, `${where} has an operationId`);
      t.notOk(ids.has(op.operationId), `${op.operationId} is unique`);
      ids.add(op.operationId);
      t.ok(Array.isArray(op.tags) && op.tags.length > 0, `${where} has tags`);
      const statuses = Object.keys(op.responses ?? {});
      t.ok(
        statuses.some((s) => s.startsWith('2')),
        `${where} declares a success response`,
      );
      for (const s of statuses) {
        const content = op.responses[s].content;
        t.ok(content && Object.values(content).every((c: any) => c.schema), `${where} ${s} has a schema`);
      }
    }
  }
  t.ok(operations > 100, `${operations} operations documented`);
  const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
  const missing = [...new Set(refs)].filter((r) => !(r in doc.components.schemas));
  t.same(missing, [], 'every $ref names a component');
  for (const name of ['TenantInfo', 'ErrorBody', 'PageMeta', 'PageLinks', 'DashboardWidget'])
    t.ok(name in doc.components.schemas, `named component ${name}`);
  const admin = Object.values(doc.paths)
    .flatMap((i) => Object.values(i))
    .filter((op: any) => op.tags?.includes('mock'));
  t.ok(admin.length >= 20, 'the control plane is documented under its own tag, mock');
});
