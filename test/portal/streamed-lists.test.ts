// Answers the API does not page (the moderation queue, a level of the organisation tree, the process catalog) are
// streamed past `streamedFrom` items (src/routes/handler.ts, issue 54): a sandbox filled through the records API
// made megabytes built and serialized in one turn. A stream never goes through the response schema's serializer, so
// these tests hold the streamed bytes to it: the serializer, given what was streamed, writes the very same text.
// Over a real socket, at exactly the bound (one text) and one past it (streamed).
import t from 'tap';
import fastJsonStringify from 'fast-json-stringify';
import type { FastifyInstance } from 'fastify';
import { streamedFrom } from '../../src/routes/handler.js';
import { referencedSchemas } from '../../src/http/serializers.js';
import { IdeaStatusCode } from '../../src/schemas/ideas.js';
import { build, signIn, tenants } from '../helper.js';

/** A response serializer, compiled as the app compiles its routes' (src/http/serializers.ts). */
function serializerOf(app: FastifyInstance, schema: object): (data: unknown) => string {
  const shared = app.getSchemas() as Record<string, unknown>;
  return fastJsonStringify(schema as never, { schema: referencedSchemas(schema, shared) as never }) as never;
}

t.test('large unpaged lists are streamed, with the bytes the serializer writes', async (t) => {
  const app = await build(t);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const admin = await signIn(app);
  const records = async (collection: string, count: number, payload: object) => {
    const res = await app.inject({
      method: 'POST',
      url: `/__admin/data/${tenants.romashka}/${collection}?count=${count}`,
      payload,
    });
    t.equal(res.statusCode, 201, `${count} ${collection}: ${res.body.slice(0, 200)}`);
  };
  const get = async (path: string) => {
    // no compression: an answer of one text then says its length
    const res = await fetch(`${base}${path}`, { headers: { ...admin.headers, 'accept-encoding': 'identity' } });
    return { status: res.status, length: res.headers.get('content-length'), text: await res.text() };
  };
  /** `path` answers `schema` as one text at the bound and streamed past it, the serializer's bytes each time */
  const check = async (path: string, schema: object, items: (answer: never) => number, addOne: () => Promise<void>) => {
    const serialize = serializerOf(app, schema);
    const whole = await get(path);
    t.equal(whole.status, 200);
    t.equal(items(JSON.parse(whole.text) as never), streamedFrom, `${path}: ${streamedFrom} items`);
    t.not(whole.length, null, `${path} at the bound: one text`);
    await addOne();
    const streamed = await get(path);
    t.equal(streamed.status, 200);
    const answer = JSON.parse(streamed.text) as never;
    t.equal(items(answer), streamedFrom + 1, `${path}: one more`);
    t.equal(streamed.length, null, `${path} past the bound: streamed`);
    t.equal(streamed.text, serialize(answer), `${path}: the serializer's bytes`);
  };

  // the queue: ideas on moderation and pending comments
  const seeded = (await get('/moderation').then((r) => JSON.parse(r.text))) as { count: number };
  await records('ideas', streamedFrom - seeded.count, { statusId: IdeaStatusCode.moderation });
  await check(
    '/moderation',
    { $ref: 'Moderation#' },
    (q: { count: number; data: unknown[] }) => (q.count === q.data.length ? q.count : -1),
    () => records('ideaComments', 1, { status: 'pending' }),
  );

  // a level of the tree: sub-departments (and people) of the root
  const root = (await get('/department/tree-node').then((r) => JSON.parse(r.text))) as {
    id: string;
    items: unknown[];
  };
  await records('departments', streamedFrom - root.items.length, { parentId: root.id });
  await check(
    '/department/tree-node',
    { $ref: 'DepartmentTreeNode#' },
    (n: { items: unknown[] }) => n.items.length,
    () => records('departments', 1, { parentId: root.id }),
  );

  // the catalog's root: categories and processes
  const catalog = (await get('/workflow/catalog').then((r) => JSON.parse(r.text))) as {
    workflows: unknown[];
    categories: unknown[];
  };
  const entries = (c: { workflows: unknown[]; categories: unknown[] }) => c.workflows.length + c.categories.length;
  // half of them categories at the root (each counts its processes when it is written), half processes
  const half = Math.floor((streamedFrom - entries(catalog)) / 2);
  await records('wfCategories', half, { parentId: null });
  await records('wfProcesses', streamedFrom - entries(catalog) - half, { name: 'Заявка на пропуск' });
  await check('/workflow/catalog', { $ref: 'WorkflowCatalog#' }, entries, () =>
    records('wfProcesses', 1, { name: 'Заявка на пропуск' }),
  );

  // lookups of every user group and meeting place
  const list = (item: string) => ({
    type: 'object',
    properties: { data: { type: 'array', items: { $ref: `${item}#` } } },
  });
  const count = (answer: { data: unknown[] }) => answer.data.length;
  for (const [path, collection, item] of [
    ['/user-group/items', 'userGroups', 'LookupItem'],
    ['/meeting-place/items', 'meetingPlaces', 'MeetingPlaceItem'],
  ] as const) {
    const before = count((await get(path).then((r) => JSON.parse(r.text))) as { data: unknown[] });
    await records(collection, streamedFrom - before, {});
    await check(path, list(item), count, () => records(collection, 1, {}));
  }
});
