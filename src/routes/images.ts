import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../schemas/common.js';
import { badgeSvg, coverSvg, missingSvg } from '../pages/svg.js';
import { imageSubject } from '../domain/images.js';
import { domainContext } from '../http/context.js';

/** The OpenAPI tags of this group, described (src/routes/index.ts puts them in the document's order). */
export const openapiTags = [
  { name: 'images', description: 'Generated images of the addresses answers hand out (SVG, public by id)' },
];

const tags = ['images'];
const svgBody = (what: string) => Type.String({ description: `image/svg+xml: ${what}` });

const kinds = [
  {
    path: 'avatar',
    operationId: 'imageAvatar',
    summary: "A user's avatar: initials on a colour derived from the id",
    shape: 'circle',
  },
  { path: 'tenant', operationId: 'imageTenant', summary: "A tenant's logo", shape: 'square' },
  { path: 'user-group', operationId: 'imageUserGroup', summary: "A user group's icon", shape: 'square' },
  { path: 'workflow', operationId: 'imageWorkflow', summary: "A workflow process's image", shape: 'square' },
  {
    path: 'workflow-category',
    operationId: 'imageWorkflowCategory',
    summary: "A workflow category's image",
    shape: 'square',
  },
  { path: 'article', operationId: 'imageArticle', summary: "An article's cover", shape: 'cover' },
  { path: 'postcard', operationId: 'imagePostcard', summary: "A postcard's picture", shape: 'cover' },
  { path: 'course', operationId: 'imageCourse', summary: "A learning course's image", shape: 'square' },
  { path: 'achievement', operationId: 'imageAchievement', summary: "An achievement's badge", shape: 'circle' },
  { path: 'contest', operationId: 'imageContest', summary: "A contest's image", shape: 'square' },
  { path: 'book', operationId: 'imageBook', summary: "A library book's cover", shape: 'square' },
] as const;

/**
 * Generated images of the addresses the API hands out (`/images/<kind>/<id>.svg`). Public: an <img> in a web view
 * cannot send the session headers, so the unguessable record id is the capability; looked up only in the request's
 * sandbox (see docs/assumptions.md, "web pages"). Deterministic from the sandbox seed and the id.
 */
export const imageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const kind of kinds) {
    app.get(
      `/images/${kind.path}/:file`,
      {
        schema: {
          operationId: kind.operationId,
          tags,
          summary: kind.summary,
          description: 'Public (no session): addressed by the record id. 404 answers a grey placeholder image.',
          params: Type.Object({
            file: Type.String({ pattern: '^[0-9A-Za-z-]{1,64}\\.svg$', description: '<id>.svg' }),
          }),
          produces: ['image/svg+xml'],
          response: {
            200: svgBody('the image'),
            ...errors(400),
            404: svgBody('a placeholder: no such record in this sandbox'),
          },
        },
        config: { auth: 'none' },
      },
      async (req, reply) => {
        const id = req.params.file.slice(0, -'.svg'.length);
        const subject = imageSubject(domainContext(req), kind.path, id);
        reply.header('cache-control', 'public, max-age=300').type('image/svg+xml');
        if (!subject) return reply.status(404).send(missingSvg());
        return reply.send(
          kind.shape === 'cover' ? coverSvg({ id, ...subject }) : badgeSvg({ id, ...subject, shape: kind.shape }),
        );
      },
    );
  }
};
