// WireMock's near misses of a posted request (against the sandbox's mappings) or of a request pattern (against its
// journal): the closest first, with WireMock's distance.
import { Type } from '@sinclair/typebox';
import { wireRequest } from './requests.js';
import type { WireRequest } from '../../../wiremock/match.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../../schemas/common.js';
import { matchRequest } from '../../../wiremock/match.js';
import { LoggedRequestIn, NearMisses, parseRequestPattern, shown, tags, WireMockError, wiremockKit } from './common.js';

export const wiremockNearMissRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { mappingLimits } = wiremockKit(app);

  app.post(
    '/near-misses/request',
    {
      schema: {
        operationId: 'wiremockNearMissesRequest',
        tags,
        summary: 'The stub mappings nearest a request',
        description:
          "The three mappings nearest the request given (WireMock's LoggedRequest: url, method, headers, body), " +
          'nearest first, with their distance (0: it matches) in the scenario states of now.',
        body: LoggedRequestIn,
        response: { 200: NearMisses, ...errors(400, 401, 429) },
      },
      config: { sandbox: 'use' },
    },
    async (req) => {
      const stubs = req.mock.sandbox.wiremock;
      const { url, method, headers = {}, body, bodyAsBase64 } = req.body;
      const text = body ?? (bodyAsBase64 === undefined ? '' : Buffer.from(bodyAsBase64, 'base64').toString('utf8'));
      const request: WireRequest = { url, method, headers, body: text };
      const states = stubs.statesCopy();
      const ranked = stubs.servingOrder
        .map((mapping) => {
          const result = matchRequest(mapping, request, states);
          return { mapping, distance: result.matched ? 0 : result.distance };
        })
        .sort((a, b) => a.distance - b.distance)
        .slice(0, 3);
      return {
        nearMisses: ranked.map((r) => ({
          request: { url, method, headers, body: text },
          stubMapping: shown(r.mapping),
          matchResult: { distance: r.distance },
        })),
      };
    },
  );

  app.post(
    '/near-misses/request-pattern',
    {
      schema: {
        operationId: 'wiremockNearMissesRequestPattern',
        tags,
        summary: 'The logged requests nearest a request pattern',
        description:
          "The three requests of the sandbox's journal nearest the pattern (WireMock's RequestPattern, checked as " +
          "a mapping's request: a 422 names the pointer), nearest first. A request whose headers the journal " +
          'redacted is matched on what it kept.',
        body: Type.Unknown({ description: "WireMock's RequestPattern" }),
        response: { 200: NearMisses, 422: WireMockError, ...errors(400, 401, 429) },
      },
      config: { sandbox: 'use' },
    },
    async (req, reply) => {
      const pattern = parseRequestPattern(req.body, mappingLimits);
      if ('errors' in pattern) return reply.code(422).send(pattern);
      const sandbox = req.mock.sandbox;
      const states = new Map<string, string>();
      const ranked = sandbox.journal
        .list()
        .map((entry) => {
          const request = wireRequest(entry);
          const result = matchRequest(pattern, request, states);
          return { request, distance: result.matched ? 0 : result.distance };
        })
        .sort((a, b) => a.distance - b.distance)
        .slice(0, 3);
      return {
        nearMisses: ranked.map((r) => ({
          request: r.request,
          requestPattern: shown(pattern).request,
          matchResult: { distance: r.distance },
        })),
      };
    },
  );
};
