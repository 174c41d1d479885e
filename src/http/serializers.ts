import type { FastifyInstance } from 'fastify';
import fastJsonStringify from 'fast-json-stringify';

type Serialize = (data: unknown) => string;

/**
 * The shared schemas `schema` names by $ref ("UserRecord#"), and those they name in turn, by id. fast-json-stringify
 * checks every schema it is given against the JSON Schema meta-schema on each compile: given all ~150 shared ones,
 * that check was most of a route's first answer (issue 47).
 */
export function referencedSchemas(schema: unknown, shared: Record<string, unknown>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const id = value.split('#')[0]!;
        if (id !== '' && !(id in picked) && shared[id] !== undefined) {
          picked[id] = shared[id];
          stack.push(shared[id]);
        }
      } else stack.push(value);
    }
  }
  return picked;
}

/**
 * Response serializers compiled on first use and shared between identical schemas.
 * Compiling all of them at start-up (Fastify's default) took seconds: each compile re-reads every shared record.
 */
export function useLazySerializers(app: FastifyInstance): void {
  const compiled = new Map<string, Serialize>();
  let external: Record<string, unknown> | undefined;
  const bySchema = (schema: unknown): Serialize => {
    const key = JSON.stringify(schema);
    let serialize = compiled.get(key);
    if (!serialize) {
      external ??= app.getSchemas() as Record<string, unknown>;
      serialize = fastJsonStringify(schema as Parameters<typeof fastJsonStringify>[0], {
        schema: referencedSchemas(schema, external) as never,
      }) as Serialize;
      compiled.set(key, serialize);
    }
    return serialize;
  };
  app.setSerializerCompiler(({ schema }) => {
    let serialize: Serialize | undefined;
    return (data: unknown) => {
      serialize ??= bySchema(schema);
      return serialize(data);
    };
  });
}
