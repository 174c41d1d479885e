import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { parseMapping } from '../../src/wiremock/mapping.js';
import { WireMockStubs } from '../../src/wiremock/state.js';

/**
 * Puts these mappings (WireMock JSON, oldest first) into the sandbox, as the admin API would (its routes are the
 * wmadmin branch's; once merged, tests may POST to /sandbox/NAME/wiremock/__admin/mappings instead).
 */
export function loadMappings(app: FastifyInstance, sandbox: string, mappings: unknown[]): void {
  let stubs = WireMockStubs.empty;
  for (const m of mappings) {
    const parsed = parseMapping(m, randomUUID);
    if (!('mapping' in parsed)) throw new Error(JSON.stringify(parsed.errors));
    stubs = stubs.with(parsed.mapping);
  }
  app.sandboxes.get(sandbox).wiremock = stubs;
}
