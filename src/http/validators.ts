import AjvCompiler from '@fastify/ajv-compiler';

type Validate = ((data: unknown) => boolean) & { errors?: unknown };
type Route = { schema: unknown; method: string; url: string; httpPart?: string };
export type Compile = (route: Route) => Validate;
type BuildCompiler = (externalSchemas: unknown, options: unknown) => Compile;

/**
 * Fastify's Ajv validators, compiled on a route's first request and shared between identical schemas: most of the
 * ~570 input schemas are never used in a session, and compiling them slowed every start. Nothing is done before that
 * first request, not even Ajv's pool look-up: Fastify asks for a compiler once per plugin context, and the pool key is
 * the JSON text of every shared schema (a sixth of a second at start-up, summed over the contexts). Every route is
 * still compiled by the contract test (test/reliability/reliability-contract.test.ts).
 */
export function lazyValidatorBuilder(): AjvCompiler.BuildCompilerFromPool {
  // The package's types describe the compiler as taking a bare schema; Fastify calls it with { schema, method, url, httpPart }.
  const build = AjvCompiler() as unknown as BuildCompiler;
  const builder = (externalSchemas: unknown, options: unknown) => {
    let compile: Compile | undefined;
    // per context: the same schema text under other shared schemas may mean something else
    const compiled = new Map<string, Validate>();
    const validatorOf = (route: Route): Validate => {
      compile ??= build(externalSchemas, options);
      const key = JSON.stringify(route.schema);
      let validate = compiled.get(key);
      if (!validate) {
        validate = compile(route);
        compiled.set(key, validate);
      }
      return validate;
    };
    return (route: Route): Validate => {
      let validate: Validate | undefined;
      const lazy: Validate = (data) => {
        validate ??= validatorOf(route);
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

/**
 * Ajv's options for every route. Coercion is for the portal's inputs: a query string is text, and the real portal
 * takes `"1"` for 1 in a body too (the findings plugin reports it). No meta-schema check of every schema at each
 * start: test/store/schemas-meta.test.ts does it once.
 */
export const ajvOptions = {
  coerceTypes: 'array',
  useDefaults: true,
  removeAdditional: true,
  allErrors: true,
  formats: { password: true },
  validateSchema: false,
} as const;

/**
 * The validators of the control plane's routes: bodies are checked as given, with no coercion (a null stays null,
 * `"true"` is no boolean: the records API stores what it acknowledges); the query string, path and headers are
 * text, coerced as everywhere. `externalSchemas`: the shared schemas a body may $ref.
 */
export function exactBodyValidators(externalSchemas: unknown): Compile {
  const coerced = lazyValidatorBuilder() as unknown as BuildCompiler;
  const exact = lazyValidatorBuilder() as unknown as BuildCompiler;
  const forOther = coerced(externalSchemas, { customOptions: ajvOptions });
  const forBody = exact(externalSchemas, { customOptions: { ...ajvOptions, coerceTypes: false } });
  return (route) => (route.httpPart === 'body' ? forBody(route) : forOther(route));
}
