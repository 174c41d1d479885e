import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, ref } from '../../schemas/common.js';
import { fail } from '../../errors.js';
import { SandboxInfo } from '../../schemas/control.js';
import { ScenarioFile } from '../../schemas/scenario.js';
import { SandboxDeleted, SandboxesDeleted, SandboxesReset } from '../../schemas/control-answers.js';
import type { Sandbox } from '../../store/sandbox.js';
import { activateScenario, checkActivation } from '../../domain/scenario-activation.js';
import { header } from '../../http/context.js';
import { clusterSandboxes } from '../peers.js';
import { bugCapture, captureIndent, capturedAsServed, captureName } from '../capture.js';
import { sendJsonStream } from '../export-stream.js';
import {
  adminSandboxName,
  adminWork,
  coldSandboxInfo,
  sandboxInfo,
  sandboxNotFound,
  SandboxQuery,
} from '../sandbox.js';

const tags = ['mock'];
const NameParams = Type.Object({ name: Type.String() });
const Scope = Type.Object({
  scope: Type.Optional(
    Type.Union([Type.Literal('all'), Type.Literal('local')], {
      description: 'local: this instance only, not its --peers (default all)',
    }),
  ),
});
const PrefixQuery = Type.Object({
  prefix: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'only sandboxes whose name starts with this' }),
  ),
});

