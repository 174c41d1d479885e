// WireMock's request journal API (`/sandbox/NAME/wiremock/__admin/requests…`, docs/wiremock.md "Requests") as a
// view over the sandbox's own journal: every request the sandbox received, in WireMock's ServeEvent and
// LoggedRequest shapes. A request pattern is matched with the WireMock core's matcher. Ids are UUIDs derived from
// the sandbox's name and our entry id (requestUuid), so they are stable and need no table.
import { createHash } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../../schemas/common.js';
import type { JournalEntry } from '../../../schemas/control.js';
import type { Sandbox } from '../../../store/sandbox.js';
import { uuidFrom } from '../../../store/ids.js';
import { wireMockUrl } from '../../../http/context.js';
import type { StubMapping } from '../../../wiremock/mapping.js';
import { findInOrder, matchRequest, patternDistance, type WireRequest } from '../../../wiremock/match.js';
import { RegexBudget } from '../../../shared/matchers.js';
import { parsePattern, parseRequestPattern, WireMockError, wiremockKit } from './common.js';
import { sendJsonStream } from '../../export-stream.js';
import { LazyList } from '../../../shared/json-stream.js';

const tags = ['wiremock'];

/** How much matching one near-misses read may do (unmatched requests × mappings); past it, the newest requests. */
export const nearMissBudget = 50_000;

const QueryValues = Type.Record(Type.String(), Type.Object({ key: Type.String(), values: Type.Array(Type.String()) }));

export const LoggedRequest = Type.Object(
  {
    url: Type.String({ description: 'as the client sent it, less /sandbox/NAME and /wiremock' }),
    absoluteUrl: Type.String({
      description: 'the URL as the client sent it, /sandbox/NAME/wiremock included (WireMock: the full request URL)',
    }),
    method: Type.String(),
    headers: Type.Record(Type.String(), Type.String(), { description: 'secrets redacted, as in our journal' }),
    cookies: Type.Record(Type.String(), Type.String()),
    browserProxyRequest: Type.Boolean(),
    loggedDate: Type.Integer({ description: 'the sandbox clock when it arrived, ms since the epoch' }),
    loggedDateString: Type.String(),
    body: Type.String({ description: 'the body as the journal keeps it: its first 8 KiB, secrets redacted' }),
    bodyAsBase64: Type.String(),
    queryParams: QueryValues,
  },
  { description: "WireMock's LoggedRequest" },
);
type LoggedRequest = Static<typeof LoggedRequest>;

export const ServeEvent = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    request: LoggedRequest,
    responseDefinition: Type.Object({ status: Type.Integer(), fromConfiguredStub: Type.Boolean() }),
    response: Type.Object({ status: Type.Integer(), body: Type.String(), bodyAsBase64: Type.String() }),
    wasMatched: Type.Boolean({ description: 'a stub mapping of the sandbox answered it' }),
    timing: Type.Object({ totalTime: Type.Number(), serveTime: Type.Number() }),
    stubMapping: Type.Optional(Type.Unknown({ description: 'the mapping that answered ({ id } once deleted)' })),
  },
  { description: "WireMock's ServeEvent, made from an entry of the sandbox's journal" },
);
type ServeEvent = Static<typeof ServeEvent>;

/** WireMock's POST /requests/find and GET /requests/unmatched: the requests found, oldest first. */
export const LoggedRequests = Type.Object({
  requests: Type.Array(LoggedRequest),
  requestJournalDisabled: Type.Boolean(),
});

/** WireMock's GET /requests: the sandbox's requests, newest first. */
export const ServeEvents = Type.Object({
  requests: Type.Array(ServeEvent),
  meta: Type.Object({ total: Type.Integer() }),
  requestJournalDisabled: Type.Boolean(),
});
/** What a removal answers: the requests it took out of the journal. */
export const Removed = Type.Object({ serveEvents: Type.Array(ServeEvent) });

const RequestId = Type.Object({
  requestId: Type.String({ format: 'uuid', description: 'the id of a request of the journal (a UUID)' }),
});
const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, description: 'at most this many, newest first' })),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'only those logged at or after it' })),
});
const Pattern = Type.Unknown({ description: "a WireMock request pattern (a mapping's request)" });

