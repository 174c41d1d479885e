import fp from 'fastify-plugin';
import { existsSync, statSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { UsageError } from '../config.js';
import type { FileReader } from '../wiremock/response.js';
import { defaultMappingLimits } from '../wiremock/mapping.js';
import { readRootMappings, rootFileReader } from '../wiremock/root.js';
import { WireMockStubs, type StubLimits } from '../wiremock/state.js';

/** What --wiremock DIR gives every sandbox: its stub mappings, and the files of `__files/` a mapping's bodyFileName names. */
export type WireMockRoot = { stubs: WireMockStubs; readFile: FileReader; limits: StubLimits };

declare module 'fastify' {
  interface FastifyInstance {
    wiremockRoot: WireMockRoot;
  }
}

/**
 * `app.wiremockRoot`: the mappings of --wiremock DIR, read and checked here, at registration (a bad file rejects
 * buildApp with a UsageError naming the file and the JSON pointer: the CLI exits 2), and the reader of its
 * `__files`, which reads a file when a stub is served. Without --wiremock, no mappings and no files.
 */
export const wiremockRootPlugin = fp(
  async (app: FastifyInstance, options: { dir: string | null }) => {
    const { config } = app;
    const limits: StubLimits = { maxMappings: config.wiremockMaxMappings, maxBytes: config.wiremockSandboxKb * 1024 };
    const { dir } = options;
    if (dir === null) {
      app.decorate('wiremockRoot', { stubs: WireMockStubs.empty, readFile: () => undefined, limits });
      return;
    }
    if (!existsSync(dir)) throw new UsageError(`--wiremock ${dir}: does not exist`);
    if (!statSync(dir).isDirectory()) throw new UsageError(`--wiremock ${dir}: is a file, not a directory`);
    const stubs = readRootMappings(dir, {
      mapping: { ...defaultMappingLimits, maxProgram: config.regexMaxProgram },
      stubs: limits,
    });
    if ('problem' in stubs) throw new UsageError(`--wiremock ${dir}: ${stubs.problem}`);
    const readFile = rootFileReader(dir, config.bodyLimit, (message) => app.log.warn(message));
    app.decorate('wiremockRoot', { stubs, readFile, limits });
    app.log.debug({ mappings: stubs.mappings.length }, 'WireMock root read');
  },
  { name: 'wiremock-root' },
);
