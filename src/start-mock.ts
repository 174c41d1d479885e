// The package's main entry, for test runners: startMock (listening, with the admin client bound) and the client.
// Its declarations name only plain types (MockOptions is written out from config.ts's schema), so a test that
// imports it type-checks as fast as one importing `portal-mock/admin`; the server is imported when startMock runs.
// buildApp and the Fastify instance are `portal-mock/server`'s (src/start-server.ts).
import type { AdminClient } from './client/control.js';
import type { MockOptions } from './mock-options.gen.js';

export { adminClient, AdminError, type AdminClient } from './client/control.js';
export type { MockOptions } from './mock-options.gen.js';
export { version } from './version.js';
export type RunningMock = { url: string; admin: AdminClient; close: () => Promise<void> };

/** Builds and listens (default 127.0.0.1, port 0: a free one); `url` is where it answers, `admin` talks to it. */
export async function startMock(options: MockOptions = {}): Promise<RunningMock> {
  const server = await import('./start-server.js');
  const { url, admin, close } = await server.startMock(options);
  return { url, admin, close };
}
