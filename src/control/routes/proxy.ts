import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errors, Nullable } from '../../schemas/common.js';
import { fail } from '../../errors.js';
import { adminWork, SandboxQuery } from '../sandbox.js';
import { Recorder } from '../../proxy/recorder.js';
import { Comparison, compareAnswers } from '../../proxy/compare.js';
import { upstreamName, userInfoProblem } from '../../proxy/upstream.js';
import type { Sandbox } from '../../store/sandbox.js';
import { pathOf } from '../../shared/url-path.js';

const tags = ['mock'];

const ProxyInfo = Type.Object({
  sandbox: Type.String(),
  url: Nullable(Type.String(), { description: 'the upstream of this sandbox; null: nothing is forwarded' }),
  source: Type.Union([Type.Literal('sandbox'), Type.Literal('flag'), Type.Literal('none')], {
    description: 'set for this sandbox, from --proxy, or none',
  }),
  timeoutMs: Type.Integer(),
  headerNames: Type.Array(Type.String(), {
    description: 'names of the --proxy-header headers (values are never shown)',
  }),
});
const RecordingInfo = Type.Object({
  recording: Type.Boolean(),
  dir: Nullable(Type.String()),
  file: Nullable(Type.String()),
  scenario: Nullable(Type.String(), { description: 'the name of the recorded scenario' }),
  stubs: Type.Integer(),
});

const proxyInfo = (app: FastifyInstance, sandbox: Sandbox) => {
  const { url, source } = app.proxy.upstreamFor(sandbox);
  const headerNames = app.proxy.headers.map((h) => h.name);
  return { sandbox: sandbox.name, url, source, timeoutMs: app.proxy.timeoutMs, headerNames };
};
const recordingInfo = (app: FastifyInstance) => {
  const r = app.proxy.recorder;
  return {
    recording: r !== null,
    dir: r?.dir ?? app.proxy.defaultRecordDir,
    file: r?.file ?? null,
    scenario: r?.name ?? null,
    stubs: r?.size ?? 0,
  };
};