/** The UUID WireMock clients see for journal entry `id` of `sandbox`: 10 bytes of the name's hash, then the id. */
export function requestUuid(sandbox: string, id: number): string {
  const bytes = createHash('sha256').update(`wiremock-request:${sandbox}`).digest().subarray(0, 16);
  bytes.writeUIntBE(id, 10, 6);
  return uuidFrom(bytes);
}

/** The journal entry id a UUID of requestUuid names in this sandbox, or null (another sandbox's, or not ours). */
export function entryIdOf(sandbox: string, uuid: string): number | null {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(uuid)) return null;
  const id = Number.parseInt(uuid.slice(24), 16);
  return requestUuid(sandbox, id) === uuid.toLowerCase() ? id : null;
}

/** The body text of an entry (the journal gives JSON back parsed). */
const bodyText = (e: JournalEntry): string =>
  e.requestBody === undefined ? '' : typeof e.requestBody === 'string' ? e.requestBody : JSON.stringify(e.requestBody);

/** A journal entry as the matcher reads a request: its URL after the sandbox and /wiremock prefixes. */
export const wireRequest = (e: JournalEntry): WireRequest => ({
  method: e.method,
  url: wireMockUrl(e.url),
  headers: e.requestHeaders,
  body: bodyText(e),
});

/**
 * A journal entry as WireMock's LoggedRequest. `url` is relative to the sandbox's WireMock base URL, as WireMock's
 * is to its context path; `absoluteUrl` is the URL as the client sent it, the sandbox and /wiremock prefixes
 * included, as WireMock's is the servlet's full request URL (docs/wiremock.md, "Requests"). `scheme` is the one
 * the journal is read over (the journal does not keep each request's).
 */
