// What a WireMock client asks of the server itself: settings, health, version; recordings and shutdown are refused
// naming what to use instead. And the block's own 404.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../../schemas/common.js';
import { Empty, Health, SettingsBody, WireMockError, tags, unservedSettings, wmError, type Options } from './common.js';

export const wiremockInstanceRoutes: FastifyPluginAsyncTypebox<Options> = async (app, opts) => {
  app.get(
    '/settings',
    {
      schema: {
        operationId: 'wiremockSettingsGet',
        tags,
        summary: 'Global settings (none are served)',
        description:
          'WireMock\'s global settings: `{"settings": {}}`. A global delay or proxy pass-through is not served ' +
          '(PUT or POST them: a 422 says what to use instead).',
        response: { 200: Type.Object({ settings: Type.Object({}) }), ...errors(401) },
      },
    },
    async () => ({ settings: {} }),
  );

  const settingsRoute = (method: 'POST' | 'PUT', operationId: string) =>
    app.route({
      method,
      url: '/settings',
      schema: {
        operationId,
        tags,
        summary: 'Update global settings (only {} is taken)',
        description:
          'A global fixedDelay or delayDistribution is not served (give each mapping its own delay), nor ' +
          "proxyPassThrough or extended: each is WireMock's 422 naming its pointer. An empty settings object is 200.",
        body: SettingsBody,
        response: { 200: Empty, 422: WireMockError, ...errors(400, 401) },
      },
      handler: async (req, reply) => {
        const body = req.body as Record<string, unknown>;
        const wrapped = 'settings' in body;
        const settings = wrapped ? body.settings : body;
        const base = wrapped ? '/settings' : '';
        if (settings === null || typeof settings !== 'object' || Array.isArray(settings))
          return reply.code(422).send(wmError(10, 'Error parsing JSON', 'expected an object', base));
        const [key] = Object.keys(settings);
        if (key !== undefined) {
          const why = unservedSettings[key];
          const pointer = `${base}/${key}`;
          return reply
            .code(422)
            .send(
              why
                ? wmError(10, 'Unsupported by portal-mock', why, pointer)
                : wmError(10, 'Error parsing JSON', `Unrecognized field "${key}" (class GlobalSettings)`, pointer),
            );
        }
        return {};
      },
    });
  settingsRoute('POST', 'wiremockSettingsPost');
  settingsRoute('PUT', 'wiremockSettingsPut');

  app.get(
    '/health',
    {
      schema: {
        operationId: 'wiremockHealth',
        tags,
        summary: "WireMock's health answer",
        description:
          "status healthy, portal-mock's version, the uptime of the instance that holds the sandbox (under --peers " +
          'the call goes to it, as every call about the sandbox), the time now.',
        response: { 200: Health, ...errors(401, 502, 503) },
      },
    },
    async () => ({
      status: 'healthy' as const,
      message: 'portal-mock is ok',
      version: opts.version,
      uptimeInSeconds: Math.floor((performance.now() - opts.startedAt) / 1000),
      timestamp: new Date().toISOString(),
    }),
  );

  app.get(
    '/version',
    {
      schema: {
        operationId: 'wiremockVersion',
        tags,
        summary: "portal-mock's version",
        description: "The version a WireMock client asks for: portal-mock's own (the admin API follows WireMock 3.13).",
        response: { 200: Type.Object({ version: Type.String() }), ...errors(401, 502, 503) },
      },
    },
    async () => ({ version: opts.version }),
  );

  // ---- refused: what to use instead

  app.get(
    '/recordings/status',
    {
      schema: {
        operationId: 'wiremockRecordingStatus',
        tags,
        summary: 'Recording status: never started',
        description: "WireMock's recorder is not served here: GET /__admin/recording tells portal-mock's own.",
        response: { 200: Type.Object({ status: Type.Literal('NeverStarted') }), ...errors(401) },
      },
    },
    async () => ({ status: 'NeverStarted' as const }),
  );

  const refuse = (url: string, operationId: string, summary: string, why: WireMockError) =>
    app.post(
      url,
      {
        // never a success, so not in the API document (its contract check calls every operation for a 2xx)
        schema: {
          hide: true,
          operationId,
          tags,
          summary,
          body: Type.Unknown(),
          response: { 422: WireMockError, ...errors(401) },
        },
      },
      async (_req, reply) => reply.code(422).send(why),
    );
  const recording = wmError(
    10,
    'Recording through the WireMock API is not served by portal-mock',
    'set the upstream with PUT /__admin/proxy, then record with POST /__admin/recording {"action":"start"} and ' +
      '{"action":"stop"}: the recording is a scenario file (docs/proxy.md, "Recording")',
  );
  refuse('/recordings/start', 'wiremockRecordingStart', 'Start recording (refused: use /__admin/recording)', recording);
  refuse('/recordings/stop', 'wiremockRecordingStop', 'Stop recording (refused: use /__admin/recording)', recording);
  refuse('/recordings/snapshot', 'wiremockRecordingSnapshot', 'Snapshot (refused: use /__admin/recording)', recording);
  refuse(
    '/shutdown',
    'wiremockShutdown',
    'Shut down (refused: delete the sandbox)',
    wmError(
      10,
      'Shutting down is not served: the server holds other sandboxes',
      'delete this sandbox with DELETE /__admin/sandboxes/NAME (or reset it: POST /__admin/reset)',
    ),
  );
};

/**
 * The block's own 404: a path under /wiremock/__admin no route serves is WireMock's 404 (with a body saying where
 * the list is), never the portal's stubs or pass-through.
 */
export const wiremockAdminNotFound: FastifyPluginAsyncTypebox = async (app) => {
  app.route({
    method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    url: '/*',
    schema: { hide: true },
    handler: async (req, reply) =>
      reply
        .code(404)
        .send(
          wmError(
            404,
            `No WireMock admin route ${req.method} ${req.url.split('?')[0]!.slice(0, 200)}`,
            'portal-mock serves the admin endpoints listed in docs/wiremock.md ("The admin API")',
          ),
        ),
  });
};
