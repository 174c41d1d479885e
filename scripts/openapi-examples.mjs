// `npm run openapi`, first step: captures openapi-examples.json from the seeded world (test/support/examples.ts).
// The capture reuses the tests' table of valid inputs, written in TypeScript, so it is bundled first, like the server.
import { writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const outfile = 'dist/capture-examples.mjs';
await build({
  entryPoints: ['test/support/examples.ts'],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
const { captureExamples, examplesText } = await import(new URL(`../${outfile}`, import.meta.url).href);
const text = examplesText(await captureExamples());
writeFileSync('openapi-examples.json', text);
process.stdout.write(`wrote openapi-examples.json (${text.length} bytes)\n`);
