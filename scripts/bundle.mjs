// Bundles the compiled server (dist/server.js) into one file, dist/portal-mock.mjs, which the bin, `npm start`
// and the Docker image run. Loading one file instead of several hundred modules cuts about a third of the
// start-up, which QA pipelines pay on every run. The unbundled dist/ stays for the library exports.
// `--watch` (npm run dev) bundles straight from src/server.ts and again on every change, so `npm start` in another
// terminal runs the current sources (esbuild strips the types; `npm run typecheck` checks them).
import { build, context } from 'esbuild';

const watch = process.argv.includes('--watch');
const options = {
  entryPoints: [watch ? 'src/server.ts' : 'dist/server.js'],
  outfile: 'dist/portal-mock.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  // Loaded from node_modules at run time: they read files next to their own code (__dirname), start worker
  // threads from their own files (pino transports), or are only needed for optional features loaded on demand.
  external: ['@fastify/swagger-ui', 'pino', 'pino-pretty', 'exceljs', 'qrcode', 'node-forge', 'sanitize-html'],
  // CommonJS dependencies inside an ES module bundle still call require()
  banner: {
    js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
  },
};
if (watch) {
  await (await context({ ...options, logLevel: 'info' })).watch();
  console.log('bundling src/server.ts into dist/portal-mock.mjs on every change; npm start runs it (Ctrl-C stops)');
} else await build(options);
