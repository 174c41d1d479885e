import type { FastifyInstance } from 'fastify';
import { requestContextPlugin } from '../http/request-context.js';
import { journalPlugin } from '../http/journal.js';
import { requestTurnsPlugin } from '../http/request-turns.js';
import { findingsPlugin } from '../findings/plugin.js';
import { bandwidthPlugin, scenarioPlugin } from '../scenarios/plugin.js';
import { proxyPlugin } from '../proxy/plugin.js';
import { wiremockPlugin } from '../scenarios/wiremock.js';
import { authPlugin } from '../auth/plugin.js';
import { mobileRoutes, openapiTags as mobileTags } from './mobile.js';
import { workflowRoutes, openapiTags as workflowTags } from './workflow.js';
import { peopleRoutes, openapiTags as peopleTags } from './people.js';
import { contentRoutes, openapiTags as contentTags } from './content.js';
import { calendarRoutes, openapiTags as calendarTags } from './calendar.js';
import { ideaRoutes, openapiTags as ideasTags } from './ideas.js';
import { feedbackRoutes, openapiTags as feedbackTags } from './feedback.js';
import { moderationRoutes, openapiTags as moderationTags } from './moderation.js';
import { fileRoutes, openapiTags as filesTags } from './files.js';
import { tokenRoutes, openapiTags as tokensTags } from './tokens.js';
import { userListCacheRoutes, openapiTags as userListCacheTags } from './user-list-cache.js';
import { fileProcessingRoutes, walletRoutes, openapiTags as walletsTags } from './wallets.js';
import { adminEmploymentRoutes, openapiTags as adminEmploymentTags } from './admin-employment.js';
import { pageRoutes, openapiTags as pagesTags } from './pages.js';
import { imageRoutes, openapiTags as imagesTags } from './images.js';

/** The OpenAPI tags of every group, in the order the API document lists them. */
export const portalTags = [
  ...mobileTags,
  ...workflowTags,
  ...peopleTags,
  ...contentTags,
  ...calendarTags,
  ...ideasTags,
  ...feedbackTags,
  ...moderationTags,
  ...filesTags,
  ...tokensTags,
  ...userListCacheTags,
  ...walletsTags,
  ...adminEmploymentTags,
  ...pagesTags,
  ...imagesTags,
];

/** Every API group, one encapsulated plugin each, in the order of the API description. */
const groups = [
  mobileRoutes,
  workflowRoutes,
  peopleRoutes,
  contentRoutes,
  calendarRoutes,
  feedbackRoutes,
  moderationRoutes,
  ideaRoutes,
  fileRoutes,
  tokenRoutes,
  userListCacheRoutes,
  walletRoutes,
  fileProcessingRoutes,
  adminEmploymentRoutes,
  pageRoutes,
  imageRoutes,
];

/**
 * The portal's API: one encapsulated context. Its hooks run for its routes only, in the order registered here:
 * sandbox → journal → a turn with room → findings → scenario → WireMock stubs → pass-through → auth, then the
 * route's own (compression, then the scenario's bandwidth limit). The mock's control plane and the docs are sibling
 * contexts that have none of them.
 */
export async function portalApi(api: FastifyInstance) {
  await api.register(requestContextPlugin); // the sandbox, and its commit before the answer leaves
  await api.register(journalPlugin);
  await api.register(requestTurnsPlugin); // past a turn's budget of work, a request waits for a later turn
  await api.register(findingsPlugin); // its onSend runs before a scenario fault breaks the answer
  await api.register(scenarioPlugin); // a stub or a fault answers before auth and the handler
  await api.register(wiremockPlugin); // then the sandbox's WireMock stubs, also before auth (docs/wiremock.md)
  await api.register(proxyPlugin); // after stubs, before auth: a forwarded request is not checked against the mock
  await api.register(authPlugin);
  await api.register(bandwidthPlugin); // its onSend goes after compression's in each route's own hooks
  for (const group of groups) await api.register(group);
}
