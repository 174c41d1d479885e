// What an agent reads rather than calls: the portal's API document, the scenario file schema, the demo accounts,
// the findings catalogue, and each collection's record schema (a template, one per collection).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import { rules } from '../findings/rules.js';
import { findingCodes } from '../schemas/control.js';
import { storedRecords } from '../schemas/stored-records.js';
import { packageRoot } from '../paths.js';
import type { AdminCall } from './admin-call.js';
import { inlineRefs } from './json-schema.js';
import { refusal } from './results.js';

const json = 'application/json';

/** The rows of docs/findings.md's table by code (what the portal does, what to change), when the docs are there. */
function documentedFindings(): Map<string, string[]> {
  const file = join(packageRoot, 'docs/findings.md');
  const rows = new Map<string, string[]>();
  if (!existsSync(file)) return rows; // shipped in the package ("files"); without it the codes and severities stay
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim().replaceAll('\\|', '|'));
    const code = /^`([a-z-]+)`$/.exec(cells[1] ?? '')?.[1];
    if (code) rows.set(code, cells.slice(3, 6));
  }
  return rows;
}

let catalogue: string | undefined;
/** Every finding code: severity, the operations it watches, and (from the docs) when, what the portal does, the fix. */
export function findingsCatalogue(): string {
  if (catalogue) return catalogue;
  const docs = documentedFindings();
  const findings = findingCodes.map((code) => {
    const [when, portal, fix] = docs.get(code) ?? [];
    return {
      code,
      severity: rules[code].severity,
      operations: rules[code].ops ?? 'any',
      ...(when ? { when, realPortal: portal, fix } : {}),
    };
  });
  catalogue = JSON.stringify({ findings, docs: 'docs/findings.md' }, null, 1);
  return catalogue;
}

const recordSchemas = new Map(storedRecords.map((r) => [r.name as string, r.plain]));

export function registerResources(server: McpServer, call: AdminCall): void {
  const fromAdmin = (name: string, uri: string, url: string, description: string) =>
    server.registerResource(name, uri, { description, mimeType: json }, async (href) => {
      const answer = await call({ method: 'GET', url });
      if (answer.status !== 200) throw new Error(`${url} answered ${refusal(answer)}`);
      return { contents: [{ uri: href.href, mimeType: json, text: JSON.stringify(answer.body) }] };
    });

  fromAdmin(
    'portal-openapi',
    'portal-mock://openapi/portal',
    '/docs/json',
    "The portal's API document (OpenAPI 3): every operationId call_portal takes, with paths, bodies and answers.",
  );
  fromAdmin(
    'scenario-schema',
    'portal-mock://schemas/scenario',
    '/__admin/scenario.schema.json',
    'JSON Schema of a scenario file (stubs, faults, latency, data): what set_scenario takes as definition.',
  );
  fromAdmin(
    'fixtures',
    'portal-mock://fixtures',
    '/__admin/fixtures',
    'Demo tenants and accounts with passwords (which need two-factor), devices, API keys, bind links.',
  );
  server.registerResource(
    'findings-catalogue',
    'portal-mock://findings',
    {
      description: 'Every finding code: severity, operations, when it is raised, what the real portal does, the fix.',
      mimeType: json,
    },
    async (href) => ({ contents: [{ uri: href.href, mimeType: json, text: findingsCatalogue() }] }),
  );
  server.registerResource(
    'record-schema',
    new ResourceTemplate('portal-mock://records/{collection}', {
      list: async () => ({
        resources: storedRecords.map((r) => ({
          uri: `portal-mock://records/${r.name}`,
          name: `${r.name} record`,
          mimeType: json,
        })),
      }),
      complete: { collection: (value) => storedRecords.map((r) => r.name).filter((n) => n.startsWith(value)) },
    }),
    {
      description: "A collection's record schema (JSON Schema): the fields records and arrange_sandbox take.",
      mimeType: json,
    },
    async (href, { collection }) => {
      const schema = recordSchemas.get(String(collection));
      if (!schema)
        throw new Error(`no collection "${String(collection)}"; known: ${[...recordSchemas.keys()].join(', ')}`);
      return { contents: [{ uri: href.href, mimeType: json, text: JSON.stringify(inlineRefs(schema)) }] };
    },
  );
}
