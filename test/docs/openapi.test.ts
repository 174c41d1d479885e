// The two OpenAPI documents are generated from the route schemas: every operation is described, in one of them.
import t from 'tap';
import { build } from '../helper.js';

const documents = [
  { url: '/docs/json', components: ['TenantInfo', 'ErrorBody', 'PageMeta', 'PageLinks', 'DashboardWidget'] },
  { url: '/__admin/openapi.json', components: ['ErrorBody'] },
];

for (const { url, components } of documents)
  t.test(`${url}: every operation has an operationId, tags and response schemas; every $ref resolves`, async (t) => {
    const app = await build(t);
    const res = await app.inject({ url });
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
    for (const name of components) t.ok(name in doc.components.schemas, `named component ${name}`);
  });

t.test('the two documents share no operation; together they hold every route', async (t) => {
  const routes: string[] = [];
  const app = await build(t, {
    onRoute: (r) => {
      if (r.schema?.hide || r.method === 'HEAD' || r.method === 'OPTIONS') return;
      routes.push(`${r.method} ${r.url.length > 1 ? r.url.replace(/\/$/, '') : r.url}`);
    },
  });
  const [portal, admin] = await Promise.all(documents.map(async ({ url }) => (await app.inject({ url })).json()));
  const listed = (doc: { paths: Record<string, Record<string, unknown>> }) =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`),
    );
  const inPortal = listed(portal);
  const inAdmin = listed(admin);
  t.same(
    inPortal.filter((r) => inAdmin.includes(r)),
    [],
    'no operation is in both',
  );
  t.same(
    inPortal.filter((r) => r.includes('/__admin')),
    [],
    "the portal's document has no /__admin route",
  );
  t.same(
    inAdmin.filter((r) => !r.includes('/__admin') && r !== 'GET /'),
    [],
    "the control plane's has nothing else but the root page that links both",
  );
  const documented = new Set([...inPortal, ...inAdmin]);
  t.same(
    [...new Set(routes)].filter((r) => !documented.has(r) && !r.includes('*')),
    [],
    'every route is in one',
  );
});
