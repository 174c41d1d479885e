import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { UsageError } from '../config.js';
import { join } from 'node:path';
import { bundledScenariosDir, ScenarioRegistry } from '../scenarios/registry.js';
import { knownNames } from '../shared/closest.js';

/**
 * Under --data: the directory of the scenarios defined through the admin API, one NAME.json each; a name no sandbox
 * can have (a dot), so the sandbox loader passes it by. Earlier versions kept them all in one file, moved at start.
 */
export const definedScenariosDirName = 'portal-mock.scenarios';
export const legacyScenariosFileName = 'portal-mock.scenarios.json';

declare module 'fastify' {
  interface FastifyInstance {
    scenarios: ScenarioRegistry;
  }
}

export type ScenarioRegistryOptions = {
  /** the --scenarios directories, read after the bundled one (a later file of the same name wins) */
  dirs: string[];
  /** --scenario: what new sandboxes start with; it must name a known scenario */
  defaultScenario: string;
  /** reload the files when they change (the CLI turns this on) */
  watch: boolean;
  /** --data: where the scenarios defined through the admin API are saved, and read back at start */
  dataDir: string | null;
  /** --regex-max-program, --max-scenarios, --max-scenario-bytes */
  regexMaxProgram: number;
  maxScenarios: number;
  maxScenarioBytes: number;
};

/**
 * The scenario registry, `app.scenarios`. Scenario files name operations, so they are read once every route is
 * known: in onReady, which buildApp awaits, so a bad file or an unknown --scenario fails the start. Watching stops
 * in onClose.
 */
export const scenarioRegistryPlugin = fp(
  async (app: FastifyInstance, options: ScenarioRegistryOptions) => {
    const operationIds = new Set<string>();
    const jsonBodies = new Set<string>(); // what a stub's body matcher can look at
    app.addHook('onRoute', (route) => {
      const id = route.schema?.operationId;
      if (typeof id !== 'string') return;
      operationIds.add(id);
      if (route.schema?.body !== undefined) jsonBodies.add(id);
    });

    let registry: ScenarioRegistry | null = null;
    app.decorate('scenarios', {
      getter: () => {
        if (!registry) throw new Error('the scenario registry is read before the app is ready');
        return registry;
      },
    });

    app.addHook('onReady', async () => {
      const { dataDir } = options;
      const loaded = new ScenarioRegistry([bundledScenariosDir, ...options.dirs], operationIds, {
        definedDir: dataDir ? join(dataDir, definedScenariosDirName) : null,
        legacyFile: dataDir ? join(dataDir, legacyScenariosFileName) : null,
        jsonBodies,
        regexMaxProgram: options.regexMaxProgram,
        maxDefined: options.maxScenarios,
        maxDefinedBytes: options.maxScenarioBytes,
        wiremock: { start: app.wiremockRoot.stubs, limits: app.wiremockRoot.limits },
      });
      if (!loaded.get(options.defaultScenario)) {
        // a few names are listed whole; hundreds of definitions (11.5 KB for 700) only by the closest few
        const known = knownNames(options.defaultScenario, loaded.names(), 'GET /__admin/scenarios lists them');
        throw new UsageError(`--scenario: unknown scenario "${options.defaultScenario.slice(0, 80)}"; ${known}`);
      }
      registry = loaded;
      if (options.watch)
        loaded.watch(
          (message) => app.log.error(message),
          (names) => app.log.info({ scenarios: names }, 'scenarios reloaded'),
        );
    });
    app.addHook('onClose', async () => registry?.close());
  },
  { name: 'scenario-registry', dependencies: ['wiremock-root'] },
);
