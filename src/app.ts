import { hostname } from 'node:os';
import type { IncomingMessage } from 'node:http';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import cors from '@fastify/cors';
import { resolveOptions, type Options } from './config.js';
import { registerErrorHandling } from './errors.js';
import type { PrefixInfo } from './http/context.js';
import { compressOptions, corsOptions, fastifyOptions, type LoggerOption } from './http/server-options.js';
import { requestStatePlugin } from './http/request-state.js';
import { answerCachePlugin, compressionPlugin } from './http/answer-cache.js';
import { useLazySerializers } from './http/serializers.js';
import { defaultServerLimits, type ServerLimits } from './http/limits.js';
import { memoryBudgetPlugin, type MemoryReading } from './http/memory-budget.js';
import { refusedBodyPlugin } from './http/refused-body.js';
import { adminDocument, portalDocument, sharedSchemasPlugin } from './openapi.js';
import { scenarioRegistryPlugin } from './plugins/scenarios.js';
import { sandboxesPlugin } from './plugins/sandboxes.js';
import { wiremockRootPlugin } from './plugins/wiremock-root.js';
import { proxyStatePlugin } from './proxy/plugin.js';
import { scenarioHeaderPlugin } from './scenarios/plugin.js';
import { portalApi, portalTags } from './routes/index.js';
import { adminRoutes, openapiTags as controlPlaneTags } from './control/plugin.js';
import { defaultFixturesPath, loadFixtures } from './store/fixtures.js';
import { version } from './version.js';

export { version };

export type AppOptions = Partial<Options> & {
  /** a pino logger config, or false; defaults to JSON logs at options.logLevel */
  logger?: LoggerOption;
  /** reload scenario files when they change (the CLI turns this on) */
  watchScenarios?: boolean;
  /** serve TLS with this key and certificate (PEM); base_url handed to clients then starts with https */
  tls?: { key: string; cert: string } | null;
  /** the local CA certificate (PEM) offered at GET /__admin/ca.pem for phones to trust */
  caCertificate?: string | null;
  /** limits of the Node server (header size, slow clients); defaults in src/http/limits.ts */
  serverLimits?: Partial<ServerLimits>;
  /** sees every route as it is registered (tools that read the schemas, e.g. test/store/schemas-meta.test.ts) */
  onRoute?: (route: RouteOptions) => void;
  /** the clock of sandboxes' idle times (ms), so a test of --sandbox-idle-ttl moves time instead of sleeping */
  nowMs?: () => number;
  /**
   * what the memory budget reads instead of process.memoryUsage(), and how long it keeps a reading (tests cross
   * --max-memory-mb without allocating it)
   */
  memoryReading?: { read: () => MemoryReading; readingMs?: number };
};

/**
 * Builds the mock without listening, ready: used by the CLI and by every test. The registrations below are the
 * order every request meets them in (docs/architecture.md, "Contexts"). A bad start-up input (an unknown
 * --scenario, a broken scenario file, damaged --data) rejects here, with the app closed.
 */
export async function buildApp(input: AppOptions = {}): Promise<FastifyInstance> {
  const { logger, watchScenarios, tls, caCertificate, serverLimits, onRoute, nowMs, memoryReading, ...rest } = input;
  const options = resolveOptions({ logLevel: 'silent', ...rest });
  const fixtures = loadFixtures(options.fixtures ?? defaultFixturesPath);
  const prefixes = new WeakMap<IncomingMessage, PrefixInfo>();
  const startedAt = performance.now();

  const app = Fastify(fastifyOptions(options, { logger, tls, serverLimits, prefixes }));
  app.decorate('config', options);
  app.decorate('instance', { name: options.instanceName ?? hostname() }); // the CLI adds :port once listening
  app.decorate('fixtures', fixtures);
  app.decorate('caCertificate', caCertificate ?? null);
  if (onRoute) app.addHook('onRoute', onRoute);

  registerErrorHandling(app); // one error body for everything
  await app.register(sharedSchemasPlugin); // the records both API documents name
  useLazySerializers(app);
  // the stubs every sandbox starts with (read here: a bad mapping file stops the start), before the scenarios' own
  await app.register(wiremockRootPlugin, { dir: options.wiremock ?? null });
  await app.register(scenarioRegistryPlugin, {
    dirs: options.scenarios,
    defaultScenario: options.scenario,
    watch: watchScenarios ?? false,
    dataDir: options.data,
    regexMaxProgram: options.regexMaxProgram,
    maxScenarios: options.maxScenarios,
    maxScenarioBytes: options.maxScenarioBytes,
  });
  await app.register(memoryBudgetPlugin, memoryReading ?? {}); // app.memory, which refuses what would grow past it
  await app.register(sandboxesPlugin, { options, fixtures, ...(nowMs ? { nowMs } : {}) });
  await app.register(answerCachePlugin); // the kept answers of every sandbox, in one budget

  // what every request passes, whatever context serves it. CORS first, so error answers carry its headers too;
  // compression adds its onSend to each route's own hooks, so it runs after every context's: the journal, the
  // body faults and the proxy see the answer as text
  await app.register(cors, corsOptions);
  // a 413 waits for the rest of its body, so the client reads the answer instead of a reset
  await app.register(refusedBodyPlugin, {
    bytes: serverLimits?.drainBytes ?? defaultServerLimits.drainBytes,
    ms: serverLimits?.drainMs ?? defaultServerLimits.drainMs,
  });
  await app.register(requestStatePlugin, { prefixes }); // req.mock, the one request state
  await app.register(compressionPlugin, compressOptions); // @fastify/compress, kept answers compressed once
  await app.register(scenarioHeaderPlugin); // an unknown x-mock-scenario is a 400 on every route
  await app.register(proxyStatePlugin); // the upstream and recording, read by the portal and the control plane

  // two sibling contexts, the portal's API with its own hooks and the mock's control plane, each with its own API
  // document (registered first in it, so it sees every route of the context and no other) and Swagger UI page
  await app.register(async (portal) => {
    await portal.register(swagger, portalDocument(portalTags));
    await portal.register(portalApi);
    await portal.register(swaggerUi, { routePrefix: '/docs' });
  });
  await app.register(async (controlPlane) => {
    await controlPlane.register(swagger, adminDocument(controlPlaneTags));
    await controlPlane.register(adminRoutes, { version, startedAt });
    await controlPlane.register(swaggerUi, { routePrefix: '/__admin/docs' });
  });

  try {
    await app.ready(); // the registries load here (their onReady hooks)
  } catch (err) {
    await app.close();
    throw err;
  }
  return app;
}
