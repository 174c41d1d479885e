// WireMock's mappings API of a sandbox: list, create, get, replace, delete, import, reset, save, by metadata,
// unmatched. Every change is checked whole first (parseMapping, the bounds), so a refused one changes nothing.
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { servedMappingIds } from './requests.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../../schemas/common.js';
import { parseMapping, type StubMapping } from '../../../wiremock/mapping.js';
import { patternDistance } from '../../../wiremock/match.js';
import {
  Empty,
  IdParams,
  ImportBody,
  Mapping,
  MappingIn,
  MappingList,
  Pattern,
  WireMockError,
  WireMockOrOwnError,
  checkId,
  idMaker,
  notFound,
  parsePattern,
  rebase,
  shown,
  tags,
  wiremockKit,
} from './common.js';

export const wiremockMappingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { mappingLimits, budget, put } = wiremockKit(app);

  app.get(
    '/mappings',
    {
      schema: {
        operationId: 'wiremockMappingsList',
        tags,
        summary: "The sandbox's stub mappings",
        description:
          "WireMock's GET /__admin/mappings: in the order they are tried (priority, then newest first), `limit` " +
          'from `offset`; `meta.total` counts them all. An offset past the end is an empty list (WireMock: 500).',
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 0 })),
          offset: Type.Optional(Type.Integer({ minimum: 0 })),
        }),
        response: { 200: MappingList, ...errors(400, 401, 429) },
      },
      config: { sandbox: 'use' },
    },
    async (req) => {
      const all = req.mock.sandbox.wiremock.servingOrder;
      const from = req.query.offset ?? 0;
      const to = req.query.limit === undefined ? all.length : from + req.query.limit;
      return { mappings: all.slice(from, to).map(shown), meta: { total: all.length } };
    },
  );

  app.post(
    '/mappings',
    {
      schema: {
        operationId: 'wiremockMappingCreate',
        tags,
        summary: 'Add a stub mapping',
        description:
          'Adds a mapping (or replaces the one with its id): 201 with the mapping and its id. A field not served or ' +
          "not known is WireMock's 422 naming the JSON pointer; past --wiremock-max-mappings or " +
          '--wiremock-sandbox-kb, a 422 naming the flag. Written under --data at once.',
        body: MappingIn,
        response: { 201: Mapping, 422: WireMockError, ...errors(400, 401, 429) },
      },
      config: { sandbox: 'write' },
    },
    async (req, reply) => {
      const { sandbox } = req.mock;
      const parsed = parseMapping(req.body, idMaker(sandbox), mappingLimits);
      if (!('mapping' in parsed)) return reply.code(422).send(parsed.errors);
      const refused = put(sandbox, sandbox.wiremock.with(parsed.mapping));
      if (refused) return reply.code(422).send(refused);
      return reply.code(201).send(shown(parsed.mapping));
    },
  );

  app.delete(
    '/mappings',
    {
      schema: {
        operationId: 'wiremockMappingsDelete',
        tags,
        summary: 'Delete every stub mapping',
        description: "Deletes the sandbox's mappings (scenario states stay, as WireMock keeps them). Answers {}.",
        response: { 200: Empty, ...errors(401, 429) },
      },
      config: { sandbox: 'write' },
    },
    async (req) => {
      const { sandbox } = req.mock;
      sandbox.wiremock = sandbox.wiremock.filter(() => false);
      return {};
    },
  );

  app.get(
    '/mappings/:stubMappingId',
    {
      schema: {
        operationId: 'wiremockMappingGet',
        tags,
        summary: 'One stub mapping',
        description: 'The mapping with that id; 404 when there is none, 400 when the id is no UUID.',
        params: IdParams,
        response: { 200: Mapping, 400: WireMockOrOwnError, 404: WireMockOrOwnError, ...errors(401, 429) },
      },
      config: { sandbox: 'use' },
    },
    async (req, reply) => {
      const id = req.params.stubMappingId;
      checkId(id);
      const found = req.mock.sandbox.wiremock.get(id);
      return found ? shown(found) : notFound(reply, id);
    },
  );

  app.put(
    '/mappings/:stubMappingId',
    {
      schema: {
        operationId: 'wiremockMappingUpdate',
        tags,
        summary: 'Replace a stub mapping',
        description:
          'Replaces the mapping with that id (it keeps its place); the id of the path is the one kept. 422 as for ' +
          'POST; 404 when there is no such mapping.',
        params: IdParams,
        body: MappingIn,
        response: {
          200: Mapping,
          400: WireMockOrOwnError,
          404: WireMockOrOwnError,
          422: WireMockError,
          ...errors(401, 429),
        },
      },
      config: { sandbox: 'write' },
    },
    async (req, reply) => {
      const id = req.params.stubMappingId;
      checkId(id);
      const { sandbox } = req.mock;
      const parsed = parseMapping(req.body, () => id, mappingLimits);
      if (!('mapping' in parsed)) return reply.code(422).send(parsed.errors);
      if (!sandbox.wiremock.get(id)) return notFound(reply, id);
      const mapping = { ...parsed.mapping, id: id.toLowerCase(), uuid: id.toLowerCase() };
      const refused = put(sandbox, sandbox.wiremock.with(mapping));
      if (refused) return reply.code(422).send(refused);
      return shown(mapping);
    },
  );

  app.delete(
    '/mappings/:stubMappingId',
    {
      schema: {
        operationId: 'wiremockMappingDelete',
        tags,
        summary: 'Delete a stub mapping',
        description: 'Deletes the mapping with that id: {}; 404 when there is none.',
        params: IdParams,
        response: { 200: Empty, 400: WireMockOrOwnError, 404: WireMockOrOwnError, ...errors(401, 429) },
      },
      config: { sandbox: 'write' },
    },
    async (req, reply) => {
      const id = req.params.stubMappingId;
      checkId(id);
      const { sandbox } = req.mock;
      if (!sandbox.wiremock.get(id)) return notFound(reply, id);
      sandbox.wiremock = sandbox.wiremock.filter((m) => m.id !== id.toLowerCase());
      return {};
    },
  );

  app.post(
    '/mappings/import',
    {
      schema: {
        operationId: 'wiremockMappingsImport',
        tags,
        summary: 'Import stub mappings',
        description:
          'Adds the mappings, the first one served first among equals (as WireMock). Every mapping is checked ' +
          'before any is added: one refused is a 422 naming /mappings/N/…, and nothing changes. An id the sandbox ' +
          'has is replaced (OVERWRITE, the default) or kept (IGNORE); deleteAllNotInImport deletes the others ' +
          'first. Each option has its default when left out (WireMock: 500 when importOptions lacks one).',
        body: ImportBody,
        response: { 200: Empty, 422: WireMockError, ...errors(400, 401, 429) },
      },
      config: { sandbox: 'write' },
    },
    async (req, reply) => {
      const { sandbox } = req.mock;
      const newId = idMaker(sandbox);
      const parsed: StubMapping[] = [];
      for (const [i, json] of req.body.mappings.entries()) {
        const one = parseMapping(json, newId, mappingLimits);
        if (!('mapping' in one)) return reply.code(422).send(rebase(one.errors, '', `/mappings/${i}`));
        parsed.push(one.mapping);
      }
      const overwrite = (req.body.importOptions?.duplicatePolicy ?? 'OVERWRITE') === 'OVERWRITE';
      const ids = new Set(parsed.map((m) => m.id));
      let next = req.body.importOptions?.deleteAllNotInImport
        ? sandbox.wiremock.filter((m) => ids.has(m.id))
        : sandbox.wiremock;
      // the last added is served first among equals: added last to first, as WireMock does
      for (const mapping of parsed.toReversed()) if (overwrite || !next.get(mapping.id)) next = next.with(mapping);
      const refused = put(sandbox, next);
      if (refused) return reply.code(422).send(refused);
      return {};
    },
  );

  app.post(
    '/mappings/reset',
    {
      schema: {
        operationId: 'wiremockMappingsReset',
        tags,
        summary: 'Back to the start mappings',
        description:
          "The mappings the sandbox's scenario starts it with (--wiremock DIR's, then the scenario's own), scenario " +
          'states reset; the journal stays.',
        response: { 200: Empty, ...errors(401, 429) },
      },
      config: { sandbox: 'write' },
    },
    async (req) => {
      const { sandbox } = req.mock;
      sandbox.wiremock = app.scenarios.wiremockOf(sandbox.scenario);
      return {};
    },
  );

  app.post(
    '/mappings/save',
    {
      schema: {
        operationId: 'wiremockMappingsSave',
        tags,
        summary: 'Persist the stub mappings (nothing to do)',
        description:
          'Every change is written under --data when it is made (an acknowledged change is never lost), so this ' +
          'answers 200 and changes nothing. Without --data nothing is written, as before.',
        response: { 200: Empty, ...errors(401) },
      },
    },
    async () => ({}),
  );

  const byMetadata = (req: FastifyRequest, reply: FastifyReply) => {
    const pattern = parsePattern(req.body, mappingLimits);
    if ('errors' in pattern) {
      void reply.code(422).send(pattern);
      return null;
    }
    const b = budget();
    return (m: StubMapping) =>
      patternDistance(pattern, m.metadata === undefined ? undefined : JSON.stringify(m.metadata), b) === 0;
  };

  app.post(
    '/mappings/find-by-metadata',
    {
      schema: {
        operationId: 'wiremockMappingsFindByMetadata',
        tags,
        summary: 'Stub mappings whose metadata matches a pattern',
        description:
          "A string value pattern over each mapping's metadata as JSON (matchesJsonPath, equalToJson, …); a " +
          "pattern not served is WireMock's 422.",
        body: Pattern,
        response: { 200: MappingList, 422: WireMockError, ...errors(400, 401, 429) },
      },
      config: { sandbox: 'use' },
    },
    async (req, reply) => {
      const sandbox = req.mock.sandbox;
      const matches = byMetadata(req, reply);
      if (!matches) return reply;
      const found = sandbox.wiremock.servingOrder.filter(matches);
      return { mappings: found.map(shown), meta: { total: found.length } };
    },
  );

  app.post(
    '/mappings/remove-by-metadata',
    {
      schema: {
        operationId: 'wiremockMappingsRemoveByMetadata',
        tags,
        summary: 'Delete the stub mappings whose metadata matches a pattern',
        description: 'As find-by-metadata, deleting what it finds. Answers {}.',
        body: Pattern,
        response: { 200: Empty, 422: WireMockError, ...errors(400, 401, 429) },
      },
      config: { sandbox: 'write' },
    },
    async (req, reply) => {
      const { sandbox } = req.mock;
      const matches = byMetadata(req, reply);
      if (!matches) return reply;
      sandbox.wiremock = sandbox.wiremock.filter((m) => !matches(m));
      return {};
    },
  );

  // A mapping is "unmatched" when no request the sandbox's journal keeps was served by it (WireMock reads its own
  // journal the same way): emptying the journal, or its bound dropping the oldest entries, makes a mapping unmatched
  // again.
  app.get(
    '/mappings/unmatched',
    {
      schema: {
        operationId: 'wiremockMappingsUnmatched',
        tags,
        summary: 'The stub mappings no request was served by',
        description:
          "WireMock's GET /__admin/mappings/unmatched: the mappings no entry of the sandbox's journal names " +
          '(--journal-limit keeps the newest), in the order they are tried; `meta.total` counts them.',
        response: { 200: MappingList, ...errors(400, 401, 429) },
      },
      config: { sandbox: 'use' },
    },
    async (req) => {
      const sandbox = req.mock.sandbox;
      const served = servedMappingIds(sandbox);
      const found = sandbox.wiremock.servingOrder.filter((m) => !served.has(m.id));
      return { mappings: found.map(shown), meta: { total: found.length } };
    },
  );

  app.delete(
    '/mappings/unmatched',
    {
      schema: {
        operationId: 'wiremockMappingsUnmatchedDelete',
        tags,
        summary: 'Delete the stub mappings no request was served by',
        description:
          'Deletes the mappings GET /mappings/unmatched lists (scenario states stay). Answers {}, as WireMock does.',
        response: { 200: Empty, ...errors(400, 401, 429) },
      },
      config: { sandbox: 'write' },
    },
    async (req) => {
      const { sandbox } = req.mock;
      const served = servedMappingIds(sandbox);
      sandbox.wiremock = sandbox.wiremock.filter((m) => served.has(m.id));
      return {};
    },
  );
};
