// `npm run openapi`: writes the portal's API document (the one served at /docs/json) to openapi.json, pretty-printed
// and deterministic, so clients generate types from a committed file (npx openapi-typescript openapi.json -o
// portal-api.d.ts); the control plane's (served at /__admin/openapi.json) to openapi.admin.json; and the scenario
// files' JSON Schema (the one served at /__admin/scenario.schema.json) to scenarios/.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { buildApp } from '../app.js';
import { packageRoot } from '../paths.js';

export const openapiFile = join(packageRoot, 'openapi.json');
export const adminOpenapiFile = join(packageRoot, 'openapi.admin.json');
export const regenerateCommand = 'npm run openapi';
/** What the shipped scenario files name as their `$schema` ("./scenario.schema.json"). */
export const scenarioSchemaFile = join(packageRoot, 'scenarios', 'scenario.schema.json');

/** The scenario files' JSON Schema as the committed file holds it: what the control plane serves. */
export async function generateScenarioSchema(): Promise<string> {
  const app = await buildApp({ now: '2026-01-01T00:00:00.000Z', logLevel: 'silent' });
  try {
    const res = await app.inject({ method: 'GET', url: '/__admin/scenario.schema.json' });
    if (res.statusCode !== 200) throw new Error(`/__admin/scenario.schema.json answered ${res.statusCode}`);
    return `${JSON.stringify(JSON.parse(res.body), null, 2)}\n`;
  } finally {
    await app.close();
  }
}

/** Where each document is served. */
export const documentUrls = { portal: '/docs/json', admin: '/__admin/openapi.json' } as const;

/** A document as the committed file holds it (fixed clock and seed; keys in the server's order). */
export async function generateOpenApi(which: keyof typeof documentUrls = 'portal'): Promise<string> {
  const app = await buildApp({ now: '2026-01-01T00:00:00.000Z', logLevel: 'silent' });
  try {
    const res = await app.inject({ method: 'GET', url: documentUrls[which] });
    if (res.statusCode !== 200) throw new Error(`${documentUrls[which]} answered ${res.statusCode}`);
    return `${JSON.stringify(JSON.parse(res.body), null, 2)}\n`;
  } finally {
    await app.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const [which, file] of [
    ['portal', openapiFile],
    ['admin', adminOpenapiFile],
  ] as const) {
    const text = await generateOpenApi(which);
    writeFileSync(file, text);
    process.stdout.write(`wrote ${file} (${text.length} bytes)\n`);
  }
  const schema = await generateScenarioSchema();
  writeFileSync(scenarioSchemaFile, schema);
  process.stdout.write(`wrote ${scenarioSchemaFile} (${schema.length} bytes)\n`);
}
