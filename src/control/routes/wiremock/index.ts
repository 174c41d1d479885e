// WireMock 3.13's admin API, per sandbox (docs/wiremock.md, "The admin API"): registered under /wiremock/__admin in
// the control plane (src/control/plugin.ts), so /sandbox/NAME/wiremock/__admin/… is sandbox NAME's. Bodies and
// answers are WireMock's, errors included (`{"errors":[…]}`); what portal-mock adds is the sandbox, the bounds
// (--wiremock-max-mappings, --wiremock-sandbox-kb) and the unit of work: a refused change leaves the sandbox's
// mappings exactly as they were. One plugin per resource, as the rest of the control plane.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Options, wiremockBodies } from './common.js';
import { wiremockAdminNotFound, wiremockInstanceRoutes } from './instance.js';
import { wiremockMappingRoutes } from './mappings.js';
import { wiremockNearMissRoutes } from './near-misses.js';
import { wiremockRequestRoutes } from './requests.js';
import { wiremockScenarioRoutes } from './scenarios.js';

export const wiremockAdminApi: FastifyPluginAsyncTypebox<Options> = async (app, opts) => {
  wiremockBodies(app); // WireMock's JSON bodies and its 422, for every route below
  // WireMock's Java client sends `Authorization: Token T`
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, adminToken: 'wiremock' };
  });
  await app.register(wiremockMappingRoutes);
  await app.register(wiremockRequestRoutes);
  await app.register(wiremockNearMissRoutes);
  await app.register(wiremockScenarioRoutes);
  await app.register(wiremockInstanceRoutes, { version: opts.version, startedAt: opts.startedAt });
  await app.register(wiremockAdminNotFound); // its own 404, in WireMock's shape
};
