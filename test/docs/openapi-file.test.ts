// The committed openapi.json and openapi.admin.json are the documents the server serves at /docs/json and
// /__admin/openapi.json: regenerate them after changing routes.
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import {
  adminOpenapiFile,
  documentUrls,
  generateOpenApi,
  openapiFile,
  regenerateCommand,
} from '../../src/tools/openapi.js';

type Doc = { openapi: string; info: { title: string }; paths: Record<string, Record<string, { tags?: string[] }>> };

for (const [which, file] of [
  ['portal', openapiFile],
  ['admin', adminOpenapiFile],
] as const) {
  t.test(`${basename(file)} is up to date`, async (t) => {
    const fresh = await generateOpenApi(which);
    t.equal(await generateOpenApi(which), fresh, 'the generation is deterministic');
    const committed = existsSync(file) ? readFileSync(file, 'utf8') : '';
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
        ? `${basename(file)} is stale: run \`${regenerateCommand}\` and commit it${where}`
        : `${basename(file)} matches ${documentUrls[which]}`,
    );
    t.equal((JSON.parse(fresh) as Doc).openapi, '3.0.3');
  });
}

t.test("the portal's document holds the portal's API alone; the control plane's holds the rest", async (t) => {
  const portal = JSON.parse(readFileSync(openapiFile, 'utf8')) as Doc;
  const admin = JSON.parse(readFileSync(adminOpenapiFile, 'utf8')) as Doc;
  const paths = (doc: Doc) => Object.keys(doc.paths);
  const tagsOf = (doc: Doc) =>
    new Set(Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((op) => op.tags ?? [])));
  t.same(
    paths(portal).filter((p) => p.startsWith('/__admin')),
    [],
    'no /__admin path in openapi.json',
  );
  t.notOk(tagsOf(portal).has('mock'), 'no operation of openapi.json is tagged mock');
  t.notOk(tagsOf(portal).has('wiremock'), 'nor wiremock');
  t.same(
    paths(admin).filter((p) => !p.startsWith('/__admin') && !p.startsWith('/wiremock/__admin') && p !== '/'),
    [],
    "every path of openapi.admin.json is under /__admin or WireMock's /wiremock/__admin, but the root page",
  );
  t.same([...tagsOf(admin)].sort(), ['mock', 'wiremock'], "the control plane is tagged mock, WireMock's API wiremock");
  t.ok(admin.paths['/__admin/ca.pem'], 'the CA download is documented with the control plane');
  t.ok(portal.paths['/mobile/auth'], 'the sign-in is documented with the portal');
  t.ok(paths(portal).length > 90 && paths(admin).length > 90, `${paths(portal).length} + ${paths(admin).length} paths`);
});
