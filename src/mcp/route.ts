// POST /__admin/mcp: the Model Context Protocol over Streamable HTTP, stateless (no session: any instance behind a
// balancer answers any request), each answer one JSON body. Registered in the control plane's token context
// (src/control/routes.ts), so --admin-token applies as to every admin route; this plugin's own context adds the
// Host and Origin checks and takes JSON bodies only.
import { hostname } from 'node:os';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/fastify';
import {
  createMcpHandler,
  isLegacyRequest,
  type McpRequestContext,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { ErrorBody, errors, ref } from '../schemas/common.js';
import { lanAddresses } from '../shared/lan.js';
import { strictJsonBodies } from '../control/json-body.js';
import { type AdminCall, flatHeaders, parsedBody } from './admin-call.js';
import { mcpAllowedHostnames } from './allowed-hosts.js';
import { createMockMcpServer } from './server.js';
import { operationsFromDocument } from './tools/context.js';

const tags = ['mock'];

/** Open `subscriptions/listen` streams at once (2026-07-28 clients); the tool list never changes, so few are needed. */
export const maxMcpSubscriptions = 64;

/** A JSON-RPC message or batch, as the SDK reads it; the SDK answers a malformed one with a JSON-RPC error. */
const JsonRpcBody = Type.Union(
  [
    Type.Object({ jsonrpc: Type.String(), method: Type.Optional(Type.String()) }, { additionalProperties: true }),
    Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems: 100 }),
  ],
  { description: 'a JSON-RPC 2.0 message of the Model Context Protocol (initialize, tools/list, tools/call, ...)' },
);

const JsonRpcAnswer = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Union([Type.String(), Type.Number(), Type.Null()]),
    result: Type.Optional(Type.Object({}, { additionalProperties: true })),
    error: Type.Optional(
      Type.Object({ code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Unknown()) }),
    ),
  },
  { additionalProperties: true, description: 'a JSON-RPC 2.0 answer' },
);
const JsonRpcError = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Union([Type.String(), Type.Number(), Type.Null()]),
    error: Type.Object({ code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Unknown()) }),
  },
  { description: 'a JSON-RPC 2.0 error' },
);
const mcpResponses = {
  200: {
    description: 'the JSON-RPC answer (a batch is answered by an array)',
    content: { 'application/json': { schema: Type.Union([JsonRpcAnswer, Type.Array(JsonRpcAnswer)]) } },
  },
  202: {
    description: 'a notification or answer was accepted',
    content: { 'application/json': { schema: Type.String({ maxLength: 0, description: 'no body' }) } },
  },
};

/** An admin call through the app itself, with the MCP request's credentials and Host, so it is any admin call. */
function injectCall(app: FastifyInstance, request: Request | undefined): AdminCall {
  const pick = (names: string[]) =>
    Object.fromEntries(
      names.flatMap((name) => (request?.headers.get(name) ? [[name, request.headers.get(name)!]] : [])),
    );
  const admin = pick(['authorization', 'x-mock-admin-token', 'host']);
  const portal = pick(['host']); // the admin token is no portal credential
  return async ({ method, url, headers, body, portal: toPortal }) => {
    const res = await app.inject({
      method,
      url,
      headers: {
        ...(toPortal ? portal : admin),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return { status: res.statusCode, headers: flatHeaders(res.headers), body: parsedBody(res.body) };
  };
}

/** The Fastify request as the web-standard Request the SDK reads; the body goes beside it, already parsed. */
function webRequest(req: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(flatHeaders(req.headers))) headers.set(name, value);
  // the URL's origin is not read (the Host header is, checked above): a fixed one cannot fail to parse
  return new Request(new URL(req.url, 'http://localhost'), { method: req.method, headers });
}

async function sendResponse(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    reply.header(name, value);
  });
  if (response.body === null) return reply.send();
  // a subscriptions/listen stream: its connection ends with it, so a closing server does not wait for it to idle out
  if (response.headers.get('content-type')?.startsWith('text/event-stream'))
    return reply.header('connection', 'close').send(Readable.fromWeb(response.body as NodeReadableStream));
  return reply.send(await response.text());
}

