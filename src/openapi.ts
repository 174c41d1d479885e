// The two API documents, and what @fastify/swagger cannot know from the route schemas alone: who may call each
// operation, where the examples are, the servers to try operations against. Applied once, when a document is first
// built (nothing at start-up).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { FastifyDynamicSwaggerOptions, SwaggerTransform, SwaggerTransformObject } from '@fastify/swagger';
import { sharedSchemas } from './schemas/index.js';
import type { AuthMode } from './http/credentials.js';
import { packageRoot } from './paths.js';

/** Captured from the seeded world by `npm run openapi` (test/support/examples.ts): operationId → request body and success answer. */
export const examplesFile = join(packageRoot, 'openapi-examples.json');
export type Examples = Record<string, { request?: unknown; response?: unknown }>;

const securitySchemes = {
  tenant: { type: 'apiKey', in: 'header', name: 'x-service-tenant-id' },
  device: { type: 'apiKey', in: 'header', name: 'x-service-device-id' },
  sessionId: { type: 'apiKey', in: 'header', name: 'x-service-session-id' },
  sessionCode: { type: 'apiKey', in: 'header', name: 'x-service-session-code' },
  clientId: { type: 'apiKey', in: 'header', name: 'X-Service-Client-Id' },
  clientSecret: { type: 'apiKey', in: 'header', name: 'X-Service-Client-Secret' },
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description: 'a personal API token (pmt_…) from POST /user-api-token/create',
  },
  adminToken: {
    type: 'apiKey',
    in: 'header',
    name: 'x-mock-admin-token',
    description: 'only when the mock runs with --admin-token',
  },
} as const;

/** Every scheme but the admin token, which only the control plane's document declares. */
const { adminToken, ...portalSecuritySchemes } = securitySchemes;

const session = { tenant: [], device: [], sessionId: [], sessionCode: [] };
/** The alternatives each auth mode of src/auth/plugin.ts accepts; the admin side takes a token only when one is set. */
const requirements: Record<AuthMode | 'admin', Array<Record<string, string[]>>> = {
  none: [],
  tenant: [{ tenant: [] }],
  session: [session, { bearer: [] }],
  'session-only': [session],
  'session-or-apikey': [session, { bearer: [] }, { clientId: [], clientSecret: [] }],
  admin: [{}, { adminToken: [] }],
};

/** @fastify/swagger's `transform`: security from the route's config.auth; paths without a trailing slash. */
export const describeRoute: SwaggerTransform = ({ schema, url, route }) => {
  const config = route.config as { auth?: AuthMode; controlPlane?: boolean } | undefined;
  const mode = config?.controlPlane ? 'admin' : (config?.auth ?? 'none');
  return {
    schema: schema && { ...schema, security: requirements[mode] },
    url: url.length > 1 ? url.replace(/\/$/, '') : url,
  };
};

type Media = Record<string, { example?: unknown }>;
type Operation = {
  operationId?: string;
  requestBody?: { content?: Media };
  responses?: Record<string, { content?: Media }>;
};
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

/** @fastify/swagger's `transformObject`: the captured examples, and no component that nothing refers to. */
export const finishDocument: SwaggerTransformObject = (input) => {
  const doc = (input as unknown as { openapiObject: Doc }).openapiObject;
  const examples: Examples = existsSync(examplesFile) ? JSON.parse(readFileSync(examplesFile, 'utf8')) : {};
  for (const op of Object.values(doc.paths).flatMap((item) => Object.values(item))) {
    const captured = examples[op.operationId ?? ''];
    const request = op.requestBody?.content?.['application/json'];
    const answer = Object.entries(op.responses ?? {}).find(([status]) => status.startsWith('2'))?.[1].content?.[
      'application/json'
    ];
    if (request && captured?.request !== undefined) request.example = captured.request;
    if (answer && captured?.response !== undefined) answer.example = captured.response;
  }
  exclusiveBoundsAsOpenApi30(doc);
  // shared schemas that TypeBox inlines where they are used (Right …): unreferenced components are noise
  for (let pruned = true; pruned; ) {
    const text = JSON.stringify(doc);
    const unused = Object.keys(doc.components.schemas).filter(
      (name) => !text.includes(`"#/components/schemas/${name}"`),
    );
    for (const name of unused) delete doc.components.schemas[name];
    pruned = unused.length > 0;
  }
  return doc as never;
};

/**
 * JSON Schema's numeric `exclusiveMinimum: n` (a stored record's `amount > 0`) in OpenAPI 3.0's form, `minimum: n`
 * with `exclusiveMinimum: true`; the same for the maximum.
 */
function exclusiveBoundsAsOpenApi30(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Record<string, unknown>;
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof schema[exclusive] !== 'number') continue;
    schema[bound] = schema[exclusive];
    schema[exclusive] = true;
  }
  for (const value of Object.values(schema)) exclusiveBoundsAsOpenApi30(value);
}

export type OpenApiTag = { name: string; description: string };

// TypeBox schemas without a $id become numbered components of the document that uses them
const refResolver = {
  buildLocalReference: (json: { $id?: unknown }, _baseUri: unknown, _fragment: unknown, i: number) =>
    typeof json.$id === 'string' ? json.$id : `def-${i}`,
};

/**
 * The portal's API document (@fastify/swagger, served at /docs/json): what an app generates its client from.
 * Registered in the portal's context before its routes, so it sees those and nothing of the control plane.
 */
export const portalDocument = (tags: OpenApiTag[]): FastifyDynamicSwaggerOptions => ({
  openapi: {
    openapi: '3.0.3',
    info: {
      title: 'portal-mock: Mobile Client API of a multi-tenant corporate portal',
      version: '2.0.0',
      description:
        'A stateful mock. Every operation also answers under /api/v2 and under /sandbox/NAME. Fields marked ' +
        '"assumed" are not shown by the API description. The mock\'s own control plane (/__admin) has a document ' +
        'of its own: /__admin/openapi.json.',
      contact: { name: 'portal-mock maintainers' },
    },
    // relative: "Try it out" calls the mock that serves the document, whatever its address
    servers: [
      { url: '/', description: 'this mock' },
      { url: '/api/v2', description: "the same, under the portal's prefix" },
    ],
    components: { securitySchemes: portalSecuritySchemes },
    tags,
  },
  transform: describeRoute,
  transformObject: finishDocument,
  refResolver,
});

/**
 * The control plane's document (served at /__admin/openapi.json): sandboxes, scenarios, records, the journal. Not
 * the portal's API, so a client generated from /docs/json has none of it; the typed client (`portal-mock/admin`)
 * is checked against it.
 */
export const adminDocument = (tags: OpenApiTag[]): FastifyDynamicSwaggerOptions => ({
  openapi: {
    openapi: '3.0.3',
    info: {
      title: 'portal-mock control plane',
      version: '2.0.0',
      description:
        "The mock's own routes (/__admin): sandboxes, scenarios, records, the request journal, the clock, " +
        "findings. Not part of the portal's API, whose document is /docs/json. With --admin-token every route " +
        'but the console page, the CA certificate and the documents takes the token.',
      contact: { name: 'portal-mock maintainers' },
    },
    servers: [{ url: '/', description: 'this mock' }],
    components: { securitySchemes: { adminToken } },
    tags,
  },
  transform: describeRoute,
  transformObject: finishDocument,
  refResolver,
});

/** The shared records, registered once at the root: both documents show those they use as named components. */
export const sharedSchemasPlugin = fp(
  async (app: FastifyInstance) => {
    for (const schema of sharedSchemas) app.addSchema(schema);
  },
  { name: 'shared-schemas' },
);
