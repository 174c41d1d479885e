import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, ref } from '../../schemas/common.js';
import { FixturesAnswer, Health } from '../../schemas/control.js';
import { describeFixtures } from '../fixtures.js';
import { readLoopDelay } from '../loop-delay.js';
import { sandboxFindings, SandboxQuery } from '../sandbox.js';
import type { MemoryBudget } from '../../http/memory-budget.js';
import type { SharedBytes } from '../../store/shared-bytes.js';

const tags = ['mock'];

/** GET /__admin/health's query: the sandbox, and whether to read the event-loop delay (src/control/loop-delay.ts). */
const HealthQuery = Type.Object({
  ...SandboxQuery.properties,
  loop: Type.Optional(
    Type.Boolean({
      description: 'add eventLoop: the delay since the previous ?loop=true read (the first read starts the sampling)',
    }),
  ),
});

/** The process's memory, and what the budget (--max-memory-mb) counts of it. */
const memoryInfo = (budget: MemoryBudget) => {
  const { rss, heapUsed, external } = process.memoryUsage();
  const [heldBytes, budgetBytes] = [budget.held(), budget.limitBytes];
  return { rssBytes: rss, heapUsedBytes: heapUsed, externalBytes: external, heldBytes, budgetBytes };
};

/** A budget of bytes many sandboxes share (--journal-mb, --outbox-mb). */
const sharedInfo = (budget: SharedBytes) => ({
  bytes: budget.usedBytes,
  sandboxes: budget.listCount,
  budgetBytes: budget.maxBytes,
});

/** The instance's liveness and the demo data to sign in with. */
export const healthRoutes: FastifyPluginAsyncTypebox<{ version: string; startedAt: number }> = async (app, opts) => {
  app.get(
    '/health',
    {
      schema: {
        operationId: 'mockHealth',
        tags,
        summary: 'Liveness and what is running',
        description:
          'Liveness for scripts and container health checks: version, scenario and seed of the sandbox, uptime, ' +
          'sandbox count, memory and the kept answers; with ?loop=true the event-loop delay since the previous such read.',
        querystring: HealthQuery,
        response: {
          200: Health,
          ...errors(400, 401, 404),
        },
      },
      // never asks the peers: it answers for the instance reached (scripts/move-sandboxes.mjs relies on it)
      config: { sandbox: 'read', answersHere: true },
    },
    async (req) => {
      const { sandbox } = req.mock;
      return {
        status: 'ok' as const,
        instance: app.instance.name,
        version: opts.version,
        scenario: sandbox.scenario,
        seed: sandbox.store.meta.seed,
        uptimeMs: Math.round(performance.now() - opts.startedAt),
        sandbox: sandbox.name,
        sandboxes: app.sandboxes.size,
        sandboxLimit: app.sandboxes.limit,
        memory: memoryInfo(app.memory),
        journals: sharedInfo(app.sandboxes.journalBudget),
        outboxes: sharedInfo(app.sandboxes.outboxBudget),
        findings: sandboxFindings(req, sandbox).counts(),
        keptAnswers: app.answers.stats(),
        ...(req.query.loop ? { eventLoop: readLoopDelay() } : {}),
      };
    },
  );

  app.get(
    '/fixtures',
    {
      schema: {
        operationId: 'mockFixtures',
        tags,
        summary: 'Demo tenants, accounts, devices, API keys and bind links',
        description:
          'The demo data to sign in with: tenants, accounts and their passwords, devices, API keys and bind links ' +
          'with their QR codes.',
        querystring: SandboxQuery,
        response: { 200: ref(FixturesAnswer), ...errors(400, 401, 404, 502, 503) },
      },
      config: { sandbox: 'read' },
    },
    async (req) => describeFixtures(app.fixtures, req, req.mock.sandbox.name),
  );
};
