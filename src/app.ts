import { hostname } from 'node:os';
import type { IncomingMessage } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyServerOptions, type RouteOptions } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { durationMs, resolveOptions, UsageError, type Options } from './config.js';
import { clientErrorHandler, registerErrorHandling, renderError } from './errors.js';
import { sharedSchemas } from './schemas/index.js';
import { makeUrlRewriter, type PrefixInfo } from './http/context.js';
import { requestStatePlugin } from './http/request-state.js';
import cors from '@fastify/cors';
import compress from '@fastify/compress';
import { useLazySerializers } from './http/serializers.js';
import { lazyValidatorBuilder } from './http/validators.js';
import { serverLimitOptions, type ServerLimits } from './http/limits.js';
import { proxyStatePlugin } from './proxy/plugin.js';
import { scenarioHeaderPlugin } from './scenarios/plugin.js';
import { bundledScenariosDir, ScenarioRegistry } from './scenarios/registry.js';
import { activateScenario } from './scenarios/activate.js';
import { loadSnapshotFile } from './control/snapshot.js';
import { portalApi } from './routes/index.js';
import { adminRoutes } from './control/routes.js';
import { defaultFixturesPath, loadFixtures } from './store/fixtures.js';
import { checkAllUpTo, seedData } from './store/seed/index.js';
import { peopleIndex } from './domain/people-index.js';
import { SandboxRegistry } from './store/sandbox.js';
import { startOfDayUtc } from './store/clock.js';
import type { ClockState } from './schemas/control.js';
import { Worlds } from './store/world.js';
import { version } from './version.js';
import { describeRoute, finishDocument, securitySchemes } from './openapi.js';

export { version };

export type AppOptions = Partial<Options> & {
  /** a pino logger config, or false; defaults to JSON logs at options.logLevel */
  logger?:
    | boolean
    | {
        level: string;
        transport?: { target: string; options: Record<string, unknown> };
        /** where the JSON lines go (tests read them) */
        stream?: { write(line: string): void };
      };
  /** reload scenario files when they change (the CLI turns this on) */
  watchScenarios?: boolean;
  /** serve TLS with this key and certificate (PEM); base_url handed to clients then starts with https */
  tls?: { key: string; cert: string } | null;
  /** the local CA certificate (PEM) offered at GET /__admin/ca.pem for phones to trust */
  caCertificate?: string | null;
  /** limits of the Node server (header size, slow clients); defaults in src/http/limits.ts */
  serverLimits?: Partial<ServerLimits>;
  /** sees every route as it is registered (tools that read the schemas, e.g. test/schemas-meta.test.ts) */
  onRoute?: (route: RouteOptions) => void;
};

