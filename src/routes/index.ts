import type { FastifyInstance } from 'fastify';
import { mobileRoutes } from './mobile.js';
import { tokenRoutes } from './tokens.js';
import { userListCacheRoutes } from './user-list-cache.js';
import { fileProcessingRoutes, walletRoutes } from './wallets.js';
import { adminEmploymentRoutes } from './admin-employment.js';

/** Every API group, one encapsulated plugin each, in the order of the API description. */
export async function registerRoutes(app: FastifyInstance) {
  await app.register(mobileRoutes);
  await app.register(tokenRoutes);
  await app.register(userListCacheRoutes);
  await app.register(walletRoutes);
  await app.register(fileProcessingRoutes);
  await app.register(adminEmploymentRoutes);
}