const methodNotAllowed = {
  jsonrpc: '2.0' as const,
  error: { code: -32000, message: 'Method not allowed: this endpoint is stateless, POST JSON-RPC messages to it' },
  id: null,
};

export const mcpRoute: FastifyPluginAsyncTypebox<{ version: string }> = async (app, opts) => {
  const config = app.config;
  const allowed = mcpAllowedHostnames({
    host: config.host,
    peers: config.peers,
    extra: config.mcpAllowedHosts,
    lan: lanAddresses(),
    machine: hostname(),
  });
  // DNS-rebinding protection, for the routes of this context only
  app.addHook('onRequest', hostHeaderValidation(allowed));
  app.addHook('onRequest', originValidation(allowed));
  strictJsonBodies(app);

  // the portal's operations are the same for every request: read from its document once, on the first call_portal
  const operations = operationsFromDocument(injectCall(app, undefined));
  const factory = (ctx: McpRequestContext) =>
    createMockMcpServer({ call: injectCall(app, ctx.requestInfo), version: opts.version, operations });
  // the 2026-07-28 revision: one exchange per request by construction; 2025-era requests are served below
  const modern = createMcpHandler(factory, {
    legacy: 'reject',
    responseMode: 'auto', // one JSON body: no tool sends notifications before its result
    onerror: (err) => app.log.debug({ err }, 'mcp'),
    maxSubscriptions: maxMcpSubscriptions,
    maxRequestBodySize: config.bodyLimit,
  });
  // before the server waits for its connections: open subscriptions/listen streams end here, or close would wait
  app.addHook('preClose', async () => modern.close());

  /** A 2025-era request: a fresh server and stateless transport for it alone, answering one JSON body. */
  async function legacy(request: Request, body: unknown): Promise<Response> {
    const server = factory({ era: 'legacy', requestInfo: request });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: config.bodyLimit,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, { parsedBody: body });
    } finally {
      await server.close();
    }
  }

  app.post(
    '/__admin/mcp',
    {
      bodyLimit: config.bodyLimit,
      // not forwarded as a whole to a peer by the control plane's ownerFirst: each admin call a tool makes is
      config: { answersHere: true },
      schema: {
        operationId: 'mockMcp',
        tags,
        summary: 'The Model Context Protocol endpoint (Streamable HTTP, stateless): tools for agents',
        description:
          'MCP over Streamable HTTP for coding agents (docs/mcp.md): tools to make and arrange sandboxes, sign in, ' +
          'call the portal, read the journal, findings and outbox, capture bugs. Stateless (no Mcp-Session-Id), ' +
          'each answer one JSON body. Host and Origin must be a name this instance answers to ' +
          '(--mcp-allowed-hosts adds more): otherwise 403 with a JSON-RPC error.',
        body: JsonRpcBody,
        response: {
          ...mcpResponses,
          // the SDK's JSON-RPC error, or the control plane's error body for a body that is not a JSON-RPC message
          400: Type.Union([JsonRpcError, ref(ErrorBody)]),
          403: JsonRpcError,
          406: JsonRpcError,
          ...errors(401, 413, 415),
        },
      },
    },
    async (req, reply) => {
      const request = webRequest(req);
      const response = (await isLegacyRequest(request, req.body))
        ? await legacy(request, req.body)
        : await modern.fetch(request, { parsedBody: req.body });
      return sendResponse(reply, response);
    },
  );

  // GET (a server-sent event stream) and DELETE (ending a session) are not served: protocol refusals, not operations,
  // so the API document leaves them out as it leaves out the control plane's own 404
  app.route({
    method: ['GET', 'DELETE'],
    url: '/__admin/mcp',
    config: { answersHere: true },
    schema: { hide: true, response: { 405: JsonRpcError, 403: JsonRpcError, ...errors(401) } },
    handler: async (_req, reply) => reply.code(405).header('allow', 'POST').send(methodNotAllowed),
  });
};
