import type { FastifyInstance } from 'fastify';
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

export async function registerRoutes(app: FastifyInstance) {
  for (const group of groups) await app.register(group);
}
