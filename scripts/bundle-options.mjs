// What the product's bundle (scripts/bundle.mjs) and the suite's (scripts/test-bundle.mjs) both need.
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * @fastify/swagger-ui bundled: loading it from node_modules (with the yaml, @fastify/static and glob it requires)
 * took ~50 ms of every start. It reads its page's files beside its own code (__dirname), so in the bundle that is
 * the installed package's folder, which stays a dependency for those files.
 */
export const swaggerUiFiles = {
  name: 'swagger-ui-files',
  setup(b) {
    b.onLoad({ filter: /[\\/]@fastify[\\/]swagger-ui[\\/](index|lib[\\/]routes)\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const lib = args.path.includes('lib') ? ", 'lib'" : '';
      const dir = `require('node:path').join(require('node:path').dirname(require.resolve('@fastify/swagger-ui'))${lib})`;
      return { contents: source.replaceAll('__dirname', dir), loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};
/** CommonJS dependencies inside an ES module bundle still call require() */
export const bundleBanner = {
  js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
};
