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
export async function registerRoutes(app: FastifyInstance) {
  await app.register(mobileRoutes);
  await app.register(workflowRoutes);
  await app.register(peopleRoutes);
  await app.register(contentRoutes);
  await app.register(calendarRoutes);
  await app.register(feedbackRoutes);
  await app.register(moderationRoutes);
  await app.register(ideaRoutes);
  await app.register(fileRoutes);
  await app.register(tokenRoutes);
  await app.register(userListCacheRoutes);
  await app.register(walletRoutes);
  await app.register(fileProcessingRoutes);
  await app.register(adminEmploymentRoutes);
  await app.register(pageRoutes);
  await app.register(imageRoutes);
}
