// The package's `portal-mock/server` entry: buildApp and the rest of src/app.ts, and startMock with the Fastify
// instance, for those who need the server itself (app.inject, routes, hooks). Its declarations load Fastify's and
// the server's types; the main entry (src/start-mock.ts) does not, and loads this module only when startMock runs.
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from './app.js';
import { adminClient, type AdminClient } from './client/control.js';

export * from './app.js';
export type { FastifyInstance } from 'fastify';
export { adminClient, AdminError, type AdminClient } from './client/control.js';
export type RunningServer = { url: string; admin: AdminClient; app: FastifyInstance; close: () => Promise<void> };

/** Builds and listens (default 127.0.0.1, port 0: a free one); `url` is where it answers, `admin` talks to it. */
export async function startMock({ host = '127.0.0.1', port = 0, ...options }: AppOptions = {}): Promise<RunningServer> {
  const app = await buildApp(options);
  const url = await app.listen({ port, host });
  return {
    url,
    app,
    admin: adminClient({ baseUrl: url, adminToken: options.adminToken ?? undefined }),
    close: () => app.close(),
  };
}
