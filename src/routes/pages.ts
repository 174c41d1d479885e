import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ApiError } from '../errors.js';
import { baseUrl, header } from '../http/context.js';
import { callerArgs } from './handler.js';
import { html } from '../pages/html.js';
import { page, type PageFrame } from '../pages/layout.js';
import { loadSanitizer } from '../pages/sanitize.js';
import {
  achievementPage,
  articlePage,
  bookPage,
  calendarEventPage,
  contestPage,
  coursePage,
  ideaPage,
  orgEmploymentFilePage,
  surveyPage,
  userPage,
  workflowPage,
  workflowTicketPage,
} from '../pages/render.js';

/** The OpenAPI tags of this group, described (src/routes/index.ts puts them in the document's order). */
export const openapiTags = [
  { name: 'pages', description: 'Web pages of the addresses answers hand out (HTML, session headers)' },
];

const tags = ['pages'];
const htmlBody = (what: string) => Type.String({ description: `text/html: ${what}` });
const responses = {
  200: htmlBody('the page'),
  401: htmlBody('a page saying the session is missing, invalid or expired'),
  403: htmlBody('a page saying the user may not see this (e.g. a switched-off feature)'),
  404: htmlBody("a page saying the record does not exist in the caller's tenant or is not visible to them"),
};
const headers = Type.Object({
  'x-service-embed': Type.Optional(
    Type.String({ description: '"true" in a web view: the page comes without the portal header and footer' }),
  ),
});

function frameOf(req: FastifyRequest): PageFrame {
  const tenant = req.mock.auth?.tenant ?? null;
  return {
    tenant: tenant
      ? { name: tenant.tenant.name, logoUrl: `${baseUrl(req)}/images/tenant/${tenant.tenant.id}.svg` }
      : null,
    lang: tenant?.tenant.locale ?? 'en',
    embed: header(req, 'x-service-embed')?.toLowerCase() === 'true',
  };
}

const errorTexts: Record<number, { ru: string; en: string }> = {
  401: { ru: 'Войдите в приложение, чтобы открыть эту страницу', en: 'Sign in to the app to open this page' },
  403: { ru: 'Эта страница вам недоступна', en: 'You may not open this page' },
  404: { ru: 'Страница не найдена', en: 'Page not found' },
  503: { ru: 'Страница сейчас недоступна, попробуйте позже', en: 'This page cannot be shown now, try again later' },
};

/** Errors of page routes answer as HTML pages (not the JSON error body of the API). */
function renderErrorPage(error: FastifyError | ApiError, req: FastifyRequest, reply: FastifyReply) {
  const raw = error.statusCode ?? 500;
  // A malformed id is as unknown as a missing one: 404, not a validation body. A sandbox that cannot be made (429) or
  // whose instance cannot be asked (503, docs/cluster.md) keeps its status: the page is not broken, it is elsewhere.
  const status = raw === 400 ? 404 : [401, 403, 404, 429, 502, 503].includes(raw) ? raw : 500;
  if (status === 500) req.log.error({ err: error }, 'page failed');
  const frame = frameOf(req);
  const text = errorTexts[status]?.[frame.lang === 'ru' ? 'ru' : 'en'] ?? 'Something went wrong';
  return reply
    .status(status)
    .type('text/html; charset=utf-8')
    .send(
      page(
        frame,
        text,
        html`<div class="error"><p class="code">${status}</p><h1>${text}</h1>\
<p class="meta">${error.message}</p></div>`,
      ),
    );
}

const kinds = [
  {
    path: 'workflow-ticket',
    operationId: 'pagesWorkflowTicket',
    summary: 'A workflow ticket: details, stages with their state, fields, responsible people',
    render: workflowTicketPage,
  },
  {
    path: 'workflow',
    operationId: 'pagesWorkflow',
    summary: 'A workflow process (or "my": the caller\'s tickets)',
    render: workflowPage,
  },
  {
    path: 'article',
    operationId: 'pagesArticle',
    summary: 'An article or news item (or "latest": the newest news): title, cover, body',
    render: articlePage,
  },
  { path: 'user', operationId: 'pagesUser', summary: "A user's public profile", render: userPage },
  { path: 'idea', operationId: 'pagesIdea', summary: 'An idea with its comments', render: ideaPage },
  {
    path: 'calendar-event',
    operationId: 'pagesCalendarEvent',
    summary: 'A calendar event (an occurrence with rec_date)',
    render: calendarEventPage,
    query: true,
  },
  {
    path: 'org-employment-file',
    operationId: 'pagesOrgEmploymentFile',
    summary: 'A ready employment document of the caller',
    render: orgEmploymentFilePage,
  },
  {
    path: 'course',
    operationId: 'pagesCourse',
    summary: 'A learning course or test assigned to the caller',
    render: coursePage,
  },
  { path: 'survey', operationId: 'pagesSurvey', summary: 'A survey assigned to the caller', render: surveyPage },
  { path: 'achievement', operationId: 'pagesAchievement', summary: 'An achievement', render: achievementPage },
  { path: 'contest', operationId: 'pagesContest', summary: 'A voting contest', render: contestPage },
  { path: 'book', operationId: 'pagesBook', summary: 'A library book', render: bookPage },
];

/**
 * Web pages of the addresses the API hands out (`/pages/<kind>/<id>`): server-rendered HTML, authorized by the
 * session headers like the API; errors are HTML pages too.
 */
export const pageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.setErrorHandler(renderErrorPage);
  for (const kind of kinds) {
    app.get(
      `/pages/${kind.path}/:id`,
      {
        schema: {
          operationId: kind.operationId,
          tags,
          summary: kind.summary,
          description:
            'HTML for a web view. Send the session headers; with ' +
            '`x-service-embed: true` the page has no portal header and footer.',
          params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
          ...(kind.query
            ? {
                querystring: Type.Object({
                  rec_date: Type.Optional(
                    Type.String({ maxLength: 10, description: 'YYYY-MM-DD: an occurrence of a recurring event' }),
                  ),
                }),
              }
            : {}),
          headers,
          produces: ['text/html'],
          response: responses,
        },
        config: { auth: 'session' },
      },
      async (req, reply) => {
        await loadSanitizer();
        const [ctx, tenant, user] = callerArgs(req);
        const query = (req.query ?? {}) as Record<string, string | undefined>;
        const out = kind.render({ ctx, tenant, user, id: req.params.id, query });
        return reply.type('text/html; charset=utf-8').send(page(frameOf(req), out.title, out.body));
      },
    );
  }
};
