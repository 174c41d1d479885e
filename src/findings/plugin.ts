// Findings: what the app did that the real portal answers differently (docs/findings.md). The detectors are plain
// functions (rules.ts), run per operation after the answer is made and before it leaves, so the answer carries
// `x-mock-finding`. Registered before the scenario plugin: its onSend runs before a fault breaks the answer.
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { header, pathOf } from '../http/context.js';
import type { Sandbox } from '../store/sandbox.js';
import { cached } from '../store/world.js';
import { jsonType } from '../shared/json-type.js';
import { keyPart, type FindingLog, type Memo } from '../store/findings.js';
import { keptCopy } from '../store/journal.js';
import type { Finding, FindingCode } from '../schemas/control.js';
import { signedLifetimes } from '../domain/files.js';
import { rules, track, type Rule, type Seen } from './rules.js';

type Entry = [FindingCode, Rule];
const entries = Object.entries(rules) as Entry[];
const everyOp = entries.filter(([, r]) => r.ops === undefined);

const docsOf = (tag: string | undefined, op: string) => `/docs#/${tag ?? 'default'}/${op}`;

/** A finding's message and path quote client values (a query, a header): kept bounded and copied, as the journal's */
const keptFindingChars = 2048;

function report(
  log: FindingLog,
  code: FindingCode,
  message: string,
  f: Omit<Finding, 'id' | 'code' | 'severity' | 'message'>,
): void {
  log.add({
    ...f,
    path: keptCopy(f.path, keptFindingChars),
    code,
    severity: rules[code].severity,
    message: keptCopy(message, keptFindingChars),
  });
}

/** A sandbox's findings, with the uploads prepared longer ago than the upload address lives and never finished. */
export function findingsOf(sandbox: Sandbox, off: readonly string[] = []): FindingLog {
  const log = sandbox.findings;
  const now = sandbox.clock.nowMs();
  for (const [key, memo] of [...log.entries('file:')]) {
    if (now - (memo.at ?? now) < signedLifetimes.uploadSeconds * 1000) continue;
    log.delete(key);
    if (off.includes('upload-never-finished')) continue;
    report(
      log,
      'upload-never-finished',
      `This file was prepared ${Math.round((now - memo.at!) / 60_000)} min ago and never finished: ` +
        'the real portal keeps it PREPARED, it never shows in the file list and cannot be used as file_id. ' +
        'PUT the bytes and call finish-upload, or retry with the same id.',
      {
        at: new Date(memo.at!).toISOString(),
        requestId: memo.id ?? 0,
        operationId: 'filePrepareUpload',
        method: 'POST',
        path: '/file/prepare-upload',
        docs: docsOf('file', 'filePrepareUpload'),
      },
    );
  }
  return log;
}

type Json = {
  type?: string | string[];
  $ref?: string;
  anyOf?: Json[];
  oneOf?: Json[];
  properties?: Record<string, Json>;
  items?: Json;
  additionalProperties?: Json | boolean;
};
const typesOf = (s: Json | undefined): string[] => (s?.type === undefined ? [] : [s.type].flat());
const fits = (types: string[], kind: string) =>
  types.length === 0 || types.includes(kind) || (kind === 'integer' && types.includes('number'));

/** The body's values whose JSON type the schema does not allow (what Ajv's coerceTypes would convert), as "path as kind where …". */
function wrongTypes(
  schema: Json | undefined,
  value: unknown,
  path: string,
  out: string[],
  refs: (ref: string) => Json | undefined,
  depth = 0,
): void {
  if (!schema || value === undefined || depth > 12 || out.length >= 5) return;
  if (schema.$ref) {
    wrongTypes(refs(schema.$ref), value, path, out, refs, depth + 1);
    return;
  }
  const kind = jsonType(value);
  const options = (schema.anyOf ?? schema.oneOf)?.map((b) => (b.$ref ? refs(b.$ref) : b)) ?? [schema];
  const fit = options.find((b) => fits(typesOf(b), kind));
  if (!fit)
    out.push(
      `${path || 'the body'} as ${kind} where the API takes ${[...new Set(options.flatMap(typesOf))].join(' or ')}`,
    );
  else if (fit !== schema) wrongTypes(fit, value, path, out, refs, depth + 1);
  else if (kind === 'object') {
    const extra = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
    for (const [k, v] of Object.entries(value as object))
      wrongTypes(schema.properties?.[k] ?? extra, v, path ? `${path}.${k}` : k, out, refs, depth + 1);
  } else if (kind === 'array')
    for (const [i, v] of (value as unknown[]).entries())
      wrongTypes(schema.items, v, `${path}[${i}]`, out, refs, depth + 1);
}

