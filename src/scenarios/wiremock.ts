// Serves a sandbox's WireMock stub mappings (docs/wiremock.md, "Serving"): registered in the portal context after
// the scenario plugin and before the pass-through and auth, so a matching mapping answers first, as on WireMock.
// An unmatched request to a portal operation goes on to the stateful mock; one to a path the portal does not have
// gets WireMock's 404 with the closest near miss. Templates draw `now` from the sandbox's clock and random values
// from a stream seeded by the sandbox's seed, so answers replay.
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, fail } from '../errors.js';
import { clientOrigin, forwardedPrefix, wireMockUrl } from '../http/context.js';
import { keepBodyText } from '../http/journal.js';
import { SeededRandom } from '../store/random.js';
import type { Sandbox } from '../store/sandbox.js';
import { findInOrder, type WireRequest } from '../wiremock/match.js';
import type { StubMapping, WireMockErrors } from '../wiremock/mapping.js';
import { buildResponse, type StubResponse } from '../wiremock/response.js';
import { dropConnection } from './runtime.js';

/** The longest delay a served stub waits (the mapping parser bounds each field to the same). */
const maxDelayMs = 60_000;

/**
 * Headers a mapping's answer does not carry: the mock frames every answer itself (length, chunking, the
 * connection), so these would make an answer the client cannot parse (WireMock's Jetty replaces most of them too).
 */
const framingHeaders = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'te',
  'trailer',
]);

/** What WireMock writes for MALFORMED_RESPONSE_CHUNK and RANDOM_DATA_THEN_CLOSE (its Fault.java's garbage). */
const garbage = "lskdu018973t09sylgasjkfg1][]'./.sdlv";

/**
 * The random source of a sandbox's templates and delays: seeded by the sandbox's seed alone (not its name, as its
 * scenario randomness is), so two sandboxes with the same seed and clock answer the same bytes. Kept beside the
 * sandbox's own random source: a reset or reseed replaces that one, and this one starts over with it.
 */
const templateRandoms = new WeakMap<SeededRandom, SeededRandom>();
function templateRandom(sandbox: Sandbox): SeededRandom {
  let random = templateRandoms.get(sandbox.random);
  if (!random) {
    random = new SeededRandom(sandbox.store.meta.seed, 'wiremock');
    templateRandoms.set(sandbox.random, random);
  }
  return random;
}

const hasBody = (req: FastifyRequest) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/** The request body, at most `limit` bytes (past it a 413, as the route's parser would answer). */
async function readBody(req: FastifyRequest, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req.raw as AsyncIterable<Buffer | string>) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += b.length;
    if (size > limit) throw fail.payloadTooLarge(`the body is larger than ${limit} bytes (--body-limit)`);
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

/** How a mapping's request reads in a diagnostic: its method and URL matcher. */
export function describePattern(m: StubMapping): string {
  const r = m.request;
  const url = r.url ?? r.urlPath ?? r.urlPattern ?? r.urlPathPattern ?? r.urlPathTemplate ?? '(any URL)';
  return `${r.method ?? 'ANY'} ${url}`;
}

/** WireMock's answer to a request no mapping matched (its diagnostic, abridged: the closest stub and the request). */
export function notMatchedText(request: WireRequest, closest: StubMapping | undefined): string {
  const lines = ['', 'Request was not matched', '=======================', ''];
  if (closest) {
    lines.push(`Closest stub: ${closest.name ?? closest.id}`, `  ${describePattern(closest)}`, '');
  } else lines.push('No stub mappings in this sandbox', '');
  lines.push('Request:', `  ${request.method} ${request.url}`, '');
  return lines.join('\n');
}

/** A served stub whose response cannot be built (a template error, a missing body file): WireMock's error shape. */
function renderError(mapping: StubMapping, detail: string): WireMockErrors {
  return {
    errors: [
      {
        code: 10,
        source: { pointer: '/response' },
        title: `The response of stub mapping ${mapping.id} cannot be built`,
        detail,
      },
    ],
  };
}

