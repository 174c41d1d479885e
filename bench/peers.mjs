// Peer mock servers serving the same operation as the light read: Stoplight Prism (OpenAPI) and WireMock (JSON mapping).
import { mkdirSync, writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const tenantInfoExample = {
  id: '7d3f9a2e-5b1c-4e8a-9f60-2c4b8d1e0a01',
  name: 'Ромашка',
  domain: 'romashka.portal.test',
  base_url: 'http://127.0.0.1',
  locale: 'ru',
  timezone: 'Europe/Moscow',
  logoUrl: 'http://127.0.0.1/images/tenant/7d3f9a2e-5b1c-4e8a-9f60-2c4b8d1e0a01.svg',
  apiVersion: '2.0.0',
  options: { enableWallet: true, enableIdeas: true, enableCalendar: true },
};

/** A small OpenAPI document of GET /mobile/tenant-info with the session headers required. */
export function writePrismSpec(dir) {
  mkdirSync(dir, { recursive: true });
  const header = (name) => ({ name, in: 'header', required: true, schema: { type: 'string' } });
  const spec = {
    openapi: '3.0.3',
    info: { title: 'tenant-info', version: '1.0.0' },
    paths: {
      '/mobile/tenant-info': {
        get: {
          operationId: 'mobileTenantInfo',
          parameters: [
            'x-service-tenant-id',
            'x-service-device-id',
            'x-service-session-id',
            'x-service-session-code',
          ].map(header),
          responses: {
            200: {
              description: 'tenant',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: Object.fromEntries(
                      Object.entries(tenantInfoExample).map(([k, v]) => [
                        k,
                        { type: typeof v === 'object' ? 'object' : 'string' },
                      ]),
                    ),
                  },
                  example: tenantInfoExample,
                },
              },
            },
          },
        },
      },
      '/__admin/health': {
        get: {
          responses: { 200: { description: 'ok', content: { 'application/json': { example: { status: 'ok' } } } } },
        },
      },
    },
  };
  const file = join(dir, 'prism-spec.json');
  writeFileSync(file, JSON.stringify(spec, null, 2));
  return file;
}

/** A WireMock root dir with one mapping per operation. */
export function writeWiremockRoot(dir) {
  mkdirSync(join(dir, 'mappings'), { recursive: true });
  mkdirSync(join(dir, '__files'), { recursive: true });
  writeFileSync(
    join(dir, 'mappings', 'tenant-info.json'),
    JSON.stringify({
      request: {
        method: 'GET',
        urlPath: '/mobile/tenant-info',
        headers: { 'x-service-session-id': { matches: '.+' } },
      },
      response: {
        status: 200,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        jsonBody: tenantInfoExample,
      },
    }),
  );
  writeFileSync(
    join(dir, 'mappings', 'health.json'),
    JSON.stringify({
      request: { method: 'GET', urlPath: '/__admin/health' },
      response: { status: 200, jsonBody: { status: 'ok' } },
    }),
  );
  return dir;
}

export function wiremockJar(root) {
  const dir = join(root, 'bench', 'node_modules', 'wiremock', 'build');
  const jar = readdirSync(dir).find((f) => f.endsWith('.jar'));
  return jar ? join(dir, jar) : null;
}