function loggedRequest(e: JournalEntry, scheme: string): LoggedRequest {
  const url = wireMockUrl(e.url);
  const body = bodyText(e);
  const query = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
  const queryParams: LoggedRequest['queryParams'] = {};
  for (const key of new Set(query.keys())) queryParams[key] = { key, values: query.getAll(key) };
  const cookies: Record<string, string> = {};
  for (const part of (e.requestHeaders.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) cookies[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  const loggedDate = Date.parse(e.at);
  return {
    url,
    absoluteUrl: `${scheme}://${e.requestHeaders.host ?? 'localhost'}${e.url.startsWith('/') ? e.url : `/${e.url}`}`,
    method: e.method,
    headers: e.requestHeaders,
    cookies,
    browserProxyRequest: false,
    loggedDate,
    loggedDateString: e.at,
    body,
    bodyAsBase64: Buffer.from(body).toString('base64'),
    queryParams,
  };
}

function serveEvent(sandbox: Sandbox, e: JournalEntry, scheme: string): ServeEvent {
  const answered = e.wiremockMapping;
  const response =
    e.responseBody === undefined
      ? ''
      : typeof e.responseBody === 'string'
        ? e.responseBody
        : JSON.stringify(e.responseBody);
  return {
    id: requestUuid(sandbox.name, e.id),
    request: loggedRequest(e, scheme),
    responseDefinition: { status: e.status, fromConfiguredStub: answered !== undefined },
    response: { status: e.status, body: response, bodyAsBase64: Buffer.from(response).toString('base64') },
    wasMatched: answered !== undefined,
    timing: { totalTime: e.durationMs, serveTime: e.durationMs },
    ...(answered !== undefined ? { stubMapping: sandbox.wiremock.get(answered) ?? { id: answered } } : {}),
  };
}

/** How long the journal is read in one turn of the event loop before the loop is given back. */
const readSliceMs = 8;

/**
 * The kept entries `keep` takes, newest first. The entries are taken when asked; each is read back and tried in
 * slices of the event loop: a whole journal of 1,000 requests with 8 KiB bodies, read back at once, held it
 * 100-250 ms (issue 54).
 */
async function keptEntries(sandbox: Sandbox, keep: (e: JournalEntry) => boolean): Promise<JournalEntry[]> {
  const entries = sandbox.journal.listed({ limit: Math.max(1, sandbox.journal.size()) });
  const kept: JournalEntry[] = [];
  let sliceStart = performance.now();
  for (let i = 0; i < entries.length; i++) {
    if (performance.now() - sliceStart > readSliceMs) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
    const e = entries.at(i);
    if (keep(e)) kept.push(e);
  }
  return kept;
}

/** The ids of the mappings that answered a request the sandbox's journal keeps (GET /mappings/unmatched). */
export const servedMappingIds = (sandbox: Sandbox): Set<string> => sandbox.journal.mappingIds();

/** Unmatched, as WireMock means it: no mapping answered and no portal operation either (the 404s of unknown paths). */
const isUnmatched = (e: JournalEntry) => e.wiremockMapping === undefined && e.operationId === null;

function matching(sandbox: Sandbox, mapping: StubMapping): Promise<JournalEntry[]> {
  const noStates = new Map<string, string>();
  return keptEntries(sandbox, (e) => matchRequest(mapping, wireRequest(e), noStates).matched);
}

const refuse = (reply: FastifyReply, body: WireMockError) => reply.code(422).send(body);

/** The scheme the journal is read over: the absoluteUrl of its entries (the server listens with one). */
const schemeOf = (req: FastifyRequest): string => (req.protocol === 'https' ? 'https' : 'http');

/** Takes `gone` out of the request's sandbox's journal and answers them as WireMock does, `{serveEvents}`. */
function removeEntries(req: FastifyRequest, reply: FastifyReply, gone: JournalEntry[]) {
  const { sandbox } = req.mock;
  sandbox.journal.remove(new Set(gone.map((e) => e.id)));
  // streamed as the lists are: each ServeEvent made as the writer reaches it, from the entries read back before
  return sendJsonStream(reply, { serveEvents: new LazyList(gone, (e) => serveEvent(sandbox, e, schemeOf(req))) });
}

const journalDisabled = (req: FastifyRequest) => req.server.config.journalLimit === 0;

/** `{requests}` as LoggedRequests (LoggedRequests' order), streamed: each made as the writer reaches it. */
const sendLoggedRequests = (req: FastifyRequest, reply: FastifyReply, entries: JournalEntry[]) =>
  sendJsonStream(reply, {
    requests: new LazyList(entries, (e) => loggedRequest(e, schemeOf(req))),
    requestJournalDisabled: journalDisabled(req),
  });

/** WireMock's /__admin/requests API over the sandbox's journal; registered in the `/wiremock/__admin` block. */
export const wiremockRequestRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { mappingLimits } = wiremockKit(app);
  // a fresh WireMock answers an empty journal: the sandbox is made on first use (a write makes it)
  const config = { sandbox: 'write' as const };

  app.get(
    '/requests',
    {
      schema: {
        operationId: 'wiremockRequests',
        tags,
        summary: "WireMock: the sandbox's requests, newest first",
        description:
          'Every request the sandbox received (its journal, --journal-limit), as WireMock ServeEvents: stubbed ' +
          'ones name their mapping. limit: at most that many; since: logged at or after it.',
        querystring: ListQuery,
        response: { 200: ServeEvents, ...errors(400, 401, 429) },
      },
      config,
    },
    async (req, reply) => {
      const { sandbox } = req.mock;
      const limit = req.query.limit ?? Math.max(1, sandbox.journal.size());
      const entries = sandbox.journal.listed({ limit, ...(req.query.since ? { since: req.query.since } : {}) });
      // streamed, each ServeEvent made as the writer reaches it: a whole journal of 1,000 requests with 8 KiB
      // bodies (15 MB of ServeEvents) made and serialized at once held the loop about a second
      return sendJsonStream(reply, {
        requests: entries.map((e) => serveEvent(sandbox, e, schemeOf(req))),
        meta: { total: sandbox.journal.size() },
        requestJournalDisabled: journalDisabled(req),
      });
    },
  );

  app.delete(
    '/requests',
    {
      schema: {
        operationId: 'wiremockRequestsClear',
        tags,
        summary: "WireMock: empty the sandbox's journal",
        description:
          "Removes every request of the sandbox's journal (ours and WireMock's view of it are one), as " +
          "WireMock's DELETE /__admin/requests; its mappings, scenario states and data stay.",
        response: { 200: Type.Object({}), ...errors(400, 401, 429) },
      },
      config,
    },
    async (req) => {
      req.mock.sandbox.journal.clear();
      return {};
    },
  );

  app.get(
    '/requests/:requestId',
    {
      schema: {
        operationId: 'wiremockRequest',
        tags,
        summary: 'WireMock: one request by its id',
        description:
          "A 404 when no kept entry has that id: WireMock's error body naming the id (WireMock's own has no body).",
        params: RequestId,
        response: {
          200: ServeEvent,
          404: WireMockError,
          ...errors(400, 401, 429),
        },
      },
      config,
    },
    async (req, reply) => {
      const { sandbox } = req.mock;
      const id = entryIdOf(sandbox.name, req.params.requestId);
      const [entry] = id === null ? [] : sandbox.journal.list({ limit: 1 }, new Set([id]));
      if (!entry)
        return reply.code(404).send({
          errors: [{ code: 404, title: `No request ${req.params.requestId.slice(0, 100)} in this sandbox's journal` }],
        });
      return serveEvent(sandbox, entry, schemeOf(req));
    },
  );

  app.delete(
    '/requests/:requestId',
    {
      schema: {
        operationId: 'wiremockRequestDelete',
        tags,
        summary: 'WireMock: delete one request by its id',
        description: 'Answers 200 whether or not it was kept, as WireMock does.',
        params: RequestId,
        response: { 200: Type.Object({}), ...errors(400, 401, 429) },
      },
      config,
    },
    async (req) => {
      const id = entryIdOf(req.mock.sandbox.name, req.params.requestId);
      if (id !== null) req.mock.sandbox.journal.remove(new Set([id]));
      return {};
    },
  );

  app.post(
    '/requests/find',
    {
      schema: {
        operationId: 'wiremockRequestsFind',
        tags,
        summary: 'WireMock: the requests a request pattern matches',
        description:
          "A request pattern (as a mapping's `request`) matched against the journal, oldest first: " +
          "`{requests}` in WireMock's LoggedRequest shape. A pattern portal-mock cannot match is a 422 naming " +
          'its pointer.',
        body: Pattern,
        response: { 200: LoggedRequests, 422: WireMockError, ...errors(400, 401, 429) },
      },
      config,
    },
    async (req, reply) => {
      const pattern = parseRequestPattern(req.body, mappingLimits);
      if ('errors' in pattern) return refuse(reply, pattern);
      const found = (await matching(req.mock.sandbox, pattern)).reverse(); // WireMock lists these oldest first
      return sendLoggedRequests(req, reply, found);
    },
  );

  app.post(
    '/requests/count',
    {
      schema: {
        operationId: 'wiremockRequestsCount',
        tags,
        summary: 'WireMock: how many requests a request pattern matches',
        description:
          'The number of journal entries a request pattern matches: `{count}`, what `verify(n, …)` of a ' +
          'WireMock client reads. The journal keeps at most --journal-limit entries per sandbox.',
        body: Pattern,
        response: {
          200: Type.Object({ count: Type.Integer(), requestJournalDisabled: Type.Boolean() }),
          422: WireMockError,
          ...errors(400, 401, 429),
        },
      },
      config,
    },
    async (req, reply) => {
      const pattern = parseRequestPattern(req.body, mappingLimits);
      if ('errors' in pattern) return refuse(reply, pattern);
      const count = (await matching(req.mock.sandbox, pattern)).length;
      return { count, requestJournalDisabled: journalDisabled(req) };
    },
  );

  app.post(
    '/requests/remove',
    {
      schema: {
        operationId: 'wiremockRequestsRemove',
        tags,
        summary: 'WireMock: remove the requests a request pattern matches',
        description:
          'Removes the journal entries a request pattern matches and answers them as `{serveEvents}`; the ' +
          'bytes they held go back to the journal budgets.',
        body: Pattern,
        response: {
          200: Removed,
          422: WireMockError,
          ...errors(400, 401, 429),
        },
      },
      config,
    },
    async (req, reply) => {
      const pattern = parseRequestPattern(req.body, mappingLimits);
      if ('errors' in pattern) return refuse(reply, pattern);
      const { sandbox } = req.mock;
      const gone = await matching(sandbox, pattern);
      return removeEntries(req, reply, gone);
    },
  );

  app.post(
    '/requests/remove-by-metadata',
    {
      schema: {
        operationId: 'wiremockRequestsRemoveByMetadata',
        tags,
        summary: "WireMock: remove the requests whose mapping's metadata matches a pattern",
        description:
          'The pattern (equalToJson, matchesJsonPath …) is matched against the metadata of the mapping that ' +
          'answered each request, as it is now: a request whose mapping was deleted stays.',
        body: Pattern,
        response: {
          200: Removed,
          422: WireMockError,
          ...errors(400, 401, 429),
        },
      },
      config,
    },
    async (req, reply) => {
      const pattern = parsePattern(req.body, mappingLimits);
      if ('errors' in pattern) return refuse(reply, pattern);
      const { sandbox } = req.mock;
      const budget = new RegexBudget();
      const gone = await keptEntries(sandbox, (e) => {
        const metadata =
          e.wiremockMapping === undefined ? undefined : sandbox.wiremock.get(e.wiremockMapping)?.metadata;
        return metadata !== undefined && patternDistance(pattern, JSON.stringify(metadata), budget) === 0;
      });
      return removeEntries(req, reply, gone);
    },
  );

  app.get(
    '/requests/unmatched',
    {
      schema: {
        operationId: 'wiremockRequestsUnmatched',
        tags,
        summary: 'WireMock: the requests nothing answered',
        description:
          'Those no mapping answered and no portal operation either (the 404s of paths the portal does not ' +
          'have); a portal operation the stateful mock answered is not unmatched. Oldest first, as WireMock.',
        response: { 200: LoggedRequests, ...errors(400, 401, 429) },
      },
      config,
    },
    async (req, reply) => {
      const unmatched = (await keptEntries(req.mock.sandbox, isUnmatched)).reverse();
      return sendLoggedRequests(req, reply, unmatched);
    },
  );

  app.get(
    '/requests/unmatched/near-misses',
    {
      schema: {
        operationId: 'wiremockRequestsUnmatchedNearMisses',
        tags,
        summary: 'WireMock: the closest mapping to each unmatched request',
        description:
          `For each unmatched request (newest first while unmatched requests × mappings stays within ${nearMissBudget}), ` +
          'the mapping nearest to it and how far (0 to 1).',
        response: {
          200: Type.Object({
            nearMisses: Type.Array(
              Type.Object({
                request: LoggedRequest,
                stubMapping: Type.Unknown(),
                matchResult: Type.Object({ distance: Type.Number() }),
              }),
            ),
          }),
          ...errors(400, 401, 429),
        },
      },
      config,
    },
    async (req) => {
      const { sandbox } = req.mock;
      const stubs = sandbox.wiremock;
      if (stubs.mappings.length === 0) return { nearMisses: [] };
      const fit = Math.max(1, Math.floor(nearMissBudget / stubs.mappings.length));
      const unmatched = (await keptEntries(sandbox, isUnmatched)).slice(0, fit);
      const nearMisses = [];
      for (const e of unmatched) {
        const found = findInOrder(stubs.servingOrder, wireRequest(e), stubs.states, 1);
        const miss = found.found === undefined ? found.nearMisses[0] : undefined;
        if (miss)
          nearMisses.push({
            request: loggedRequest(e, schemeOf(req)),
            stubMapping: miss.mapping,
            matchResult: { distance: miss.distance },
          });
      }
      return { nearMisses };
    },
  );
};
