// The committed openapi.json is the document the server serves at /docs/json: regenerate it after changing routes.
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { generateOpenApi, openapiFile, regenerateCommand } from '../src/tools/openapi.js';

t.test('openapi.json is up to date', async (t) => {
  const fresh = await generateOpenApi();
  t.equal(await generateOpenApi(), fresh, 'the generation is deterministic');
  const committed = existsSync(openapiFile) ? readFileSync(openapiFile, 'utf8') : '';
  const stale = committed !== fresh;
  let where = '';
  if (stale) {
    const a = committed.split('\n');
    const b = fresh.split('\n');
    const line = b.findIndex((l, i) => l !== a[i]);
    where = ` (first difference at line ${line + 1}: committed ${JSON.stringify(a[line] ?? '<end>')}, fresh ${JSON.stringify(b[line] ?? '<end>')})`;
  }
  t.notOk(
    stale,
    stale
      ? `openapi.json is stale: run \`${regenerateCommand}\` and commit openapi.json${where}`
      : 'openapi.json matches /docs/json',
  );
  const doc = JSON.parse(fresh) as { openapi: string; paths: Record<string, unknown> };
  t.equal(doc.openapi, '3.0.3');
  t.ok(doc.paths['/__admin/ca.pem'], 'the CA download is documented');
});
