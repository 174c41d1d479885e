import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../schemas/common.js';
import { ActiveScenario, ScenarioSummary } from '../../schemas/control.js';
import { ScenarioDefinition, scenarioJsonSchema, scenarioSchemaId } from '../../schemas/scenario.js';
import { fail } from '../../errors.js';
import { ScenarioError } from '../../scenarios/registry.js';
import { activateScenario } from '../../domain/scenario-activation.js';
import { adminWork, SandboxQuery } from '../sandbox.js';
import type { FastifyRequest } from 'fastify';

const tags = ['mock'];
const NameParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) });

/**
 * Scenarios: those the mock knows, the one active in a sandbox (switching it applies its data side), and those
 * defined while the mock runs: the same JSON as a scenario file, checked the same way, per instance, saved with
 * --data (docs/scenarios.md, "Defining scenarios through the admin API").
 */
export const scenarioRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const unknown = (name: string) =>
    fail.notFound(`unknown scenario "${name.slice(0, 80)}"; known: ${app.scenarios.names().join(', ')}`);

  /** Defines an inline scenario; a refused call puts back what its name meant before (nothing, or another one). */
  const defineInline = (req: FastifyRequest, value: Record<string, unknown>) => {
    const name = typeof value.name === 'string' ? value.name : '';
    const before = app.scenarios.isDefined(name) ? app.scenarios.definition(name) : undefined;
    let defined: ReturnType<typeof app.scenarios.define>;
    try {
      defined = app.scenarios.define(name, value);
    } catch (err) {
      if (err instanceof ScenarioError)
        throw fail.badRequest(err.message.replace(/^scenario "[^"]*"/, 'scenario (inline)'));
      throw err;
    }
    adminWork(req).onUndo(() => (before ? app.scenarios.define(name, before) : app.scenarios.undefine(name)));
    return defined.scenario;
  };

  app.get(
    '/scenarios',
    {
      schema: {
        operationId: 'mockScenarios',
        tags,
        summary: 'Available scenarios',
        description:
          'The scenario names the mock knows (bundled and from --scenarios directories), each with its description ' +
          'and the scenarios it extends.',
        response: { 200: Type.Array(ScenarioSummary), ...errors(401) },
      },
    },
    async () =>
      app.scenarios.list().map((s) => ({ name: s.name, description: s.description, extends: s.chain.slice(0, -1) })),
  );

  app.get(
    '/scenario',
    {
      schema: {
        operationId: 'mockScenarioGet',
        tags,
        summary: 'The active scenario of the sandbox',
        querystring: SandboxQuery,
        description:
          'The active scenario of the sandbox (?sandbox=NAME or x-mock-sandbox; else default). A sandbox that does ' +
          'not exist is a 404 (SANDBOX_NOT_FOUND); reading creates nothing.',
        response: { 200: ActiveScenario, ...errors(400, 401, 404, 502, 503) },
      },
      config: { sandbox: 'read' },
    },
    async (req) => {
      const { sandbox } = req.mock;
      const scenario = app.scenarios.get(sandbox.scenario);
      return { sandbox: sandbox.name, name: sandbox.scenario, description: scenario?.description ?? '' };
    },
  );

  app.put(
    '/scenario',
    {
      schema: {
        operationId: 'mockScenarioSet',
        tags,
        summary: 'Activate a scenario in the sandbox (its data effects apply now)',
        description:
          'Activates a scenario in the sandbox: its data effects apply now and its stubs and faults from the next ' +
          'request. Give `name` (an unknown name is a 404), or `scenario`: a whole scenario inline, as a file ' +
          'holds it, which is first defined on this instance under its own name (as PUT /__admin/scenarios/{name} ' +
          'does; a definition that is not valid is a 400 naming the JSON path, and nothing changes). A data block ' +
          'that does not apply to the sandbox is a 422 naming the entry: the sandbox keeps its scenario and data ' +
          '(and an inline scenario is not defined). An inline scenario has the bounds of a defined one (413, 409).',
        querystring: SandboxQuery,
        body: Type.Object({
          name: Type.Optional(Type.String({ minLength: 1 })),
          scenario: Type.Optional(
            Type.Object({}, { additionalProperties: true, description: 'a scenario file (ScenarioFile), inline' }),
          ),
          sandbox: Type.Optional(Type.String()),
        }),
        response: { 200: ActiveScenario, ...errors(400, 401, 404, 409, 413, 422) },
      },
      config: { sandbox: 'write' },
    },
    async (req) => {
      const { name, scenario: value } = req.body;
      if ((name === undefined) === (value === undefined))
        throw fail.badRequest('give the name of a scenario, or a scenario inline (scenario), not both');
      const scenario = value ? defineInline(req, value) : app.scenarios.get(name!);
      if (!scenario) throw unknown(name!);
      const { sandbox } = req.mock;
      // a 422 naming the entry that does not apply
      activateScenario(sandbox, scenario, app.fixtures, app.worlds, app.scenarios.wiremockOf(scenario.name));
      return { sandbox: sandbox.name, name: scenario.name, description: scenario.description };
    },
  );

  const jsonSchema = scenarioJsonSchema();
  app.get(
    '/scenario.schema.json',
    {
      schema: {
        operationId: 'mockScenarioSchema',
        tags,
        summary: 'The JSON Schema of a scenario file',
        description:
          'What a scenario file (and a body of PUT /__admin/scenarios/{name}) may hold, as a draft-07 JSON Schema ' +
          'editors complete and check against. The package ships it as scenarios/scenario.schema.json: a scenario ' +
          'file names it with "$schema": "./scenario.schema.json".',
        response: {
          // its keys ($schema, $id, properties…) are not declared: the document's tools would read them as schema
          200: Type.Object(
            {},
            { additionalProperties: true, description: `a JSON Schema (draft-07), $id ${scenarioSchemaId}` },
          ),
          ...errors(401),
        },
      },
    },
    async () => jsonSchema,
  );

  app.get(
    '/scenarios/:name',
    {
      schema: {
        operationId: 'mockScenarioView',
        tags,
        summary: 'One scenario: its definition as given, and where it comes from',
        description:
          'The definition of a scenario as its file or the admin API gave it (extends not resolved), whether it ' +
          'comes from a file or from PUT /__admin/scenarios/{name}, and the scenarios it extends, resolved.',
        params: NameParams,
        response: { 200: ScenarioDefinition, ...errors(400, 401, 404) },
      },
    },
    async (req) => {
      const { name } = req.params;
      const scenario = app.scenarios.get(name);
      const definition = app.scenarios.definition(name);
      if (!scenario || !definition) throw unknown(name);
      return {
        name,
        description: scenario.description,
        extends: scenario.chain.slice(0, -1),
        source: app.scenarios.isDefined(name) ? ('admin' as const) : ('file' as const),
        file: scenario.file,
        definition,
      };
    },
  );

  app.put(
    '/scenarios/:name',
    {
      schema: {
        operationId: 'mockScenarioDefine',
        tags,
        summary: 'Define or replace a scenario of this instance (the JSON of a scenario file)',
        description:
          'The body is a scenario as a scenario file holds it (its name the one in the URL; extends allowed), ' +
          'checked as a file is: a definition that is not valid is a 400 naming the JSON path, and nothing ' +
          'changes. Over a scenario file of the same name while it is defined. Sandboxes set to it use the new ' +
          'version from their next request (its data side applies when a sandbox is set to it). With --data it is ' +
          'saved before the answer (in a file of its own). 201 when the name is new, else 200. A definition larger ' +
          'than --max-scenario-bytes as JSON is a 413; a new name past --max-scenarios definitions is a 409.',
        params: NameParams,
        // checked by the scenario schema in the handler, as a file is: a key Fastify's validator would strip
        // silently (a misspelt field) is a 400 there
        body: Type.Object({}, { additionalProperties: true, description: 'a scenario file (ScenarioFile)' }),
        response: { 200: ScenarioSummary, 201: ScenarioSummary, ...errors(400, 401, 409, 413) },
      },
    },
    async (req, reply) => {
      let defined: ReturnType<typeof app.scenarios.define>;
      try {
        defined = app.scenarios.define(req.params.name, req.body);
      } catch (err) {
        if (err instanceof ScenarioError) throw fail.badRequest(err.message);
        throw err;
      }
      const { scenario, created } = defined;
      reply.code(created ? 201 : 200);
      return { name: scenario.name, description: scenario.description, extends: scenario.chain.slice(0, -1) };
    },
  );

  app.delete(
    '/scenarios/:name',
    {
      schema: {
        operationId: 'mockScenarioDelete',
        tags,
        summary: 'Delete a scenario defined through the admin API',
        description:
          'Deletes a scenario PUT /__admin/scenarios/{name} defined; a scenario file of the same name applies ' +
          "again. A file's scenario cannot be deleted here (409: edit or remove the file), nor one a sandbox of " +
          'this instance is set to or another scenario extends (409 naming them).',
        params: NameParams,
        response: { 200: Type.Object({ deleted: Type.String() }), ...errors(400, 401, 404, 409) },
      },
    },
    async (req) => {
      const { name } = req.params;
      if (!app.scenarios.get(name)) throw unknown(name);
      if (!app.scenarios.isDefined(name))
        throw fail.conflict(`scenario "${name}" comes from ${app.scenarios.get(name)!.file}: edit or remove the file`);
      // with no file under it, deleting would leave these naming a scenario that does not exist
      const users = app.sandboxes
        .list()
        .filter((s) => s.scenario === name)
        .map((s) => `sandbox ${s.name}`);
      if (app.config.scenario === name) users.push('--scenario (what new sandboxes start with)');
      if (users.length > 0 && !app.scenarios.hasFile(name))
        throw fail.conflict(
          `scenario "${name}" is in use by ${users.join(', ')}: set another first (PUT /__admin/scenario)`,
        );
      try {
        app.scenarios.undefine(name);
      } catch (err) {
        if (err instanceof ScenarioError) throw fail.conflict(`scenario "${name}" cannot be deleted: ${err.message}`);
        throw err;
      }
      return { deleted: name };
    },
  );
};
