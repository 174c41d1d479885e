// GET /: where a browser lands from the banner's first address. A small page of links (the API document, the
// console, the demo accounts), or the same links as JSON for a client that asks for JSON.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { errors } from '../../schemas/common.js';
import { forwardedPrefix } from '../../http/context.js';

const RootLinks = Type.Object(
  {
    name: Type.Literal('portal-mock'),
    version: Type.String(),
    links: Type.Object({
      docs: Type.String({ description: 'the API document (HTML); its JSON is docs/json' }),
      openapi: Type.String(),
      console: Type.String({ description: 'the web console' }),
      fixtures: Type.String({ description: 'the demo accounts, devices and bind links (JSON)' }),
      health: Type.String(),
    }),
  },
  { description: "The mock's entry points, below the X-Forwarded-Prefix a reverse proxy serves it under" },
);

/** JSON when the client asks for JSON and not for HTML (curl -H 'accept: application/json', fetch); else the page. */
const wantsJson = (req: FastifyRequest) => {
  const accept = String(req.headers.accept ?? '').toLowerCase();
  return accept.includes('json') && !accept.includes('text/html');
};

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export const rootRoute: FastifyPluginAsyncTypebox<{ version: string }> = async (app, opts) => {
  app.get(
    '/',
    {
      schema: {
        operationId: 'mockRoot',
        tags: ['mock'],
        summary: "The mock's entry points: the API document, the console, the demo accounts",
        description:
          'A small HTML page linking /docs, the console (/__admin) and /__admin/fixtures; the same links as JSON ' +
          'when the Accept header asks for JSON and not HTML. Links start with the X-Forwarded-Prefix of a reverse ' +
          'proxy.',
        response: {
          200: {
            description: 'the page, or its links as JSON',
            content: {
              'text/html': { schema: Type.String() },
              // written here: the links are the same for every world, so nothing is captured for them
              'application/json': {
                schema: RootLinks,
                example: {
                  name: 'portal-mock',
                  version: '0.1.0',
                  links: {
                    docs: '/docs',
                    openapi: '/docs/json',
                    console: '/__admin',
                    fixtures: '/__admin/fixtures',
                    health: '/__admin/health',
                  },
                },
              },
            },
          },
          ...errors(400),
        },
      },
      config: { adminToken: 'none' },
    },
    async (req, reply) => {
      const prefix = forwardedPrefix(req);
      const links = {
        docs: `${prefix}/docs`,
        openapi: `${prefix}/docs/json`,
        console: `${prefix}/__admin`,
        fixtures: `${prefix}/__admin/fixtures`,
        health: `${prefix}/__admin/health`,
      };
      reply.header('vary', 'accept');
      if (wantsJson(req)) {
        return reply
          .type('application/json; charset=utf-8')
          .serializer(JSON.stringify)
          .send({ name: 'portal-mock' as const, version: opts.version, links });
      }
      const item = (href: string, text: string, note: string) =>
        `<li><a href="${escapeHtml(href)}">${text}</a> ${note}</li>`;
      const page = [
        '<!doctype html>',
        '<html lang="en"><head><meta charset="utf-8"><title>portal-mock</title>',
        '<meta name="viewport" content="width=device-width, initial-scale=1"></head>',
        `<body><h1>portal-mock ${escapeHtml(opts.version)}</h1>`,
        "<p>A stateful mock of the corporate portal's Mobile Client API.</p><ul>",
        item(links.docs, 'API document', '(every operation, try it out)'),
        item(links.console, 'Console', '(sandboxes, scenarios, bind QR codes, journal)'),
        item(links.fixtures, 'Demo accounts', '(JSON: accounts, devices, bind links)'),
        '</ul></body></html>',
        '',
      ].join('\n');
      return reply.type('text/html; charset=utf-8').send(page);
    },
  );
};