/** Pass-through, recording and compare mode (docs/proxy.md). */
export const proxyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/proxy',
    {
      schema: {
        operationId: 'mockProxyGet',
        tags,
        summary: 'The upstream requests are forwarded to, for the sandbox',
        querystring: SandboxQuery,
        description:
          'The upstream portal that requests without a stub are forwarded to, for the sandbox (null: none). ' +
          'A sandbox that does not exist is a 404 (SANDBOX_NOT_FOUND); reading creates nothing.',
        response: { 200: ProxyInfo, ...errors(400, 401, 404, 502, 503) },
      },
      config: { sandbox: 'read' },
    },
    async (req) => proxyInfo(app, req.mock.sandbox),
  );

  app.put(
    '/proxy',
    {
      schema: {
        operationId: 'mockProxySet',
        tags,
        summary: 'Set the upstream of the sandbox (null: forward nothing)',
        querystring: SandboxQuery,
        description:
          'Sets the upstream portal for the sandbox: requests the mock does not stub are forwarded to it. null ' +
          'forwards nothing.',
        body: Type.Object({
          url: Nullable(Type.String({ pattern: '^https?://', maxLength: 2000 })),
          sandbox: Type.Optional(Type.String()),
        }),
        response: { 200: ProxyInfo, ...errors(400, 401) },
      },
      config: { sandbox: 'write' },
    },
    async (req) => {
      const problem = req.body.url === null ? null : userInfoProblem(req.body.url);
      if (problem) throw fail.validation(`url: ${problem}`, [{ field: 'body.url', message: problem }]);
      const { sandbox } = req.mock;
      sandbox.upstream = req.body.url;
      return proxyInfo(app, sandbox);
    },
  );

  app.delete(
    '/proxy',
    {
      schema: {
        operationId: 'mockProxyReset',
        tags,
        summary: 'The sandbox goes back to the upstream of --proxy',
        querystring: SandboxQuery,
        description: 'The sandbox forgets its own upstream and uses the one of --proxy again.',
        response: { 200: ProxyInfo, ...errors(400, 401) },
      },
      config: { sandbox: 'write' },
    },
    async (req) => {
      const { sandbox } = req.mock;
      sandbox.upstream = undefined;
      return proxyInfo(app, sandbox);
    },
  );

  app.get(
    '/recording',
    {
      schema: {
        operationId: 'mockRecordingGet',
        tags,
        summary: 'Whether forwarded exchanges are being recorded, and where',
        description: 'Whether forwarded exchanges are being recorded into a scenario file, and which one.',
        response: { 200: RecordingInfo, ...errors(401) },
      },
    },
    async () => recordingInfo(app),
  );

  app.post(
    '/recording',
    {
      schema: {
        operationId: 'mockRecordingSet',
        tags,
        summary: 'Start (into a new scenario file) or stop recording forwarded exchanges',
        description:
          'Starts recording the forwarded exchanges into a new scenario file (in `dir`, or --record DIR), or stops it.',
        body: Type.Object({
          action: Type.Union([Type.Literal('start'), Type.Literal('stop')]),
          dir: Type.Optional(
            Type.String({ minLength: 1, description: 'directory of the scenario file (default: --record)' }),
          ),
          name: Type.Optional(
            Type.String({
              pattern: '^recorded-[a-z0-9-]{1,54}$',
              description: 'scenario name (default recorded-<time>)',
            }),
          ),
        }),
        response: { 200: RecordingInfo, ...errors(400, 401) },
      },
    },
    async (req) => {
      if (req.body.action === 'stop') {
        const info = recordingInfo(app);
        app.proxy.setRecorder(null);
        return { ...info, recording: false };
      }
      const dir = req.body.dir ?? app.proxy.defaultRecordDir;
      if (!dir) throw fail.badRequest('give dir (or start the mock with --record DIR)');
      let recorder: Recorder;
      try {
        recorder = new Recorder(dir, req.body.name, { limit: app.config.recordLimit });
      } catch (err) {
        // a directory the mock cannot make or write: the recording going on (if any) goes on
        const why = `cannot write a scenario file in ${dir.slice(0, 200)}: ${(err as Error).message.slice(0, 200)}`;
        throw fail.badRequest(why, [{ field: req.body.dir === undefined ? '--record' : 'body.dir', message: why }]);
      }
      app.proxy.setRecorder(recorder);
      return recordingInfo(app);
    },
  );

  app.get(
    '/compare',
    {
      schema: {
        operationId: 'mockCompareReport',
        tags,
        description:
          "The differences between the mock's answers and the upstream's, collected while a scenario with `compare` " +
          'is active, oldest first. A sandbox that does not exist is a 404 (SANDBOX_NOT_FOUND); reading creates ' +
          'nothing.',
        summary:
          'Differences between the mock and the upstream, collected while a scenario with `compare` is active (oldest ' +
          'first)',
        querystring: Type.Object({
          sandbox: Type.Optional(Type.String()),
          operationId: Type.Optional(Type.String()),
          differentOnly: Type.Optional(Type.Boolean()),
        }),
        response: {
          200: Type.Object({ sandbox: Type.String(), comparisons: Type.Array(Comparison) }),
          ...errors(400, 401, 404, 502, 503),
        },
      },
      config: { sandbox: 'read' },
    },
    async (req) => {
      const { sandbox } = req.mock;
      const all = await app.proxy.comparisons(sandbox);
      const comparisons = all.filter(
        (c) =>
          (req.query.operationId === undefined || c.operationId === req.query.operationId) &&
          (!req.query.differentOnly || !c.sameStatus || !c.sameShape),
      );
      return { sandbox: sandbox.name, comparisons };
    },
  );

  app.delete(
    '/compare',
    {
      schema: {
        operationId: 'mockCompareClear',
        tags,
        summary: 'Forget the collected comparisons of the sandbox',
        querystring: SandboxQuery,
        description: 'Forgets the comparisons collected for the sandbox.',
        response: { 200: Type.Object({ sandbox: Type.String() }), ...errors(400, 401) },
      },
      config: { sandbox: 'write' },
    },
    async (req) => {
      app.proxy.clearComparisons(req.mock.sandbox);
      return { sandbox: req.mock.sandbox.name };
    },
  );

  app.post(
    '/compare',
    {
      schema: {
        operationId: 'mockCompareOnce',
        tags,
        summary: 'Send one request to the mock and to the upstream; list where the answers differ',
        description:
          'Sends one request to the mock and to the upstream of the sandbox and lists where the answers differ ' +
          '(status, headers, body fields).',
        body: Type.Object({
          method: Type.String({ pattern: '^[A-Za-z]+$', default: 'GET' }),
          url: Type.String({ pattern: '^/', description: 'path and query, without /sandbox/NAME' }),
          headers: Type.Optional(
            Type.Record(Type.String(), Type.String(), {
              description: 'e.g. the mock session headers (never sent upstream)',
            }),
          ),
          body: Type.Optional(Type.Unknown({ description: 'a JSON body' })),
          sandbox: Type.Optional(Type.String()),
        }),
        response: { 200: Comparison, ...errors(400, 401) },
      },
      config: { sandbox: 'write' },
    },
    async (req) => {
      const { sandbox } = req.mock;
      // a sandbox without an upstream is refused before anything is sent, and one this call made is not kept
      const base = app.proxy.upstreamFor(sandbox).url;
      if (!base) throw fail.badRequest(`sandbox ${sandbox.name} has no upstream (--proxy or PUT /__admin/proxy)`);
      const method = req.body.method.toUpperCase();
      const payload = req.body.body === undefined ? undefined : JSON.stringify(req.body.body);
      const headers: Record<string, string> = {
        ...req.body.headers,
        'x-mock-sandbox': sandbox.name,
        ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
      };
      // the mock's request writes to the sandbox as any portal request does, while this call waits
      const [mock, upstream] = await adminWork(req).outside(() =>
        Promise.all([
          app.inject({
            method: method as 'GET',
            url: req.body.url,
            headers,
            ...(payload !== undefined ? { payload } : {}),
          }),
          app.proxy.call(base, {
            method,
            url: req.body.url,
            headers,
            body: payload === undefined ? undefined : Buffer.from(payload),
          }),
        ]),
      );
      const path = pathOf(req.body.url);
      const operationId = sandbox.journal.list({ method, path, limit: 1 })[0]?.operationId ?? null;
      req.log.info({ upstream: upstreamName(base), path }, 'compared with the upstream');
      return compareAnswers(
        sandbox.clock.iso(),
        { operationId, method, path },
        { status: mock.statusCode, body: mock.body },
        upstream,
      );
    },
  );
};
