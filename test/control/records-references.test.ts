// The reference map (src/domain/references.ts) against the record schemas and the seeded world: every id-like
// field of every collection is either a reference or listed as not one (with why), every entry names a real field,
// and every reference of the default world resolves, so the map says what the seeder does.
import t from 'tap';
import type { TSchema } from '@sinclair/typebox';
import { TenantData } from '../../src/schemas/tenant-data.js';
import { idsAt, notReferences, references, exists } from '../../src/domain/references.js';
import type { CollectionName } from '../../src/store/store.js';
import { build } from '../helper.js';

const idLike = /(Id|Ids|_id)$/;

/** Every string leaf of a schema (or list of strings) with its path in the map's syntax, and whether it is a uuid. */
function leaves(schema: TSchema, path: string, out: Array<{ path: string; name: string; uuid: boolean }>) {
  const name = path.split('.').at(-1)?.replace(/\[\]$/, '').replace(/^\*$/, '') ?? '';
  const options = (schema.anyOf as TSchema[] | undefined) ?? [schema];
  for (const s of options) {
    if (s.type === 'string' && s.const === undefined) out.push({ path, name, uuid: s.format === 'uuid' });
    else if (s.type === 'array') leaves(s.items as TSchema, `${path}[]`, out);
    else if (s.type === 'object' && s.properties) {
      for (const [key, value] of Object.entries(s.properties as Record<string, TSchema>))
        leaves(value, path === '' ? key : `${path}.${key}`, out);
    } else if (s.type === 'object' && s.patternProperties) {
      for (const value of Object.values(s.patternProperties as Record<string, TSchema>))
        leaves(value, `${path}.*`, out);
    }
  }
  return out;
}

const collections = Object.entries(TenantData.properties).filter(([, s]) => (s as TSchema).type === 'array') as Array<
  [CollectionName, TSchema]
>;

t.test('every id-like field is a reference or listed as not one; every entry is a real field', async (t) => {
  const known = new Set<string>();
  for (const [name, schema] of collections) {
    const items = schema.items as TSchema;
    for (const leaf of leaves(items, '', [])) {
      const path = leaf.path.replace(/^\[\]$/, '');
      known.add(`${name}.${path}`);
      if (leaf.name === 'id' || !(leaf.uuid || idLike.test(leaf.name) || path === '')) continue;
      const where = `${name}.${path}`;
      t.ok(references[name]?.[path] !== undefined || notReferences[where] !== undefined, `${where} is in a table`);
    }
  }
  for (const [name, paths] of Object.entries(references))
    for (const path of Object.keys(paths ?? {})) t.ok(known.has(`${name}.${path}`), `${name}.${path} is a field`);
  for (const where of Object.keys(notReferences)) t.ok(known.has(where), `${where} is a field`);
});

t.test('every reference of the seeded world resolves', async (t) => {
  const app = await build(t);
  let checked = 0;
  for (const tenant of app.sandboxes.get('default').store.tenants()) {
    for (const [name, paths] of Object.entries(references) as Array<[CollectionName, Record<string, CollectionName>]>) {
      for (const [path, target] of Object.entries(paths)) {
        const dangling = (tenant[name] as readonly unknown[])
          .flatMap((r) => idsAt(r, path))
          .filter((id) => {
            checked++;
            return !exists(tenant, target, id);
          });
        t.same(dangling.slice(0, 3), [], `${name}.${path} → ${target}`);
      }
    }
  }
  t.ok(checked > 10_000, `many references checked (${checked})`);
});
