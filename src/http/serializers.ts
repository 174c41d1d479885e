import type { FastifyInstance } from 'fastify';
import fastJsonStringify from 'fast-json-stringify';

type Serialize = (data: unknown) => string;

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
        schema: external as never,
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