async function* dribble(body: Buffer, chunks: number, totalMs: number): AsyncGenerator<Buffer> {
  const n = Math.max(1, Math.min(chunks, body.length));
  const size = Math.ceil(body.length / n);
  for (let i = 0; i < n; i++) {
    if (i > 0) await sleep(totalMs / n);
    yield body.subarray(i * size, (i + 1) * size);
  }
}

/** Writes `text` on the connection as it is and closes it (inject has no socket: its response is destroyed). */
function writeRawAndClose(reply: FastifyReply, text: string): void {
  const socket = reply.raw.socket;
  if (!socket || socket.destroyed) {
    reply.raw.destroy();
    return;
  }
  socket.write(text, () => socket.destroy());
}

export const wiremockPlugin = fp(
  async (app: FastifyInstance) => {
    /** bodies read on arrival, given back to the route's parser */
    const bodies = new WeakMap<FastifyRequest, Buffer>();

    // callback-style: only a request with a body to read, a delay or a proxy waits; one that answered has sent the
    // reply, and Fastify then runs no further hook
    app.addHook('onRequest', (req, reply, done) => {
      if (reply.sent) return done();
      const stubs = req.mock.sandbox.wiremock;
      const viaBase = req.mock.prefix.wiremockPrefix !== '';
      if (stubs.mappings.length === 0 && !(viaBase && req.mock.routeConfig.unmatched === true)) return done();
      // the body is read on arrival when a mapping may read it, and kept for the journal (WireMock's verify reads
      // it) when a mapping may answer: a stubbed answer leaves no parser to keep it
      const bodyFirst = hasBody(req);
      if (!bodyFirst) {
        const waited = serve(req, reply, undefined);
        if (waited === null) return done();
        return waited.then(() => done(), done);
      }
      readBody(req, req.routeOptions.bodyLimit ?? app.config.bodyLimit)
        .then((body) => {
          bodies.set(req, body);
          keepBodyText(req, body.toString('utf8'));
          return serve(req, reply, body);
        })
        .then(() => done(), done);
    });
    app.addHook('preParsing', (req, _reply, payload, done) => {
      const body = bodies.get(req);
      if (body === undefined) return done(null, payload);
      bodies.delete(req);
      done(null, Readable.from([body]));
    });

    /** Answers with the matching stub, or WireMock's 404; null when the request goes on to the mock (nothing waits). */
    const serve = (req: FastifyRequest, reply: FastifyReply, body: Buffer | undefined): Promise<void> | null => {
      const sandbox = req.mock.sandbox;
      const stubs = sandbox.wiremock; // read again: a body read let other requests change them
      const wire: WireRequest = {
        method: req.method,
        url: wireMockUrl(req.originalUrl, req.mock.prefix),
        headers: req.headers,
        body: body?.toString('utf8') ?? '',
      };
      const found = findInOrder(stubs.servingOrder, wire, stubs.states, 1);
      if (found.found === undefined) {
        const unmatched = req.mock.routeConfig.unmatched === true;
        const wiremockOwns = stubs.mappings.length > 0 || req.mock.prefix.wiremockPrefix !== '';
        // a portal operation gets the stateful answer; a path the portal does not have goes to the upstream when
        // there is one, else gets WireMock's 404
        if (!unmatched || !wiremockOwns || app.proxy.upstreamFor(sandbox).url !== null) return null;
        reply.code(404).type('text/plain').send(notMatchedText(wire, found.nearMisses[0]?.mapping));
        return Promise.resolve();
      }
      const { mapping, pathParameters } = found.found;
      req.mock.stubbed = true;
      req.mock.wiremockMapping = mapping.id;
      if (mapping.scenarioName !== undefined && mapping.newScenarioState !== undefined)
        sandbox.wiremock = sandbox.wiremock.withState(mapping.scenarioName, mapping.newScenarioState);
      const random = templateRandom(sandbox);
      const built = buildResponse(
        mapping,
        wire,
        {
          now: sandbox.clock.now(),
          random: () => random.next(),
          baseUrl: `${clientOrigin(req)}${forwardedPrefix(req)}${req.mock.prefix.sandboxPrefix}${req.mock.prefix.wiremockPrefix}`,
          pathParameters,
        },
        app.wiremockRoot.readFile,
        { maxDelayMs },
      );
      if ('error' in built) {
        reply
          .code(422)
          .type('application/json')
          .send(JSON.stringify(renderError(mapping, built.error)));
        return Promise.resolve();
      }
      return answer(req, reply, mapping, wire, built.response, body);
    };

    const answer = async (
      req: FastifyRequest,
      reply: FastifyReply,
      mapping: StubMapping,
      wire: WireRequest,
      r: StubResponse,
      body: Buffer | undefined,
    ): Promise<void> => {
      if (r.delayMs > 0) await sleep(r.delayMs);
      if (r.fault !== undefined) return fault(req, reply, r.fault);
      if (mapping.response.proxyBaseUrl !== undefined)
        return proxy(req, reply, mapping.response.proxyBaseUrl, wire, body);
      reply.code(r.status);
      if (r.statusMessage !== undefined) reply.raw.statusMessage = r.statusMessage;
      const headers = new Map<string, string[]>();
      for (const [name, value] of r.headers) {
        if (framingHeaders.has(name.toLowerCase())) continue;
        headers.set(name, [...(headers.get(name) ?? []), value]);
      }
      for (const [name, values] of headers) reply.header(name, values.length === 1 ? values[0] : values);
      if (r.chunkedDribbleDelay) {
        // paced bytes: compressed, they would be held back until the compressor's buffer fills
        req.headers['x-no-compression'] = 'wiremock chunkedDribbleDelay';
        const { numberOfChunks, totalDuration } = r.chunkedDribbleDelay;
        await reply.send(Readable.from(dribble(r.body, numberOfChunks, totalDuration)));
        return;
      }
      // text that is UTF-8 goes out as a string, so the journal keeps a JSON answer as it keeps the mock's own
      const type = String(reply.getHeader('content-type') ?? '');
      const text = /json|^text\//i.test(type) ? r.body.toString('utf8') : undefined;
      await reply.send(text !== undefined && Buffer.byteLength(text) === r.body.length ? text : r.body);
    };

    const fault = (req: FastifyRequest, reply: FastifyReply, kind: string): void => {
      req.mock.fault =
        kind === 'CONNECTION_RESET_BY_PEER' ? 'reset' : kind === 'EMPTY_RESPONSE' ? 'empty' : 'malformed';
      reply.hijack();
      if (kind === 'CONNECTION_RESET_BY_PEER') dropConnection(reply, 'reset');
      else if (kind === 'EMPTY_RESPONSE') dropConnection(reply, 'empty');
      else if (kind === 'MALFORMED_RESPONSE_CHUNK')
        writeRawAndClose(reply, `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${garbage}`);
      else writeRawAndClose(reply, garbage);
    };

    const proxy = async (
      req: FastifyRequest,
      reply: FastifyReply,
      base: string,
      wire: WireRequest,
      read: Buffer | undefined,
    ): Promise<void> => {
      const body =
        read ?? (hasBody(req) ? await readBody(req, req.routeOptions.bodyLimit ?? app.config.bodyLimit) : undefined);
      const answered = await app.proxy.call(base, { method: req.method, url: wire.url, headers: req.headers, body });
      if (!answered.ok) {
        req.log.warn({ mapping: req.mock.wiremockMapping, status: answered.status }, answered.reason);
        throw new ApiError(answered.status === 504 ? 'gatewayTimeout' : 'badGateway', answered.reason);
      }
      reply.code(answered.status);
      for (const [k, v] of answered.headers) reply.header(k, v);
      await reply.send(answered.body);
    };
  },
  { name: 'wiremock-serve', dependencies: ['request-context', 'scenarios', 'proxy-state', 'wiremock-root'] },
);
