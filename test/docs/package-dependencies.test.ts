// A lean package (issue 47): every package a consumer install pulls is there for a reason the build shows. The
// bundle (dist/*.mjs, dist/chunks/) holds the code of what it does not load at run time, so such a package is a
// devDependency; a runtime dependency is one the bundle loads from node_modules, one the shipped declarations name
// (a consumer's tsc reads them), or one listed below with why. Needs `npm run build` first (npm test does it).
import t from 'tap';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  exports: Record<string, { types?: string; default?: string } | string>;
};
const dependencies = Object.keys(pkg.dependencies);

/** Dependencies neither loaded by the bundle nor named by the declarations, and why they are dependencies. */
const listed: Record<string, string> = {
  'light-my-request': "pins fastify's dependency to the last version whose own dependencies accept Node 20",
  '@fastify/static': "pins swagger-ui's dependency to the last version whose own dependencies accept Node 20",
  'fast-json-stringify': 'imported by src/http/serializers.ts; fastify pulls the same version (no package added)',
  '@fastify/ajv-compiler': 'imported by src/http/validators.ts; fastify pulls the same version (no package added)',
  'node-forge': "loaded on --tls by a require the scan does not see (src/tls/ca.ts: createRequire(...)('node-forge'))",
  'pino-pretty': "pino loads it by name in a worker thread (the CLI's readable log: transport target 'pino-pretty')",
};
/** Packages the bundle loads that a dependency brings (not ours to list). */
const broughtBy: Record<string, string> = { pino: 'fastify' };

const packageOf = (specifier: string) =>
  specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;
const isBuiltin = (specifier: string) => specifier.startsWith('node:') || builtinModules.includes(packageOf(specifier));

/** The packages the built bundle loads from node_modules: imports, dynamic imports, requires, require.resolve. */
function bundleLoads(): Set<string> {
  const dist = join(root, 'dist');
  const files = [
    ...['portal-mock.mjs', 'start-mock.mjs'].map((f) => join(dist, f)),
    ...readdirSync(join(dist, 'chunks'))
      .filter((f) => f.endsWith('.mjs'))
      .map((f) => join(dist, 'chunks', f)),
    ...readdirSync(join(dist, 'client'))
      .filter((f) => f.endsWith('.js'))
      .map((f) => join(dist, 'client', f)),
  ];
  const loads = new Set<string>();
  for (const file of files) {
    const code = readFileSync(file, 'utf8');
    const specifiers =
      /(?:\bfrom|\bimport\(|\brequire\(|\.resolve\()\s*["']((?:@[\w.-]+\/)?[\w][\w.-]*(?:\/[\w./-]*)?)["']/g;
    for (const m of code.matchAll(specifiers)) {
      const specifier = m[1]!;
      // the module paths ajv writes into the source of standalone validators (code text, never loaded here)
      if (specifier.startsWith('ajv/dist/runtime/') || specifier === 'ajv-formats/dist/formats') continue;
      if (!isBuiltin(specifier) && packageOf(specifier) !== 'portal-mock') loads.add(packageOf(specifier));
    }
  }
  return loads;
}

/** The packages the declarations of the package's entries name, following their relative imports. */
function declarationsName(): Set<string> {
  const named = new Set<string>();
  const seen = new Set<string>();
  const stack = Object.values(pkg.exports)
    .map((e) => (typeof e === 'string' ? undefined : e.types))
    .filter((types): types is string => types !== undefined)
    .map((types) => resolve(root, types));
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(/(?:from|import\()\s*['"]([^'"]+)['"]/g)) {
      const specifier = m[1]!;
      if (specifier.startsWith('.')) stack.push(resolve(dirname(file), specifier.replace(/\.js$/, '.d.ts')));
      else if (!isBuiltin(specifier)) named.add(packageOf(specifier));
    }
  }
  return named;
}

t.test('what the bundle loads at run time and what the declarations name are dependencies', async (t) => {
  const loads = bundleLoads();
  const named = declarationsName();
  t.ok(loads.has('@fastify/swagger-ui'), 'the scan sees what the bundle loads (swagger-ui: its page files)');
  t.ok(named.has('fastify'), 'the scan sees what the declarations name (fastify: FastifyInstance, portal-mock/server)');
  for (const name of loads) {
    if (broughtBy[name]) t.ok(dependencies.includes(broughtBy[name]!), `${name} comes with ${broughtBy[name]}`);
    else t.ok(dependencies.includes(name), `the bundle loads ${name}: a dependency`);
  }
  for (const name of named) t.ok(dependencies.includes(name), `the declarations name ${name}: a dependency`);
});

t.test('every runtime dependency is loaded by the bundle, named by the declarations, or listed with why', async (t) => {
  const loads = bundleLoads();
  const named = declarationsName();
  const unneeded = dependencies.filter((name) => !loads.has(name) && !named.has(name) && !listed[name]);
  t.same(unneeded, [], 'bundled code is a devDependency: a consumer install need not pull it');
  for (const name of Object.keys(listed)) t.ok(dependencies.includes(name), `${name} is listed as a dependency`);
});
