import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { durationMs, type Options } from '../config.js';
import type { ClockState } from '../schemas/control.js';
import type { Fixtures } from '../store/fixtures.js';
import { checkAllUpTo, seedData } from '../store/seed/index.js';
import { peopleIndex } from '../domain/people-index.js';
import { SandboxRegistry } from '../store/sandbox.js';
import { SharedBytes } from '../store/shared-bytes.js';
import { startOfDayUtc } from '../store/clock.js';
import { Worlds, type BaseWorld } from '../store/world.js';
import { activateScenario, ScenarioDataError } from '../domain/scenario-activation.js';
import { ScenarioError } from '../scenarios/registry.js';
import { loadSnapshotFile } from '../control/snapshot.js';

declare module 'fastify' {
  interface FastifyInstance {
    sandboxes: SandboxRegistry;
    /** the base worlds sandboxes are made from, by seed (a reset checks its scenario's data against one first) */
    worlds: Worlds;
  }
}

export type SandboxesOptions = {
  options: Options;
  fixtures: Fixtures;
  /** the clock of the idle sweep (ms); tests give their own */
  nowMs?: () => number;
};

/**
 * One frozen base world per seed and reference date, shared by every sandbox made from it (src/store/store.ts,
 * docs/store.md); at most --max-worlds of them, those sandboxes use kept.
 */
function worldsOf(options: Options, fixtures: Fixtures, refDate: Date, inUse: () => ReadonlySet<BaseWorld>): Worlds {
  return new Worlds({
    refDate,
    users: options.users,
    max: options.maxWorlds,
    inUse,
    generate: (seed, at) => {
      const data = seedData(fixtures, { seed, refDate: at, size: { users: options.users } });
      // a large world's people indexes now, not in the first requests (see src/domain/people-index.ts)
      if (options.users > checkAllUpTo) for (const tenant of Object.values(data.tenants)) peopleIndex(tenant).warm();
      return data;
    },
  });
}

/** The default sandbox made at start: a --scenario whose data does not apply stops the start, naming the entry. */
function startSandbox<T>(make: () => T, scenario: string): T {
  try {
    return make();
  } catch (err) {
    if (err instanceof ScenarioDataError) throw new ScenarioError(`--scenario ${scenario}: ${err.message}`);
    throw err;
  }
}

/**
 * The sandbox registry, `app.sandboxes`. In onReady (after the scenario registry's, which a sandbox's scenario
 * needs): the sandboxes --data brought back, the default sandbox seeded (a broken factory fails the start, and the
 * first request is fast), --state loaded into it, the idle sweep started. In onClose: the sweep stopped and every
 * log written and closed.
 */
export const sandboxesPlugin = fp(
  async (app: FastifyInstance, { options, fixtures, nowMs }: SandboxesOptions) => {
    const refDate = options.now ? new Date(options.now) : startOfDayUtc(new Date());
    const clock: ClockState = options.now ? { mode: 'frozen', at: refDate.toISOString() } : { mode: 'real' };
    const worlds = worldsOf(options, fixtures, refDate, () => new Set(sandboxes.list().map((s) => s.store.base)));
    const sandboxes = new SandboxRegistry({
      worlds,
      seed: options.seed,
      dataDir: options.data,
      clock,
      scenario: options.scenario,
      wiremock: app.wiremockRoot.stubs,
      journalLimit: options.journalLimit,
      journalSandboxBytes: options.journalSandboxMb * 1024 * 1024,
      outboxSandboxBytes: options.outboxSandboxKb * 1024,
      journalBudget: new SharedBytes(options.journalMb * 1024 * 1024),
      outboxBudget: new SharedBytes(options.outboxMb * 1024 * 1024),
      maxSandboxes: options.maxSandboxes,
      ...(nowMs ? { nowMs } : {}),
      memoryFull: () => app.memory.pastLimit(),
      onCreate: (sandbox) => {
        const scenario = app.scenarios.get(sandbox.scenario);
        if (!scenario) return;
        try {
          activateScenario(sandbox, scenario, fixtures, worlds, app.scenarios.wiremockOf(scenario.name));
        } catch (err) {
          // a start scenario whose data does not fit (its definition was replaced) makes no sandbox at all
          sandboxes.delete(sandbox.name);
          throw err;
        }
      },
      warn: (message) => app.log.warn(message),
    });
    app.decorate('sandboxes', sandboxes);
    app.decorate('worlds', worlds);

    let sweep: NodeJS.Timeout | null = null;
    app.addHook('onReady', async () => {
      sandboxes.loadPersisted();
      sandboxes.checkScenarios(app.scenarios); // their data side is in their log
      const defaultSandbox = startSandbox(() => sandboxes.get('default'), options.scenario);
      if (options.state) loadSnapshotFile(sandboxes, defaultSandbox, options.state, options.seed);
      const idleMs = options.sandboxIdleTtl === 'off' ? null : durationMs(options.sandboxIdleTtl);
      if (idleMs)
        sweep = setInterval(
          () => {
            // outside any request: whatever goes wrong is logged, never thrown (evictIdle itself does not throw)
            try {
              const gone = sandboxes.evictIdle(idleMs);
              if (gone.length > 0) app.log.info({ sandboxes: gone.length }, 'idle sandboxes left memory');
            } catch (err) {
              app.log.error({ err }, 'the idle sweep failed; it runs again');
            }
          },
          Math.min(idleMs, 60_000),
        ).unref();
    });
    app.addHook('onClose', async () => {
      if (sweep) clearInterval(sweep);
      sandboxes.close();
    });
  },
  { name: 'sandboxes', dependencies: ['scenario-registry', 'wiremock-root'] },
);
