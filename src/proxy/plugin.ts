// Pass-through: requests the mock does not implement (and operations a scenario lists in `forward`) go to the
// upstream; answers come back unchanged and may be recorded as scenario stubs. Operations a scenario lists in
// `compare` are answered by the mock and also sent upstream, and the differences are kept per sandbox.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { UsageError, type Options } from '../config.js';
import { CheckError } from '../schemas/check.js';
import { writeAtomic } from '../shared/write-atomic.js';
import { pathOf } from '../http/context.js';
import { Recorder } from './recorder.js';
import {
  callUpstream,
  parseProxyHeaders,
  upstreamName,
  userInfoProblem,
  type UpstreamAnswer,
  type UpstreamHeader,
} from './upstream.js';
import { compareAnswers, type Comparison } from './compare.js';

declare module 'fastify' {
  interface FastifyInstance {
    proxy: ProxyState;
  }
}

const comparisonsKept = 200;

/**
 * Under --data, the recording an admin call started or stopped (app-wide, so not in a sandbox's files): a name no
 * sandbox can have (a dot), so the sandbox loader passes it by.
 */
export const recordingFileName = 'portal-mock.recording.json';
type RecordingSettings = { recording: { dir: string; name: string } | null };

/** The recording an earlier run was told about, or undefined when none was (the file is ours: damage stops start). */
function readRecordingSettings(file: string): RecordingSettings | undefined {
  if (!existsSync(file)) return undefined;
  let value: Partial<RecordingSettings> | null = null;
  try {
    value = JSON.parse(readFileSync(file, 'utf8')) as Partial<RecordingSettings>;
  } catch {
    /* reported below */
  }
  const r = value?.recording;
  if (r === null || (typeof r?.dir === 'string' && typeof r.name === 'string')) return { recording: r };
  throw new CheckError(
    file,
    '/recording',
    'null or { "dir", "name" }, as portal-mock writes it; move the file away to forget the recording',
  );
}

/** The sandbox side of forwarding: its own upstream (null: none), undefined for the one of --proxy. */
type UpstreamOwner = { readonly upstream: string | null | undefined };

/** Upstream per sandbox, recording and compare reports of one app. */
export class ProxyState {
  readonly defaultUrl: string | null;
  readonly headers: readonly UpstreamHeader[];
  readonly timeoutMs: number;
  readonly defaultRecordDir: string | null;
  private current: Recorder | null = null;
  private readonly recordingFile: string | null;
  /**
   * Compare reports by the sandbox object, not its name: a deleted sandbox's reports go with it, and a new sandbox
   * of the same name starts with none.
   */
  private readonly reports = new WeakMap<object, Comparison[]>();
  private readonly pending = new Set<Promise<void>>();

  constructor(config: Pick<Options, 'proxy' | 'proxyHeaders' | 'proxyTimeout' | 'record' | 'recordLimit' | 'data'>) {
    this.defaultUrl = config.proxy;
    this.headers = parseProxyHeaders(config.proxyHeaders);
    this.timeoutMs = config.proxyTimeout;
    this.defaultRecordDir = config.record;
    this.recordingFile = config.data ? join(config.data, recordingFileName) : null;
    // what an admin call said last outlives a restart, over --record; the recording goes on in the same file
    const saved = this.recordingFile ? readRecordingSettings(this.recordingFile) : undefined;
    const was = saved?.recording;
    const limit = config.recordLimit;
    if (saved) this.current = was ? new Recorder(was.dir, was.name, { resume: true, limit }) : null;
    else if (config.record) this.current = new Recorder(config.record, undefined, { limit });
  }

  get recorder(): Recorder | null {
    return this.current;
  }

  /** Starts (a new recorder) or stops (null) recording; under --data written before the admin call answers. */
  setRecorder(recorder: Recorder | null): void {
    this.current = recorder;
    const settings: RecordingSettings = { recording: recorder ? { dir: recorder.dir, name: recorder.name } : null };
    if (this.recordingFile) writeAtomic(this.recordingFile, `${JSON.stringify(settings)}\n`);
  }

  upstreamFor(sandbox: UpstreamOwner): { url: string | null; source: 'sandbox' | 'flag' | 'none' } {
    if (sandbox.upstream !== undefined) return { url: sandbox.upstream, source: 'sandbox' };
    return this.defaultUrl ? { url: this.defaultUrl, source: 'flag' } : { url: null, source: 'none' };
  }

  call(
    base: string,
    req: { method: string; url: string; headers: FastifyRequest['headers']; body: Buffer | undefined },
  ): Promise<UpstreamAnswer> {
    return callUpstream({ base, ...req, extraHeaders: this.headers, timeoutMs: this.timeoutMs });
  }

  addComparison(sandbox: object, c: Comparison): void {
    const list = this.reports.get(sandbox) ?? [];
    list.push(c);
    if (list.length > comparisonsKept) list.splice(0, list.length - comparisonsKept);
    this.reports.set(sandbox, list);
  }

  /** Comparisons of a sandbox, after the ones still running finish. */
  async comparisons(sandbox: object): Promise<Comparison[]> {
    await Promise.all([...this.pending]);
    return [...(this.reports.get(sandbox) ?? [])];
  }

  clearComparisons(sandbox: object): void {
    this.reports.delete(sandbox);
  }

