// src/http/serializers.ts: a response serializer is compiled with the shared schemas its schema names (and those
// they name), not all ~150 of them, which fast-json-stringify meta-checks on every compile (issue 47); the answer
// is the same.
import t from 'tap';
import Fastify from 'fastify';
import { referencedSchemas, useLazySerializers } from '../../src/http/serializers.js';

t.test('the shared schemas a schema names, transitively, and no other', async (t) => {
  const shared = {
    A: { $id: 'A', type: 'object', properties: { b: { $ref: 'B#' }, self: { $ref: '#/properties/b' } } },
    B: { $id: 'B', type: 'array', items: { anyOf: [{ $ref: 'C#/properties/x' }, { type: 'null' }] } },
    C: { $id: 'C', type: 'object', properties: { x: { type: 'string' } } },
    Unused: { $id: 'Unused', type: 'string' },
  };
  const picked = referencedSchemas({ type: 'object', properties: { a: { $ref: 'A#' } } }, shared);
  t.same(Object.keys(picked).sort(), ['A', 'B', 'C']);
  t.same(referencedSchemas({ type: 'string' }, shared), {});
  t.same(Object.keys(referencedSchemas({ $ref: 'Missing#' }, shared)), [], 'an unknown id is left to the compiler');
});

t.test('a serializer given only the schemas it names writes the same answer', async (t) => {
  const app = Fastify();
  app.addSchema({ $id: 'Item', type: 'object', properties: { id: { type: 'string' }, n: { type: 'integer' } } });
  app.addSchema({ $id: 'Other', type: 'object', properties: { x: { type: 'string' } } });
  useLazySerializers(app);
  app.get('/', { schema: { response: { 200: { type: 'array', items: { $ref: 'Item#' } } } } }, async () => [
    { id: 'a', n: 1, dropped: true },
  ]);
  const res = await app.inject('/');
  t.equal(res.body, '[{"id":"a","n":1}]');
  await app.close();
});
