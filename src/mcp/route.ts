// POST /__admin/mcp: the Model Context Protocol over Streamable HTTP, stateless (no session: any instance behind a
// balancer answers any request), each answer one JSON body. Registered in the control plane's token context
// (src/control/plugin.ts), so --admin-token applies as to every admin route; this plugin's own context adds the
// Host and Origin checks and takes JSON bodies only.
import { hostname } from 'node:os';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorBody, errors, ref } from '../schemas/common.js';
import { lanAddresses } from '../shared/lan.js';
import { strictJsonBodies } from '../http/json-body.js';
import { mcpAllowedHostnames } from './allowed-hosts.js';
import type { McpRuntime } from './runtime.js';

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

const methodNotAllowed = {
  jsonrpc: '2.0' as const,
  error: { code: -32000, message: 'Method not allowed: this endpoint is stateless, POST JSON-RPC messages to it' },
  id: null,
};

/**
 * The SDK, its Fastify checks and the tools, loaded on the first request to the endpoint: importing them cost every
 * start about 0.3 s (the SDK and zod), which a server that never serves an agent should not pay.
 */
let runtimeModule: Promise<typeof import('./runtime.js')> | undefined;
const loadRuntime = () => (runtimeModule ??= import('./runtime.js'));

export const mcpRoute: FastifyPluginAsyncTypebox<{ version: string }> = async (app, opts) => {
  const config = app.config;
  const allowed = mcpAllowedHostnames({
    host: config.host,
    peers: config.peers,
    extra: config.mcpAllowedHosts,
    lan: lanAddresses(),
    machine: hostname(),
  });
  let runtime: Promise<McpRuntime> | undefined;
  const ready = () =>
    (runtime ??= loadRuntime().then((m) =>
      m.createMcpRuntime(app, { version: opts.version, allowed, maxSubscriptions: maxMcpSubscriptions }),
    ));
  // DNS-rebinding protection (the SDK's Fastify hooks), for the routes of this context only
  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => (await ready()).checkOrigin(req, reply));
  // before the server waits for its connections: open subscriptions/listen streams end here, or close would wait
  app.addHook('preClose', async () => {
    if (runtime) await (await runtime).close();
  });
  strictJsonBodies(app);

  app.post(
    '/mcp',
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
    async (req, reply) => (await ready()).handle(req, reply),
  );

  // GET (a server-sent event stream) and DELETE (ending a session) are not served: protocol refusals, not operations,
  // so the API document leaves them out as it leaves out the control plane's own 404
  app.route({
    method: ['GET', 'DELETE'],
    url: '/mcp',
    config: { answersHere: true },
    schema: { hide: true, response: { 405: JsonRpcError, 403: JsonRpcError, ...errors(401) } },
    handler: async (_req, reply) => reply.code(405).header('allow', 'POST').send(methodNotAllowed),
  });
};