  /** Keeps a running comparison until it settles; `p` must not reject (nothing would hear of it). */
  track(p: Promise<void>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }
}

async function readAll(stream: AsyncIterable<Buffer | string>, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += b.length;
    if (size > limit)
      throw new ApiError('payloadTooLarge', `request body is larger than ${limit} bytes (--body-limit)`);
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

type CompareMark = { base: string; body: Buffer | undefined; mockBody: string };

/** The app's upstream, recording and compare reports (app.proxy), shared by the portal and the control plane. */
export const proxyStatePlugin = fp(
  async (app: FastifyInstance) => {
    const problem = app.config.proxy ? userInfoProblem(app.config.proxy) : null;
    if (problem) throw new UsageError(`--proxy: ${problem}`);
    app.decorate('proxy', new ProxyState(app.config));
  },
  { name: 'proxy-state' },
);

/**
 * Registered after the scenario plugin (a stub answers first) and before auth (the client's mock session is not
 * checked for a forwarded request).
 */
export const proxyPlugin = fp(
  async (app: FastifyInstance) => {
    const state = app.proxy;
    const marks = new WeakMap<FastifyRequest, CompareMark>();

    // callback-style: only a forwarded request waits (for the upstream); it has sent the reply when done is called,
    // and Fastify then runs no further hook
    app.addHook('onRequest', (req, reply, done) => {
      const op = req.mock.operationId;
      const unmatched = req.mock.routeConfig?.unmatched === true;
      const { url: base } = state.upstreamFor(req.mock.sandbox);
      if (!unmatched && op !== null && base && req.mock.scenario?.compare?.includes(op)) {
        marks.set(req, { base, body: undefined, mockBody: '' });
        return done();
      }
      if (!unmatched && !(op !== null && req.mock.scenario?.forward?.includes(op))) return done();
      if (!base) {
        if (unmatched) return done(); // the catch-all answers the usual 404
        throw new ApiError(
          'badGateway',
          `scenario "${req.mock.scenario?.name ?? ''}" forwards ${op ?? ''} but no upstream is configured (--proxy or PUT /__admin/proxy)`,
        );
      }
      forward(req, reply, op, base).then(() => done(), done);
    });
    const forward = async (req: FastifyRequest, reply: FastifyReply, op: string | null, base: string) => {
      const body =
        req.method === 'GET' || req.method === 'HEAD' ? undefined : await readAll(req.raw, app.config.bodyLimit);
      const answer = await state.call(base, { method: req.method, url: req.url, headers: req.headers, body });
      if (!answer.ok) {
        req.log.warn({ upstream: upstreamName(base), status: answer.status }, answer.reason);
        throw new ApiError(answer.status === 504 ? 'gatewayTimeout' : 'badGateway', answer.reason);
      }
      state.recorder?.add({ ...answer, operationId: op, method: req.method, path: pathOf(req) });
      reply.code(answer.status);
      for (const [k, v] of answer.headers) reply.header(k, v);
      // JSON and text go out as strings (the journal keeps JSON answers, redacted); anything else as bytes
      const textual = /json|^text\//i.test(answer.contentType);
      reply.send(textual ? answer.body.toString('utf8') : answer.body);
    };

    // compare: keep the raw body for the upstream (validation may change the parsed one), the mock's answer, then ask upstream
    app.addHook('preParsing', (req, _reply, payload, done) => {
      const mark = marks.get(req);
      if (!mark) return done(null, payload);
      readAll(payload, app.config.bodyLimit).then((body) => {
        mark.body = body;
        done(null, Readable.from([body]));
      }, done);
    });
    // the upstream is asked once the mock's answer has gone; only compared requests listen for that (a global
    // onResponse hook would make Fastify add 'finish' listeners to every answer)
    app.addHook('onSend', (req, reply, payload, done) => {
      const mark = marks.get(req);
      if (!mark) return done(null, payload);
      mark.mockBody = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
      // outside Fastify's error handling: a failed comparison is logged, never left to end the process
      reply.raw.once('finish', () =>
        state.track(
          compareLater(req, reply, mark).catch((err: unknown) =>
            req.log.error({ err }, 'the comparison with the upstream failed'),
          ),
        ),
      );
      done(null, payload);
    });
    const compareLater = async (req: FastifyRequest, reply: FastifyReply, mark: CompareMark) => {
      const at = req.mock.sandbox.clock.iso(); // when the mock answered, not when the upstream did
      const answer = await state.call(mark.base, {
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: mark.body,
      });
      const who = { operationId: req.mock.operationId, method: req.method, path: pathOf(req) };
      state.addComparison(
        req.mock.sandbox,
        compareAnswers(at, who, { status: reply.statusCode, body: mark.mockBody }, answer),
      );
    };

    // Paths no operation answers: a stub by method+path (scenario plugin) or the upstream (above) answers first;
    // otherwise the usual 404. The body stays raw bytes here; parsing of known routes is unchanged.
    await app.register(async (child) => {
      child.removeAllContentTypeParsers();
      child.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
      child.route({
        method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
        url: '/*',
        schema: { hide: true },
        config: { unmatched: true },
        handler: (_req, reply) => reply.callNotFound(),
      });
    });
  },
  { name: 'proxy', dependencies: ['request-context', 'scenarios', 'proxy-state'] },
);
