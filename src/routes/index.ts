import type { FastifyInstance } from 'fastify';
import { requestContextPlugin } from '../http/request-context.js';
import { journalPlugin } from '../http/journal.js';
import { findingsPlugin } from '../findings/plugin.js';
import { bandwidthPlugin, scenarioPlugin } from '../scenarios/plugin.js';
import { proxyPlugin } from '../proxy/plugin.js';
import { authPlugin } from '../auth/plugin.js';
import { mobileRoutes } from './mobile.js';
import { workflowRoutes } from './workflow.js';
import { peopleRoutes } from './people.js';
import { contentRoutes } from './content.js';
import { calendarRoutes } from './calendar.js';
import { ideaRoutes } from './ideas.js';
import { feedbackRoutes } from './feedback.js';
import { moderationRoutes } from './moderation.js';
import { fileRoutes } from './files.js';
import { tokenRoutes } from './tokens.js';
import { userListCacheRoutes } from './user-list-cache.js';
import { fileProcessingRoutes, walletRoutes } from './wallets.js';
import { adminEmploymentRoutes } from './admin-employment.js';
import { pageRoutes } from './pages.js';
import { imageRoutes } from './images.js';

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
 * sandbox → journal → findings → scenario → pass-through → auth, then the route's own (compression, then the
 * scenario's bandwidth limit). The mock's control plane and the docs are sibling contexts that have none of them.
 */
export async function portalApi(api: FastifyInstance) {
  await api.register(requestContextPlugin); // the sandbox, and its commit before the answer leaves
  await api.register(journalPlugin);
  await api.register(findingsPlugin); // its onSend runs before a scenario fault breaks the answer
  await api.register(scenarioPlugin); // a stub or a fault answers before auth and the handler
  await api.register(proxyPlugin); // after stubs, before auth: a forwarded request is not checked against the mock
  await api.register(authPlugin);
  await api.register(bandwidthPlugin); // its onSend goes after compression's in each route's own hooks
  for (const group of groups) await api.register(group);
}
