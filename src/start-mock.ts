// The package's entry: all of src/app.ts, and startMock for test runners (listening, with the admin client bound).
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from './app.js';
import { adminClient, type AdminClient } from './client/control.js';

export * from './app.js';
export { adminClient, AdminError, type AdminClient } from './client/control.js';
export type RunningMock = { url: string; admin: AdminClient; app: FastifyInstance; close: () => Promise<void> };

/** Builds and listens (default 127.0.0.1, port 0: a free one); `url` is where it answers, `admin` talks to it. */
export async function startMock({ host = '127.0.0.1', port = 0, ...options }: AppOptions = {}): Promise<RunningMock> {
  const app = await buildApp(options);
  const url = await app.listen({ port, host });
  return {
    url,
    app,
    admin: adminClient({ baseUrl: url, adminToken: options.adminToken ?? undefined }),
    close: () => app.close(),
  };
}
