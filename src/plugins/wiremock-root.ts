import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { FileReader } from '../wiremock/response.js';
import { WireMockStubs } from '../wiremock/state.js';

/** What --wiremock DIR gives every sandbox: its stub mappings, and the files of `__files/` a mapping's bodyFileName names. */
export type WireMockRoot = { stubs: WireMockStubs; readFile: FileReader };

declare module 'fastify' {
  interface FastifyInstance {
    wiremockRoot: WireMockRoot;
  }
}

/** `app.wiremockRoot`: without --wiremock, no mappings and no files. */
export const wiremockRootPlugin = fp(
  async (app: FastifyInstance, options: { dir: string | null }) => {
    // TODO(issue 55, files): read options.dir (mappings/*.json, __files/); a bad file stops the start (exit 2)
    void options.dir;
    app.decorate('wiremockRoot', { stubs: WireMockStubs.empty, readFile: () => undefined });
  },
  { name: 'wiremock-root' },
);
