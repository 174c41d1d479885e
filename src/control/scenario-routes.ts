import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../schemas/common.js';
import { ScenarioSummary } from '../schemas/control.js';
import { ScenarioDefinition, scenarioJsonSchema, scenarioSchemaId } from '../schemas/scenario.js';
import { fail } from '../errors.js';
import { ScenarioError } from '../scenarios/registry.js';

const tags = ['mock'];
const NameParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) });

/**
 * Scenarios defined while the mock runs: the same JSON as a scenario file, checked the same way, per instance,
 * saved with --data (docs/scenarios.md, "Defining scenarios through the admin API").
 */
export const adminScenarioRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const unknown = (name: string) =>
    fail.notFound(`unknown scenario "${name.slice(0, 80)}"; known: ${app.scenarios.names().join(', ')}`);

  const jsonSchema = scenarioJsonSchema();
  app.get(
    '/__admin/scenario.schema.json',
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
    '/__admin/scenarios/:name',
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
    '/__admin/scenarios/:name',
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
    '/__admin/scenarios/:name',
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
