import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, ref } from '../../schemas/common.js';
import { Finding, FindingQuery } from '../../schemas/control.js';
import { sandboxFindings, SandboxQuery } from '../sandbox.js';
import { FindingsCleared } from '../../schemas/control-answers.js';
import { findingValueCheck } from '../filter-values.js';

const tags = ['mock'];

/** The findings of a sandbox (docs/findings.md): what the app did that the real portal answers differently. */
export const findingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/findings',
    {
      schema: {
        operationId: 'mockFindings',
        tags,
        summary: "Findings on the app's traffic, newest first (docs/findings.md)",
        description:
          'What the app did in this sandbox that the real portal answers differently or that breaks the sign-in ' +
          'protocol: each finding has a stable code, a severity, the journal id of the request and what to change in ' +
          'the app. Filters: code, severity, since.',
        querystring: FindingQuery,
        response: { 200: Type.Array(ref(Finding)), ...errors(400, 401, 404, 502, 503) },
      },
      config: { sandbox: 'read' },
      preValidation: findingValueCheck,
    },
    async (req) => sandboxFindings(req, req.mock.sandbox).list(req.query),
  );

  app.delete(
    '/findings',
    {
      schema: {
        operationId: 'mockFindingsClear',
        tags,
        summary: 'Forget the findings of the sandbox (the detectors keep what they know of earlier requests)',
        description: 'Clears the findings list of the sandbox, e.g. between two tests; a reset clears them too.',
        querystring: SandboxQuery,
        response: {
          200: FindingsCleared,
          ...errors(400, 401),
        },
      },
      config: { sandbox: 'write' },
    },
    async (req) => ({ cleared: req.mock.sandbox.findings.clear() }),
  );
};
