// Helpers to walk the app's own OpenAPI document and validate answers against it with ajv.
import AjvModule, { type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const Ajv = AjvModule.default;
const addFormats = addFormatsModule.default;
type Ajv = InstanceType<typeof Ajv>;
import type { FastifyInstance } from 'fastify';

export type Operation = {
  operationId: string;
  method: string;
  path: string;
  tags: string[];
  parameters: Array<{ in: string; name: string; required?: boolean; schema?: any }>;
  requestBody?: { required?: boolean; content: Record<string, { schema: any }> };
  responses: Record<string, { content?: Record<string, { schema: any }> }>;
};
export type OpenApiDoc = {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, unknown> };
};

const documentUrls = { portal: '/docs/json', admin: '/__admin/openapi.json' } as const;

/**
 * The portal's API document, the control plane's, or both as one (for the tests that hold every operation to its
 * contract: their components never differ under one name, which the merge checks).
 */
export async function loadDoc(
  app: FastifyInstance,
  which: keyof typeof documentUrls | 'both' = 'portal',
): Promise<OpenApiDoc> {
  if (which === 'both') {
    const [portal, admin] = [await loadDoc(app, 'portal'), await loadDoc(app, 'admin')];
    for (const [name, schema] of Object.entries(admin.components.schemas)) {
      const other = portal.components.schemas[name];
      if (other !== undefined && JSON.stringify(other) !== JSON.stringify(schema))
        throw new Error(`the two documents define the component ${name} differently`);
    }
    return {
      ...portal,
      paths: { ...portal.paths, ...admin.paths },
      components: { ...portal.components, schemas: { ...portal.components.schemas, ...admin.components.schemas } },
    };
  }
  const res = await app.inject({ url: documentUrls[which] });
  if (res.statusCode !== 200) throw new Error(`${documentUrls[which]} answered ${res.statusCode}`);
  return res.json() as OpenApiDoc;
}

export function operations(doc: OpenApiDoc): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (path.startsWith('/docs')) continue;
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'delete', 'patch'].includes(method)) continue;
      ops.push({ ...op, method: method.toUpperCase(), path, parameters: op.parameters ?? [], tags: op.tags ?? [] });
    }
  }
  return ops;
}

/** OpenAPI 3.0's `minimum: n, exclusiveMinimum: true` back in JSON Schema's form (`exclusiveMinimum: n`) for Ajv. */
function exclusiveBoundsAsJsonSchema<T>(node: T): T {
  if (typeof node !== 'object' || node === null) return node;
  const schema = node as Record<string, unknown>;
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (schema[exclusive] !== true) continue;
    schema[exclusive] = schema[bound];
    delete schema[bound];
  }
  for (const value of Object.values(schema)) exclusiveBoundsAsJsonSchema(value);
  return node;
}

const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Validates a response body against the schema the document declares for (operation, status, content type). */
export class ResponseValidator {
  private readonly ajv: Ajv;
  private readonly cache = new Map<string, ValidateFunction>();
  constructor(doc: OpenApiDoc) {
    this.ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addFormat('password', true);
    this.ajv.addSchema({ ...exclusiveBoundsAsJsonSchema(structuredClone(doc)), $id: 'openapi.json' } as object);
  }
  /** null when valid; a message otherwise (also when the document declares no schema for the status). */
  check(op: Operation, status: number, contentType: string, body: string): string | null {
    const response = op.responses[String(status)];
    if (!response)
      return `${op.operationId} answered ${status}, which the document does not declare (declared: ${Object.keys(op.responses).join(', ')})`;
    const content = response.content ?? {};
    const types = Object.keys(content);
    if (types.length === 0) return `${op.operationId} ${status} has no response schema`;
    const type =
      types.find((t) => contentType.startsWith(t) || t === '*/*') ??
      (contentType.includes('json') ? types.find((t) => t.includes('json')) : undefined);
    if (!type)
      return `${op.operationId} ${status} answered content type "${contentType}", declared: ${types.join(', ')}`;
    if (!type.includes('json')) return null; // binary or html answers: the content type is the contract
    const pointer = `openapi.json#/paths/${escape(op.path)}/${op.method.toLowerCase()}/responses/${status}/content/${escape(type)}/schema`;
    const validate = this.cache.get(pointer) ?? this.ajv.compile({ $ref: pointer });
    this.cache.set(pointer, validate);
    let data: unknown;
    try {
      data = JSON.parse(body);
    } catch {
      return `${op.operationId} ${status}: body is not JSON: ${body.slice(0, 200)}`;
    }
    if (validate(data)) return null;
    return `${op.operationId} ${status}: ${this.ajv.errorsText(validate.errors, { separator: '; ' }).slice(0, 1200)}`;
  }
}

/** The one error body shape. */
/**
 * WireMock's error body, which its admin API answers (src/control/routes/wiremock/): `{"errors": [{code, title, …}]}`
 * with a title saying what was wrong; WireMock's clients read that shape.
 */
export function isWireMockErrorBody(body: unknown): boolean {
  if (!body || typeof body !== 'object') return false;
  const errors = (body as { errors?: unknown }).errors;
  return (
    Array.isArray(errors) &&
    errors.length > 0 &&
    errors.every((e) => typeof e?.code === 'number' && typeof e?.title === 'string' && e.title !== '')
  );
}

export function isErrorBody(body: unknown, status: number): boolean {
  if (!body || typeof body !== 'object') return false;
  const b = body as Record<string, unknown>;
  return (
    b.statusCode === status &&
    typeof b.error === 'string' &&
    typeof b.code === 'string' &&
    typeof b.message === 'string'
  );
}
