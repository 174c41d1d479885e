// Every schema the server compiles, checked against JSON Schema's meta-schema once here rather than at every
// start-up (Ajv's validateSchema is off in the app: it took ~45 ms of each start).
import t from 'tap';
import { Ajv } from 'ajv';
import type { RouteOptions } from 'fastify';
import { buildApp } from '../../src/app.js';

t.test('every shared schema and every route schema is valid JSON Schema', async (t) => {
  const routes: RouteOptions[] = [];
  const app = await buildApp({ logLevel: 'silent', onRoute: (route) => routes.push(route) });
  await app.ready();
  t.teardown(() => app.close());
  const ajv = new Ajv({ strict: false, validateSchema: true, formats: { password: true } });
  for (const format of [
    'date-time',
    'date',
    'time',
    'email',
    'uri',
    'uuid',
    'binary',
    'byte',
    'int32',
    'int64',
    'float',
    'double',
    'regex',
  ])
    ajv.addFormat(format, true);
  const shared = Object.values(app.getSchemas()) as Array<{ $id: string }>;
  for (const schema of shared) ajv.addSchema(schema);
  let checked = 0;
  const invalid: string[] = [];
  const check = (where: string, schema: unknown) => {
    checked++;
    if (!ajv.validateSchema(schema as object)) invalid.push(`${where}: ${ajv.errorsText(ajv.errors)}`);
  };
  for (const schema of shared) check(schema.$id, schema);
  for (const route of routes) {
    for (const [part, schema] of Object.entries(route.schema ?? {})) {
      if (part === 'response') {
        for (const [status, s] of Object.entries(schema as Record<string, unknown>))
          check(`${String(route.method)} ${route.url} ${status}`, s);
      } else if (['body', 'querystring', 'params', 'headers'].includes(part)) {
        check(`${String(route.method)} ${route.url} ${part}`, schema);
      }
    }
  }
  t.same(invalid, [], 'no schema breaks the meta-schema');
  t.ok(checked > 300, `${checked} schemas checked`);
  // the check itself catches a broken schema
  t.notOk(ajv.validateSchema({ type: 'strin' }), 'a misspelt type is caught');
});
