import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, PageQuery, ref } from '../schemas/common.js';
import {
  WorkflowCatalog,
  WorkflowStartForm,
  WorkflowStartRequest,
  WorkflowStartResult,
  WorkflowTicketDetails,
  WorkflowTicketPage,
} from '../schemas/workflow.js';
import { domainContext } from '../http/context.js';
import { callerTenant } from '../auth/caller.js';
import { callerArgs, listUrl, streamedPast } from './handler.js';
import { answerCache, answerKey, onlyDeclaredQuery } from '../http/answer-cache.js';
import {
  advanceTickets,
  lazyWorkflowCatalog,
  workflowStart,
  workflowStartForm,
  workflowTicketIndex,
  workflowTicketView,
  type Viewer,
} from '../domain/workflow.js';

/** The OpenAPI tags of this group, described (src/routes/index.ts puts them in the document's order). */
export const openapiTags = [{ name: 'workflow', description: 'Business process catalog, applications and tickets' }];

const tags = ['workflow'];
const Id = Type.String({ minLength: 1, maxLength: 64 });

/** A session user, or an API key of the tenant (no user). */
const viewer = (req: FastifyRequest): Viewer => ({ tenant: callerTenant(req), user: req.mock.auth.user });

const ticketAuth =
  'Session headers, a Bearer personal token, or the API key headers ' +
  "X-Service-Client-Id / X-Service-Client-Secret (all tickets of the key's tenant).";

/** Business process catalog, start forms, applications and tickets. Paths answer with and without /api/v2. */
export const workflowRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const kept = answerCache(app);
  app.get(
    '/workflow/catalog',
    {
      schema: {
        operationId: 'workflowCatalog',
        tags,
        summary: 'The process catalog: sub-categories and visible processes of a category (the root without id)',
        description:
          "Lists the sub-categories and the processes of a category that the caller's user groups may see; " +
          '`q` searches process names, briefs, descriptions and tags. An unknown category id is a 404.',
        querystring: Type.Object({
          q: Type.Optional(
            Type.String({ maxLength: 200, description: 'search in process name, brief, description and tags' }),
          ),
          id: Type.Optional(Type.String({ maxLength: 64, description: 'category id; the root when absent' })),
        }),
        response: { 200: ref(WorkflowCatalog), ...errors(400, 401, 403, 404, 500) },
      },
      config: { auth: 'session' },
    },
    async (req, reply) => {
      const catalog = lazyWorkflowCatalog(...callerArgs(req), req.query);
      // each category's and process's entry made as it is written
      return streamedPast(req, reply, catalog.workflows.length + catalog.categories.length, catalog, () => ({
        ...catalog,
        categories: catalog.categories.toJSON(),
        workflows: catalog.workflows.toJSON(),
      }));
    },
  );

  app.get(
    '/workflow/start/:processId',
    {
      schema: {
        operationId: 'workflowStartForm',
        tags,
        summary: 'The start form of a process',
        description:
          'The fields to fill in to start a process (POST to the same path). A ' +
          "hidden process, or one the caller's user groups may not see, is a 404.",
        params: Type.Object({ processId: Id }),
        response: { 200: ref(WorkflowStartForm), ...errors(400, 401, 403, 404, 500) },
      },
      config: { auth: 'session' },
    },
    async (req) => workflowStartForm(...callerArgs(req), req.params.processId),
  );

  app.post(
    '/workflow/start/:processId',
    {
      schema: {
        operationId: 'workflowStart',
        tags,
        summary: 'Submit an application: creates a ticket',
        description: 'Invalid field values answer 422 with `details` naming each field as `fieldValues.<fieldId>`.',
        params: Type.Object({ processId: Id }),
        body: ref(WorkflowStartRequest),
        response: { 201: ref(WorkflowStartResult), ...errors(400, 401, 403, 404, 422, 500) },
      },
      config: { auth: 'session' },
    },
    async (req, reply) => reply.status(201).send(workflowStart(...callerArgs(req), req.params.processId, req.body)),
  );

  app.get(
    '/workflow-ticket/',
    {
      schema: {
        operationId: 'workflowTicketIndex',
        tags,
        summary: "Tickets: the caller's own (created or responsible), or all of the tenant for an API key",
        description: ticketAuth,
        querystring: Type.Object({
          wf_workflow_id: Type.Optional(Type.String({ maxLength: 64 })),
          wf_ticket_stage_id: Type.Optional(Type.String({ maxLength: 64 })),
          wf_status_id: Type.Optional(
            Type.Integer({ description: '1 in progress, 2 solved, 3 rejected, 4 cancelled' }),
          ),
          ...PageQuery,
        }),
        response: { 200: ref(WorkflowTicketPage), ...errors(400, 401, 403, 500) },
      },
      config: { auth: 'session-or-apikey' },
    },
    (req, reply) => {
      const who = viewer(req);
      const url = listUrl(req);
      // Tickets the clock moved on are a write: made first, so the kept answer is looked up under the new version.
      advanceTickets(domainContext(req), who.tenant);
      // its page links repeat the URL's query: kept per URL, and not at all for one with undeclared parameters
      // (`?_=1`, a cache buster), which would otherwise make an answer per value
      const key = onlyDeclaredQuery(req) ? answerKey(req, who.tenant.tenant.id, who.user?.id ?? 'api-key', url) : null;
      kept(req, reply, key, (now) => workflowTicketIndex(domainContext(req, now), who, req.query, url));
    },
  );

  app.get(
    '/workflow-ticket/view',
    {
      schema: {
        operationId: 'workflowTicketView',
        tags,
        summary: 'A ticket with its stages',
        description: ticketAuth,
        querystring: Type.Object({ id: Id }),
        response: { 200: ref(WorkflowTicketDetails), ...errors(400, 401, 403, 404, 500) },
      },
      config: { auth: 'session-or-apikey' },
    },
    async (req) => workflowTicketView(domainContext(req), viewer(req), req.query.id),
  );
};
