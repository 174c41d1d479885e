import AjvCompiler from '@fastify/ajv-compiler';

type Validate = ((data: unknown) => boolean) & { errors?: unknown };
type Compile = (route: { schema: unknown; method: string; url: string; httpPart?: string }) => Validate;

/**
 * Fastify's Ajv validators, compiled on a route's first request and shared between identical schemas: most of the
 * ~400 input schemas are never used in a session, and compiling them slowed every start. Every route is still
 * compiled by the contract test (test/reliability-contract).
 */
export function lazyValidatorBuilder(): AjvCompiler.BuildCompilerFromPool {
  const build = AjvCompiler();
  // The package's types describe the compiler as taking a bare schema; Fastify calls it with { schema, method, url, httpPart }.
  const builder = (externalSchemas: unknown, options: unknown) => {
    const compile = (build as (s: unknown, o: unknown) => Compile)(externalSchemas, options);
    const compiled = new Map<string, Validate>();
    return (route: Parameters<Compile>[0]): Validate => {
      const key = JSON.stringify(route.schema);
      let validate: Validate | undefined;
      const lazy: Validate = (data) => {
        if (!validate) {
          validate = compiled.get(key) ?? compile(route);
          compiled.set(key, validate);
        }
        const ok = validate(data);
        // Fastify reads the errors from the function it was given
        lazy.errors = validate.errors;
        return ok;
      };
      return lazy;
    };
  };
  return builder as unknown as AjvCompiler.BuildCompilerFromPool;
}