/** Sandboxes: list, make, read, delete, reset, and capture one as a scenario file. */
export const sandboxRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const describe = (sandbox: Sandbox) => sandboxInfo(sandbox, app.instance.name);
  /** The sandboxes of this instance whose name starts with `prefix`, sorted; written-out ones are read back. */
  const named = (prefix = '') =>
    app.sandboxes
      .names()
      .filter((name) => name.startsWith(prefix))
      .flatMap((name) => app.sandboxes.find(name) ?? []);

  /**
   * A reset goes back to the start scenario; when its data block does not fit the world of `seed` (a 422 naming the
   * entry), nothing is reset: checked on a throwaway store first, as a reset drops the journal and the outbox too.
   */
  const checkReset = (sandbox: Sandbox, seed?: number) => {
    const scenario = app.scenarios.get(app.config.scenario);
    const world = app.worlds.get(seed ?? app.config.seed);
    if (scenario) checkActivation(sandbox.name, world, sandbox.clock.state, scenario, app.fixtures, app.worlds);
  };
  /** Back to the seeded state, then the start scenario's data side again (a reset is a fresh start). */
  const reset = (sandbox: Sandbox, seed?: number) =>
    sandbox.change(() => {
      app.sandboxes.reset(sandbox, seed);
      const scenario = app.scenarios.get(sandbox.scenario);
      if (scenario)
        activateScenario(sandbox, scenario, app.fixtures, app.worlds, app.scenarios.wiremockOf(scenario.name));
    });

  app.get(
    '/sandboxes',
    {
      schema: {
        operationId: 'mockSandboxes',
        tags,
        summary: 'Every sandbox, of this instance and of its --peers',
        querystring: Scope,
        description:
          'Every sandbox that exists now, with its scenario, clock, journal and outbox sizes; each names its ' +
          'instance. Peers that do not answer within 1.5 s are left out and named in the x-mock-unreachable-peers ' +
          'header. Each name is listed once: a name two instances hold is listed with the first that answered ' +
          '(this one first) and named with its instances in the x-mock-sandbox-copies header. Under --data, ' +
          'sandboxes written out while idle are listed as they were when they left memory (resident: false, ' +
          'their files not read); the next use of one, GET /__admin/sandboxes/{name} included, reads it back.',
        response: { 200: Type.Array(ref(SandboxInfo)), ...errors(400, 401) },
      },
    },
    async (req, reply) => {
      const cold = app.sandboxes.listCold().map((s) => coldSandboxInfo(s, app.instance.name));
      const local = [...app.sandboxes.list().map(describe), ...cold];
      if (req.query.scope === 'local' || app.config.peers.length === 0) return local;
      const { sandboxes, unreachable, copies } = await clusterSandboxes(app, local);
      if (unreachable.length > 0) reply.header('x-mock-unreachable-peers', unreachable.join('; '));
      if (copies.length > 0) reply.header('x-mock-sandbox-copies', copies.join('; '));
      return sandboxes;
    },
  );

  app.get(
    '/sandboxes/:name',
    {
      schema: {
        operationId: 'mockSandboxGet',
        tags,
        summary: 'One sandbox (asked of the --peers when this instance does not hold it)',
        description:
          'One existing sandbox: its scenario, clock, journal and outbox sizes. An unknown name is a 404. ' +
          'With --peers, a sandbox another instance holds is asked of it; while a peer that may hold it cannot be ' +
          'asked, 503.',
        params: NameParams,
        querystring: Scope,
        response: { 200: ref(SandboxInfo), ...errors(400, 401, 404, 502, 503) },
      },
      config: { sandbox: 'read', sandboxFrom: 'path', answersHere: 'when-local' },
    },
    async (req) => describe(req.mock.sandbox),
  );

  app.put(
    '/sandboxes/:name',
    {
      schema: {
        operationId: 'mockSandboxCreate',
        tags,
        summary: 'Create a sandbox (idempotent: 201 created, 200 it exists)',
        description:
          'Makes the sandbox NAME from the seed, with the start scenario or the one given, and answers it: 201 when ' +
          'it was made, 200 when it exists already (nothing changes; a different `scenario` than its active one is ' +
          'a 409: switch it with PUT /__admin/scenario). An unknown scenario, or one whose data block does not ' +
          'apply (the entry named), is a 422 and makes nothing. Admin reads ' +
          'of a sandbox never make it (404 SANDBOX_NOT_FOUND). With --peers, a sandbox another instance holds is ' +
          'answered by it; while a peer that may hold it cannot be asked, 503. Behind a balancer, name the sandbox ' +
          'in x-mock-sandbox or ?sandbox= too, so the call reaches the instance that will serve it. `keep: true` ' +
          'keeps it in memory however long it is idle (--sandbox-idle-ttl), on a new or an existing sandbox.',
        params: NameParams,
        querystring: SandboxQuery,
        body: Type.Optional(
          Type.Object({
            scenario: Type.Optional(
              Type.String({ minLength: 1, description: 'the scenario it starts with (default: --scenario)' }),
            ),
            keep: Type.Optional(
              Type.Boolean({
                description: 'true: it never leaves memory when idle (--sandbox-idle-ttl); false: it may again',
              }),
            ),
          }),
        ),
        response: { 200: ref(SandboxInfo), 201: ref(SandboxInfo), ...errors(400, 401, 409, 422, 429, 502, 503) },
      },
      config: { sandbox: 'write', sandboxFrom: 'path' },
    },
    async (req, reply) => {
      const { name } = req.params; // a valid sandbox name: pickSandbox made or found it
      const key = adminSandboxName(req);
      if (key !== 'default' && key !== name)
        throw fail.badRequest(
          `the path names sandbox "${name}" and the key (x-mock-sandbox or ?sandbox=) "${key.slice(0, 80)}"`,
        );
      const wanted = req.body?.scenario;
      const scenario = wanted === undefined ? undefined : app.scenarios.get(wanted);
      if (wanted !== undefined && !scenario)
        throw fail.unprocessable(
          `unknown scenario "${wanted.slice(0, 80)}"; known: ${app.scenarios.names().join(', ')}`,
          [{ field: 'body.scenario', message: 'unknown scenario' }],
        );
      const { sandbox } = req.mock;
      const keep = req.body?.keep;
      if (!adminWork(req).made) {
        if (wanted !== undefined && sandbox.scenario !== wanted)
          throw fail.conflict(
            `sandbox "${name}" exists with scenario "${sandbox.scenario}", not "${wanted}": switch it with PUT /__admin/scenario`,
          );
        if (keep !== undefined) sandbox.kept = keep;
        return reply.code(200).send(describe(sandbox));
      }
      // routed here by another key than this name (the balancer hashed "default"): made here, no request would find it
      const routed = header(req, 'x-mock-routing-key');
      if (app.config.peers.length > 0 && routed !== undefined && routed !== name)
        throw fail.badRequest(
          `the balancer routed this call by the key "${routed.slice(0, 80)}", not by "${name}": name the sandbox in ` +
            'x-mock-sandbox or ?sandbox= too, so it is made on the instance that serves it',
        );
      if (scenario && scenario.name !== sandbox.scenario)
        activateScenario(sandbox, scenario, app.fixtures, app.worlds, app.scenarios.wiremockOf(scenario.name));
      if (keep !== undefined) sandbox.kept = keep;
      return reply.code(201).send(describe(sandbox));
    },
  );

  app.delete(
    '/sandboxes/:name',
    {
      schema: {
        operationId: 'mockSandboxDelete',
        tags,
        summary: 'Delete a sandbox (default cannot be deleted: reset it)',
        description:
          'Deletes a sandbox and its data. The default sandbox always exists: deleting it is a 400 (reset it ' +
          'instead). With --peers, a sandbox another instance holds is deleted there; while a peer that may hold it ' +
          'cannot be asked, 503.',
        params: NameParams,
        response: { 200: SandboxDeleted, ...errors(400, 401, 404, 502, 503) },
      },
      config: { sandboxFrom: 'path' },
    },
    async (req) => {
      const { name } = req.params;
      if (name === 'default') throw fail.badRequest('the default sandbox always exists; use POST /__admin/reset');
      if (!app.sandboxes.delete(name)) throw sandboxNotFound(req, name);
      return { deleted: name };
    },
  );

  app.delete(
    '/sandboxes',
    {
      schema: {
        operationId: 'mockSandboxesDelete',
        tags,
        summary: 'Delete every sandbox but default (or those whose name starts with ?prefix=)',
        description:
          'Deletes the sandboxes of the instance reached (never default: reset it) and answers their names; with ' +
          "`prefix`, only those whose name starts with it (e.g. a pipeline's `ci-1234-`). With --peers, each " +
          'instance deletes its own: call it on each (GET /__admin/sandboxes names their instances).',
        querystring: PrefixQuery,
        response: { 200: SandboxesDeleted, ...errors(400, 401) },
      },
    },
    async (req) => {
      // written-out sandboxes too (their files go), without reading them back
      const prefix = req.query.prefix ?? '';
      const names = app.sandboxes.names().filter((n) => n !== 'default' && n.startsWith(prefix));
      const deleted = names.filter((n) => app.sandboxes.delete(n));
      return { instance: app.instance.name, deleted };
    },
  );

  app.post(
    '/sandboxes/reset',
    {
      schema: {
        operationId: 'mockSandboxesReset',
        tags,
        summary: 'Reset every sandbox (or those whose name starts with ?prefix=), default included',
        description:
          'Puts every sandbox of the instance reached back to its seeded state, as POST /__admin/reset does for ' +
          "one, and answers their names; with `prefix`, only those whose name starts with it (e.g. a pipeline's " +
          '`ci-1234-`). With --peers, each instance resets its own: call it on each.',
        querystring: PrefixQuery,
        response: { 200: SandboxesReset, ...errors(400, 401, 422) },
      },
    },
    async (req) => {
      const sandboxes = named(req.query.prefix);
      for (const sandbox of sandboxes) checkReset(sandbox); // all or none
      for (const sandbox of sandboxes) reset(sandbox);
      return { instance: app.instance.name, reset: sandboxes.map((s) => s.name) };
    },
  );

  app.post(
    '/reset',
    {
      schema: {
        operationId: 'mockReset',
        tags,
        summary: 'Back to the seeded state: data, scenario, clock, journal, outbox',
        querystring: SandboxQuery,
        body: Type.Optional(
          Type.Object({
            seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1 })),
            sandbox: Type.Optional(Type.String()),
          }),
        ),
        description:
          'Puts the sandbox back to its seeded state: data, scenario effects, clock, journal and outbox. ' +
          'The body is optional; `seed` reseeds with another seed. When the start scenario carries data that does ' +
          'not apply to that world, a 422 naming the entry, and nothing is reset. With --peers, a sandbox another instance holds is ' +
          'reset there; while a peer that may hold it cannot be asked, 503 and nothing is created.',
        response: { 200: ref(SandboxInfo), ...errors(400, 401, 422, 502, 503) },
      },
      config: { sandbox: 'write' },
    },
    async (req) => {
      const { sandbox } = req.mock;
      checkReset(sandbox, req.body?.seed);
      reset(sandbox, req.body?.seed);
      return describe(sandbox);
    },
  );

  app.get(
    '/sandboxes/:name/capture',
    {
      schema: {
        operationId: 'mockSandboxCapture',
        tags,
        summary: 'A bug capture: the sandbox as one scenario file that replays it byte for byte on any server',
        description:
          'The sandbox as a scenario file a person reads (indented, a `summary` first): `pin` (the seed and reference ' +
          'date of its base world, its clock frozen at this instant, the id-less collections it changed), `data` (its ' +
          "data changes, every collection, sign-ins included; a list that gained or lost items, such as a group's " +
          "members, patched by those items), `followed` (the base world's tickets the clock alone moved on), " +
          '`wiremock` (its WireMock stubs and scenario states, when it has any), and the behaviour of its scenario ' +
          'with what that extends, flattened. Applied on another server ' +
          '(PUT /__admin/scenario with it inline, PUT /__admin/scenarios/{name}, or a file and --scenario), started ' +
          'on any day with any --now and --seed, the sandbox answers every GET as this one does now. Answered as a ' +
          'download (content-disposition), streamed (a client that reads nothing for --export-stall-timeout ms is ' +
          'cut). Reads never make a sandbox (404); a sandbox whose tenant record a state ' +
          'import changed is a 409.',
        params: NameParams,
        querystring: Type.Object({
          as: Type.Optional(
            Type.String({
              pattern: '^[a-z0-9][a-z0-9-]{0,63}$',
              description: 'the scenario name of the capture (default capture-NAME)',
            }),
          ),
        }),
        response: { 200: ScenarioFile, ...errors(400, 401, 404, 409, 502, 503) },
      },
      config: { sandbox: 'read', sandboxFrom: 'path' },
    },
    async (req, reply) => {
      const { sandbox } = req.mock;
      const scenarioName = req.query.as ?? captureName(sandbox.name);
      const capture = bugCapture(sandbox, app.scenarios.get(sandbox.scenario), {
        name: scenarioName,
        instance: app.instance.name,
      });
      const served = capturedAsServed(capture, app.getSchemas() as Record<string, unknown>);
      return sendJsonStream(reply, served, `${scenarioName}.json`, { indent: captureIndent });
    },
  );
};
