// Bundles the compiled server (dist/server.js) into dist/portal-mock.mjs, which the bin, `npm start` and the Docker
// image run, and the package's entry (dist/start-mock.js: startMock for test runners) into dist/start-mock.mjs.
// Loading a few files instead of several hundred modules cuts about a third of the start-up, which QA pipelines pay
// on every run, and two thirds of `import 'portal-mock'` (400 -> 125 ms of CPU). The code both share is one chunk
// (dist/chunks/), so the package holds it once. The unbundled dist/ stays for the declarations and the typed client.
// `--watch` (npm run dev) bundles straight from src/server.ts and again on every change, so `npm start` in another
// terminal runs the current sources (esbuild strips the types; `npm run typecheck` checks them).
import { rmSync } from 'node:fs';
import { build, context } from 'esbuild';
import { bundleBanner, swaggerUiFiles } from './bundle-options.mjs';

const watch = process.argv.includes('--watch');

const options = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  // Loaded from node_modules at run time: they read files next to their own code (__dirname: swagger-ui's pages),
  // start worker threads from their own files (pino transports), or are loaded with a synchronous require (node-forge,
  // for TLS). Everything else is bundled, and what only the bundle uses is a devDependency, so a consumer install
  // does not pull it (issue 47); what the bundle loads on demand (qrcode, sanitize-html) is a chunk of its own,
  // imported dynamically, so it costs nothing at start.
  external: ['pino', 'pino-pretty', 'node-forge'],
  banner: bundleBanner,
};

/**
 * The typed client stays the one module `portal-mock/admin` names (the package refers to itself by name), so an
 * AdminError thrown by startMock().admin is an instance of the class a test imports from either entry.
 */
const clientAsPackage = {
  name: 'client-as-package',
  setup(b) {
    b.onResolve({ filter: /\/client\/control\.js$/ }, () => ({ path: 'portal-mock/admin', external: true }));
  },
};

if (watch) {
  const dev = { ...options, entryPoints: ['src/server.ts'], outfile: 'dist/portal-mock.mjs', logLevel: 'info' };
  await (await context(dev)).watch();
  console.log('bundling src/server.ts into dist/portal-mock.mjs on every change; npm start runs it (Ctrl-C stops)');
} else {
  rmSync('dist/chunks', { recursive: true, force: true }); // chunks are named by their content: drop old ones
  await build({
    ...options,
    entryPoints: {
      'portal-mock': 'dist/server.js',
      'start-mock': 'dist/start-mock.js',
      'start-server': 'dist/start-server.js',
    },
    outdir: 'dist',
    outExtension: { '.js': '.mjs' },
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    plugins: [clientAsPackage, swaggerUiFiles],
  });
}
