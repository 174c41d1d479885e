// Module resolution hook (see register.mjs): the conformance suite's `fs` is fs-shim.mjs; every other module's is fs.
const shim = new URL('./fs-shim.mjs', import.meta.url).href;

export async function resolve(specifier, context, next) {
  const fromSuite = context.parentURL?.includes('/@modelcontextprotocol/conformance/') === true;
  if (fromSuite && (specifier === 'fs' || specifier === 'node:fs')) return { url: shim, shortCircuit: true };
  return next(specifier, context);
}
