import type { FastifyInstance } from 'fastify';
import fastJsonStringify from 'fast-json-stringify';

type Serialize = (data: unknown) => string;

export type SerializerOptions = {
  /**
   * For routes with `config.plainJson`: also serialize by the schema and fail the request (500) if the two texts
   * differ. The test suite turns this on, so a plain-JSON route that would send a field or an order its schema
   * does not declare fails its tests instead of reaching a client.
   */
  verifyPlainJson?: boolean;
};

/**
 * Response serializers compiled on first use and shared between identical schemas.
 * Compiling all of them at start-up (Fastify's default) took seconds: each compile re-reads every shared record.
 *
 * Routes with `config: { plainJson: true }` are serialized with JSON.stringify instead: their domain code builds
 * every object field by field in the schema's order, and for large answers full of non-Latin text V8's
 * JSON.stringify is about 3× faster than the schema serializer (the dashboard spent 40% of its time there).
 */
export function useLazySerializers(app: FastifyInstance, options: SerializerOptions = {}): void {
  const compiled = new Map<string, Serialize>();
  const plainRoutes = new Set<string>();
  let external: Record<string, unknown> | undefined;
  app.addHook('onRoute', (route) => {
    if (route.config?.plainJson) for (const method of [route.method].flat()) plainRoutes.add(`${method} ${route.url}`);
  });
  const bySchema = (schema: unknown): Serialize => {
    const key = JSON.stringify(schema);
    let serialize = compiled.get(key);
    if (!serialize) {
      external ??= app.getSchemas() as Record<string, unknown>;
      serialize = fastJsonStringify(schema as Parameters<typeof fastJsonStringify>[0], { schema: external as never }) as Serialize;
      compiled.set(key, serialize);
    }
    return serialize;
  };
  app.setSerializerCompiler(({ schema, method, url }) => {
    let serialize: Serialize | undefined;
    return (data: unknown) => {
      if (!serialize) {
        if (!plainRoutes.has(`${method} ${url}`)) serialize = bySchema(schema);
        else if (!options.verifyPlainJson) serialize = JSON.stringify;
        else {
          const expected = bySchema(schema);
          serialize = (value) => {
            const text = JSON.stringify(value);
            const bySchemaText = expected(value);
            if (text !== bySchemaText) {
              let at = 0;
              while (text[at] === bySchemaText[at]) at++;
              const around = (t: string) => t.slice(Math.max(0, at - 200), at + 200);
              throw new Error(`plainJson route ${method} ${url}: JSON.stringify differs from the schema serializer at character ${at}:\n${around(text)}\n${around(bySchemaText)}`);
            }
            return text;
          };
        }
      }
      return serialize(data);
    };
  });
}