const who = (req: FastifyRequest) =>
  header(req, 'x-service-device-id') ??
  header(req, 'x-service-session-id') ??
  header(req, 'authorization') ??
  header(req, 'x-service-client-id') ??
  req.ip;

export const findingsPlugin = fp(
  async (app: FastifyInstance) => {
    const schemas = app.getSchemas() as Record<string, Json>;
    const refs = (ref: string) => schemas[ref.replace(/#$/, '')];
    const byOp = new Map<string, Entry[]>();
    const rulesOf = (op: string) =>
      cached(byOp, op, () => [...entries.filter(([, r]) => r.ops?.includes(op)), ...everyOp]);

    // before validation converts them (coerceTypes): the body as the app sent it
    // callback-style hooks: nothing here waits
    app.addHook('preValidation', (req, _reply, done) => {
      if (req.body === null || typeof req.body !== 'object' || Buffer.isBuffer(req.body)) return done();
      const out: string[] = [];
      wrongTypes(req.routeOptions.schema?.body as Json | undefined, req.body, '', out, refs);
      if (out.length > 0) req.mock.findingTypes = out;
      done();
    });

    app.addHook('onSend', (req, reply, payload, done) => {
      const op = req.mock.operationId;
      // no sandbox: the request was refused before one was chosen (a bad sandbox name)
      if (op !== null && req.mock.sandbox && !reply.raw.headersSent) {
        try {
          detect(req, reply, op, payload);
        } catch (err) {
          req.log.error({ err }, 'a findings detector failed; the answer goes out unchanged');
        }
      }
      done(null, payload);
    });

    const detect = (req: FastifyRequest, reply: FastifyReply, op: string, payload: unknown) => {
      const log = req.mock.sandbox.findings;
      log.seq++;
      let parsed: Record<string, unknown> | undefined | null = null;
      let signIn: Memo | undefined | null = null; // null: not looked up yet
      const seen: Seen = {
        req,
        op,
        status: reply.statusCode,
        now: req.mock.sandbox.clock.nowMs(),
        log,
        who: who(req),
        answer: () => {
          if (parsed === null) {
            try {
              parsed = typeof payload === 'string' ? (JSON.parse(payload) as Record<string, unknown>) : undefined;
            } catch {
              parsed = undefined;
            }
          }
          return parsed;
        },
        signIn: () => {
          if (signIn === null)
            signIn = log.get(`session:${keyPart(header(req, 'x-service-session-id') ?? 'undefined')}`);
          return signIn;
        },
      };
      track(seen);
      const off = req.mock.scenario?.findings?.off;
      const codes: string[] = [];
      for (const [code, rule] of rulesOf(op)) {
        const message = rule.detect(seen);
        if (message === null || off?.includes(code)) continue;
        codes.push(code);
        report(log, code, message, {
          at: new Date(seen.now).toISOString(),
          requestId: req.mock.journal.id,
          operationId: op,
          method: req.method,
          path: pathOf(req),
          docs: docsOf(req.routeOptions.schema?.tags?.[0], op),
        });
      }
      if (codes.length > 0) reply.header('x-mock-finding', codes.join(', '));
    };
  },
  { name: 'findings', dependencies: ['request-context', 'journal'] },
);