/** Builds the mock without listening: used by the CLI and by every test. */
export async function buildApp(input: AppOptions = {}): Promise<FastifyInstance> {
  const { logger, watchScenarios, tls, caCertificate, serverLimits, onRoute, ...rest } = input;
  const options = resolveOptions({ logLevel: 'silent', ...rest });
  const fixtures = loadFixtures(options.fixtures ?? defaultFixturesPath);
  const prefixes = new WeakMap<IncomingMessage, PrefixInfo>();
  const startedAt = performance.now();

  const app = (Fastify as (o: FastifyServerOptions & { https?: { key: string; cert: string } }) => FastifyInstance)({
    ...(tls ? { https: tls } : {}),
    logger: logger ?? (options.logLevel === 'silent' ? false : { level: options.logLevel }),
    trustProxy: true,
    bodyLimit: options.bodyLimit,
    ...serverLimitOptions(serverLimits),
    clientErrorHandler,
    frameworkErrors: renderError, // bad URL encoding and the like: the one error body too
    rewriteUrl: makeUrlRewriter(prefixes),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    schemaController: { compilersFactory: { buildValidator: lazyValidatorBuilder() } },
    ajv: {
      // no meta-schema check of every schema at each start: test/schemas-meta.test.ts does it once
      customOptions: {
        coerceTypes: 'array',
        useDefaults: true,
        removeAdditional: true,
        allErrors: true,
        formats: { password: true },
        validateSchema: false,
      },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // 1. errors: one body shape for everything
  registerErrorHandling(app);

  // 2. OpenAPI: registered first so it sees every route; shared records become named components
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'portal-mock: Mobile Client API of a multi-tenant corporate portal',
        version: '2.0.0',
        description:
          'A stateful mock. Every operation also answers under /api/v2 and under /sandbox/NAME. Fields marked ' +
          '"assumed" are not shown by the API description.',
        contact: { name: 'portal-mock maintainers' },
      },
      // relative: "Try it out" calls the mock that serves the document, whatever its address
      servers: [
        { url: '/', description: 'this mock' },
        { url: '/api/v2', description: "the same, under the portal's prefix" },
      ],
      components: { securitySchemes },
      tags: [
        { name: 'mobile', description: 'Device binding and session' },
        { name: 'workflow', description: 'Business process catalog, applications and tickets' },
        { name: 'user', description: 'Users: profile, lists, search' },
        { name: 'employment', description: 'Employments and employment documents of the current user' },
        { name: 'account', description: 'Status text and active statuses of the current user' },
        { name: 'department', description: 'Organisation structure' },
        { name: 'notifications', description: 'Push notifications and the badge' },
        { name: 'dashboard', description: 'Dashboard widgets' },
        { name: 'lookup', description: 'User groups and meeting places for pickers' },
        { name: 'postcard', description: 'Received postcards' },
        { name: 'article', description: 'News' },
        { name: 'category', description: 'Catalog of categories and articles (right show-content-categories)' },
        { name: 'calendar', description: 'Calendar events, event types and participation requests' },
        { name: 'idea', description: 'Ideas: list, view, edit, vote, participate' },
        { name: 'feedback', description: 'Feedback about users or departments' },
        { name: 'moderation', description: 'Moderation queue of ideas and comments' },
        { name: 'file', description: 'Files of the user, upload and download' },
        { name: 'user-api-token', description: 'Personal API tokens (Bearer); management needs a session' },
        { name: 'user-list-cache', description: 'Selections of users stored under a key' },
        {
          name: 'wallet',
          description: 'Wallets of employees and their transactions (enableWallet, right wallets-transactions)',
        },
        { name: 'file-processing', description: 'Background processing of uploaded files, for polling' },
        { name: 'admin-employment', description: 'Read-only employments for integrations (right user-edit)' },
        { name: 'pages', description: 'Web pages of the addresses answers hand out (HTML, session headers)' },
        { name: 'images', description: 'Generated images of the addresses answers hand out (SVG, public by id)' },
        {
          name: 'mock',
          description:
            "The mock's own control plane (/__admin): sandboxes, scenarios, journal, clock; not the portal API",
        },
      ],
    },
    transform: describeRoute,
    transformObject: finishDocument,
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  for (const schema of sharedSchemas) app.addSchema(schema);
  useLazySerializers(app);

  // 3. store: one frozen base world per seed, shared by every sandbox (src/store/store.ts, docs/store.md)
  const refDate = options.now ? new Date(options.now) : startOfDayUtc(new Date());
  const worlds = new Worlds({
    refDate,
    users: options.users,
    generate: (seed, at) => {
      const data = seedData(fixtures, { seed, refDate: at, size: { users: options.users } });
      // a large world's people indexes now, not in the first requests (see src/domain/people-index.ts)
      if (options.users > checkAllUpTo) for (const tenant of Object.values(data.tenants)) peopleIndex(tenant).warm();
      return data;
    },
  });
  const clock: ClockState = options.now
    ? { mode: 'frozen', at: new Date(options.now).toISOString() }
    : { mode: 'real' };
  let scenarios: ScenarioRegistry | undefined;
  const sandboxes = new SandboxRegistry({
    worlds,
    seed: options.seed,
    dataDir: options.data,
    clock,
    scenario: options.scenario,
    journalLimit: options.journalLimit,
    maxSandboxes: options.maxSandboxes,
    onCreate: (sandbox) => {
      const scenario = scenarios?.get(sandbox.scenario);
      if (scenario) activateScenario(sandbox, scenario, fixtures);
    },
    warn: (message) => app.log.warn(message),
  });
  sandboxes.loadPersisted();
  app.decorate('config', options);
  app.decorate('instance', { name: options.instanceName ?? hostname() }); // the CLI adds :port once listening
  app.decorate('fixtures', fixtures);
  app.decorate('caCertificate', caCertificate ?? null);
  app.decorate('sandboxes', sandboxes);

  const operationIds = new Set<string>();
  app.addHook('onRoute', (route) => {
    const id = route.schema?.operationId;
    if (typeof id === 'string') operationIds.add(id);
    onRoute?.(route);
  });

  // 4. what every request passes, whatever context serves it. CORS first, so error answers carry its headers too: any
  // origin, with credentials, as a development server allows (web previews of React Native, Flutter or Ionic apps);
  // every OPTIONS request is a preflight answered 204.
  await app.register(cors, {
    origin: true,
    credentials: true,
    methods: 'GET,HEAD,PUT,PATCH,POST,DELETE',
    maxAge: 600,
    strictPreflight: false,
  });
  // compression adds its onSend to each route's own hooks, so it runs after every context's: the journal, the body
  // faults and the proxy see the answer as text. gzip and deflate are what mobile HTTP stacks accept on their own;
  // level 1 as nginx, for less CPU (docs/performance.md, also why not brotli)
  await app.register(compress, {
    global: true,
    threshold: 1024,
    encodings: ['gzip', 'deflate'],
    zlibOptions: { level: 1 },
  });
  await app.register(requestStatePlugin, { prefixes }); // req.mock, the one request state (src/http/request-state.ts)
  await app.register(scenarioHeaderPlugin); // an unknown x-mock-scenario is a 400 on every route
  await app.register(proxyStatePlugin); // the upstream and recording, read by the portal and the control plane

  // 5. three sibling contexts: the portal's API with its own hooks, the mock's control plane, the docs
  await app.register(portalApi);
  await app.register(adminRoutes, { version, startedAt });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  scenarios = new ScenarioRegistry([bundledScenariosDir, ...options.scenarios], operationIds);
  if (!scenarios.get(options.scenario))
    throw new UsageError(`--scenario: unknown scenario "${options.scenario}"; known: ${scenarios.names().join(', ')}`);
  sandboxes.checkScenarios(scenarios); // of the sandboxes --data brought back (their data side is in their log)
  app.decorate('scenarios', scenarios);
  if (watchScenarios)
    scenarios.watch(
      (message) => app.log.error(message),
      (names) => app.log.info({ scenarios: names }, 'scenarios reloaded'),
    );
  const defaultSandbox = sandboxes.get('default'); // seed now: a broken factory fails at start-up, and the first request is fast
  if (options.state) loadSnapshotFile(sandboxes, defaultSandbox, options.state, options.seed);
  const idleMs = options.sandboxIdleTtl ? durationMs(options.sandboxIdleTtl) : null;
  const sweep = idleMs ? setInterval(() => sandboxes.evictIdle(idleMs), Math.min(idleMs, 60_000)).unref() : null;
  app.addHook('onClose', async () => {
    if (sweep) clearInterval(sweep);
    app.scenarios.close();
    sandboxes.close();
  });
  return app;
}
