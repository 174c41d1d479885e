// Invalid-input generators driven by the OpenAPI document: every request they build must be refused (4xx).
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import type { OpenApiDoc, Operation } from './openapi.js';

type Schema = Record<string, any>;
export type FuzzRequest = { kind: string; req: InjectOptions };

export function deref(doc: OpenApiDoc, schema: Schema | undefined): Schema {
  let s = schema ?? {};
  for (let i = 0; i < 10 && typeof s.$ref === 'string'; i++)
    s = (doc.components.schemas[s.$ref.split('/').pop()!] ?? {}) as Schema;
  return s;
}

const zeroUuid = '00000000-0000-4000-8000-000000000000';

/** A value that passes the schema's type and format (not necessarily the handler's checks). */
export function sample(doc: OpenApiDoc, raw: Schema | undefined): unknown {
  const s = deref(doc, raw);
  if (s.anyOf) return sample(doc, s.anyOf[0]);
  if (s.oneOf) return sample(doc, s.oneOf[0]);
  if (s.enum) return s.enum[0];
  if (s.const !== undefined) return s.const;
  switch (s.type) {
    case 'string':
      if (s.format === 'uuid') return zeroUuid;
      if (s.format === 'date') return '2026-03-02';
      if (s.format === 'date-time') return '2026-03-02T09:00:00Z';
      if (s.format === 'email') return 'nobody@example.test';
      return 'abc'.padEnd(s.minLength ?? 1, 'x');
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const k of s.required ?? []) out[k] = sample(doc, s.properties?.[k]);
      return out;
    }
    default:
      return 'x';
  }
}

const typeOf = (doc: OpenApiDoc, raw: Schema | undefined): string | undefined => {
  const s = deref(doc, raw);
  if (s.anyOf) {
    const ts = new Set(s.anyOf.map((x: Schema) => typeOf(doc, x)));
    return ts.size === 1 ? ([...ts][0] as string) : 'mixed';
  }
  return s.type;
};

// Strings that no uuid/date/number/enum check accepts, with unicode, control characters, traversal and injection.
const hostileString = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'null',
    'undefined',
    'NaN',
    '-1',
    '1e999',
    '0x10',
    '../../etc/passwd',
    '..%2F..%2F',
    '%00',
    '\u0000',
    '\u202e\u0000\u0007',
    "' OR 1=1 --",
    '<script>alert(1)</script>',
    '{{7*7}}',
    '${jndi:x}',
    '😀'.repeat(50),
    'ß\u0301\uFFFF',
    '\uD800',
  ),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer({ min: 1, max: 3 }).map((n) => 'x'.repeat(n * 20_000)),
);
const malformedUuid = fc.oneof(
  fc.constantFrom(
    '0',
    zeroUuid.slice(1),
    `${zeroUuid}0`,
    zeroUuid.replace(/-/g, ''),
    'g0000000-0000-4000-8000-000000000000',
    `{${zeroUuid}}`,
  ),
  fc.string({ maxLength: 36 }).filter((s) => !/^[0-9a-f-]{36}$/i.test(s)),
);
const malformedDate = fc.constantFrom(
  '2026-13-01',
  '2026-02-30',
  '26-1-1',
  '2026/03/02',
  'yesterday',
  '2026-03-02T25:00:00Z',
  '0000-00-00',
  '2026-03-02|2026-03-01T10:00',
);
/** A body value of a type ajv cannot coerce to the declared one. */
const wrongTypeFor = (type: string | undefined): fc.Arbitrary<unknown> => {
  if (type === 'object')
    return fc.oneof(fc.constant('not-an-object'), fc.integer(), fc.array(fc.integer(), { minLength: 2, maxLength: 3 }));
  if (type === 'array')
    return fc.oneof(
      fc.constant({ bogus: true }),
      fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { minKeys: 1, maxKeys: 3 }),
    );
  return fc.oneof(
    fc.constant({ a: 1 }),
    fc.array(fc.string(), { minLength: 2, maxLength: 4 }),
    fc.constant({ __proto__: { polluted: true } }),
    fc.constant([[1], [2]]),
  );
};

export type FuzzBase = {
  /** headers of a valid session (and sandbox) */
  headers: Record<string, string>;
  pathValue(op: Operation, name: string): string;
  bodyLimit: number;
};

function fill(op: Operation, base: FuzzBase, overrides: Record<string, string> = {}): string {
  return op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => safeEncode(overrides[name] ?? base.pathValue(op, name)));
}

function requiredQuery(doc: OpenApiDoc, op: Operation): Record<string, string> {
  const q: Record<string, string> = {};
  for (const p of op.parameters) if (p.in === 'query' && p.required) q[p.name] = String(sample(doc, p.schema));
  return q;
}

const qs = (q: Record<string, string | string[]>) => {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) for (const x of Array.isArray(v) ? v : [v]) u.append(k, x);
  const s = u.toString();
  return s ? `?${s}` : '';
};

/** Every kind of invalid request that applies to the operation, as one arbitrary. */
export function invalidRequests(doc: OpenApiDoc, op: Operation, base: FuzzBase): fc.Arbitrary<FuzzRequest> {
  const method = op.method as InjectOptions['method'];
  const bodySchema = deref(doc, op.requestBody?.content['application/json']?.schema);
  const hasBody = Boolean(op.requestBody);
  const validBody = hasBody ? sample(doc, bodySchema) : undefined;
  const q0 = requiredQuery(doc, op);
  const url0 = fill(op, base) + qs(q0);
  // the control plane's 401 (WireMock's API is in it) is its token
  const secured = '401' in op.responses && !op.tags.includes('mock') && !op.tags.includes('wiremock');
  const withBody = (extra: Partial<InjectOptions> = {}): InjectOptions => ({
    method,
    url: url0,
    headers: { ...base.headers },
    ...(hasBody ? { payload: validBody as object } : {}),
    ...extra,
  });
  const arbs: Array<fc.Arbitrary<FuzzRequest>> = [];

  // every operation: a hostile sandbox name or scenario name
  arbs.push(
    fc
      .oneof(
        hostileString.filter((s) => s !== '' && !/^[A-Za-z0-9_-]{1,64}$/.test(s)),
        fc.constantFrom('../../etc/passwd', '..', 'a/b', 'x'.repeat(65)),
      )
      .map((name) => ({
        kind: 'sandbox-name',
        req: withBody({ headers: { ...base.headers, 'x-mock-sandbox': headerSafe(name) } }),
      })),
  );
  arbs.push(
    fc
      .constantFrom(
        '../../etc/passwd',
        '..\\..\\windows',
        'default/../x',
        '%2e%2e%2f',
        'no-such-scenario',
        '__proto__',
        'constructor',
      )
      .map((name) => ({
        kind: 'scenario-name',
        req: withBody({ headers: { ...base.headers, 'x-mock-scenario': name } }),
      })),
  );
  arbs.push(
    fc
      .constantFrom(
        `/sandbox/..%2F..%2Fetc${url0}`,
        `/sandbox/a%00b${url0}`,
        `/sandbox/%E0%A4%A${url0}`,
        `/sandbox/%${url0}`,
        `/sandbox/${'x'.repeat(80)}${url0}`,
      )
      .map((url) => ({ kind: 'sandbox-prefix', req: withBody({ url }) })),
  );

  if (secured) {
    arbs.push(
      fc
        .oneof(
          fc.constant<Record<string, string>>({}),
          fc
            .constantFrom(
              'x-service-session-code',
              'x-service-session-id',
              'x-service-device-id',
              'x-service-tenant-id',
            )
            .map((h) => ({ ...base.headers, [h]: 'wrong-0000' })),
          fc
            .constantFrom(
              'Bearer pmt_00000000-0000-4000-8000-000000000000_secret',
              'Bearer ',
              'Basic YTpi',
              `Bearer ${'a'.repeat(3000)}`,
            )
            .map((a) => ({ 'x-mock-sandbox': base.headers['x-mock-sandbox']!, authorization: a })),
          fc.constant({
            'x-mock-sandbox': base.headers['x-mock-sandbox']!,
            'x-service-client-id': 'romashka-integration',
            'x-service-client-secret': 'wrong',
          }),
        )
        .map((headers) => ({ kind: 'auth', req: withBody({ headers }) })),
    );
  }

  for (const p of op.parameters.filter((x) => x.in === 'query')) {
    const s = deref(doc, p.schema);
    const bad: Array<fc.Arbitrary<string | string[]>> = [];
    if (p.required) bad.push(fc.constant('__drop__'));
    if (s.format === 'uuid') bad.push(malformedUuid);
    if (s.format === 'date' || s.format === 'date-time') bad.push(malformedDate);
    if (s.type === 'integer' || s.type === 'number') {
      bad.push(
        fc
          .constantFrom('abc', '1.5.2', '--1', '', 'Infinity', '1e999')
          .filter((v) => !(s.type === 'number' && v === '1e999')),
      );
      if (typeof s.minimum === 'number') bad.push(fc.integer({ min: -1e9, max: s.minimum - 1 }).map(String));
      if (typeof s.maximum === 'number') bad.push(fc.integer({ min: s.maximum + 1, max: s.maximum + 1e9 }).map(String));
    }
    if (s.type === 'string' && typeof s.maxLength === 'number') bad.push(fc.constant('y'.repeat(s.maxLength + 1)));
    if (s.enum) bad.push(hostileString.filter((v) => !s.enum.includes(v)));
    if (s.type === 'string' || s.type === 'integer' || s.type === 'number' || s.type === 'boolean')
      bad.push(fc.tuple(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 })).map(([a, b]) => [a, b]));
    if (s.type === 'boolean') bad.push(fc.constantFrom('maybe', 'yes', '2'));
    if (bad.length === 0) continue;
    arbs.push(
      fc.oneof(...bad).map((v) => {
        const q: Record<string, string | string[]> = { ...q0 };
        if (v === '__drop__') delete q[p.name];
        else q[p.name] = v;
        return { kind: `query:${p.name}`, req: withBody({ url: fill(op, base) + qs(q) }) };
      }),
    );
  }

  for (const p of op.parameters.filter((x) => x.in === 'path')) {
    const s = deref(doc, p.schema);
    const bad: Array<fc.Arbitrary<string>> = [fc.constantFrom('..', '../..', '%2e%2e', '\u0000', 'a/../../b')];
    if (s.format === 'uuid') bad.push(malformedUuid.filter((v) => v !== ''));
    if (s.pattern || s.format)
      bad.push(hostileString.filter((v) => v !== '' && !new RegExp(s.pattern ?? '^$').test(v)));
    arbs.push(
      fc
        .oneof(...bad)
        .map((v) => ({ kind: `path:${p.name}`, req: withBody({ url: fill(op, base, { [p.name]: v }) + qs(q0) }) })),
    );
  }

  if (hasBody) {
    const props: Record<string, Schema> = bodySchema.properties ?? {};
    const required: string[] = bodySchema.required ?? [];
    const typed = Object.keys(props).filter((k) => typeOf(doc, props[k]) !== undefined);
    if (bodySchema.type === 'object') {
      if (typed.length) {
        arbs.push(
          fc.tuple(fc.constantFrom(...typed), fc.boolean()).chain(([k, deep]) =>
            wrongTypeFor(typeOf(doc, props[k])).map((v) => {
              const body: Record<string, unknown> = { ...(validBody as object) };
              body[k] = v;
              return {
                kind: `body-type:${k}${deep ? '' : ''}`,
                req: withBody({
                  payload: JSON.stringify(body),
                  headers: { ...base.headers, 'content-type': 'application/json' },
                }),
              };
            }),
          ),
        );
      }
      if (required.length) {
        arbs.push(
          fc.constantFrom(...required).map((k) => {
            const body: Record<string, unknown> = { ...(validBody as object) };
            delete body[k];
            return { kind: `body-missing:${k}`, req: withBody({ payload: body }) };
          }),
        );
      }
      arbs.push(
        fc.oneof(fc.integer(), fc.constant('"just a string"'), fc.constant('true')).map((v) => ({
          kind: 'body-not-object',
          req: withBody({ payload: String(v), headers: { ...base.headers, 'content-type': 'application/json' } }),
        })),
      );
    }
    // prototype pollution: refused outright by the JSON parser
    arbs.push(
      fc
        .constantFrom(
          '{"__proto__":{"isAdmin":true}}',
          '{"a":{"__proto__":{"x":1}}}',
          '{"constructor":{"prototype":{"isAdmin":true}}}',
        )
        .map((payload) => ({
          kind: 'proto-keys',
          req: withBody({
            payload: injectKeys(payload, validBody),
            headers: { ...base.headers, 'content-type': 'application/json' },
          }),
        })),
    );
    arbs.push(
      fc
        .constantFrom('{', '{"a":', '[1,2', '{"a":1}}', 'nul', '\u0000', '{"a":"\\x"}', '\ufeff{}{}', "{'a':1}")
        .map((payload) => ({
          kind: 'malformed-json',
          req: withBody({ payload, headers: { ...base.headers, 'content-type': 'application/json' } }),
        })),
    );
    arbs.push(
      fc
        .constantFrom(
          'text/plain',
          'application/xml',
          'multipart/form-data; boundary=x',
          'application/x-www-form-urlencoded',
          'image/png',
          'application/jsonx',
        )
        .map((ct) => ({
          kind: 'content-type',
          req: withBody({ payload: JSON.stringify(validBody), headers: { ...base.headers, 'content-type': ct } }),
        })),
    );
    arbs.push(
      fc.constantFrom(1, 2).map((n) => ({
        kind: 'oversized',
        req: withBody({
          payload: JSON.stringify({ pad: 'z'.repeat(base.bodyLimit * n + 10) }),
          headers: { ...base.headers, 'content-type': 'application/json' },
        }),
      })),
    );
  }
  return fc.oneof(...arbs);
}

const safeEncode = (v: string) => {
  try {
    return encodeURIComponent(v);
  } catch {
    return '%ED%A0%80';
  }
};

/** Header values must be latin-1 without control characters, else the client itself refuses to send them. */
function headerSafe(v: string): string {
  const safe = [...v].map((c) => (c.charCodeAt(0) < 32 || c.charCodeAt(0) > 126 ? safeEncode(c) : c)).join('');
  return safe.slice(0, 4000) || '%00';
}

function injectKeys(payload: string, valid: unknown): string {
  if (!valid || typeof valid !== 'object' || Array.isArray(valid)) return payload;
  const inner = JSON.stringify(valid).slice(1, -1);
  return inner ? `${payload.slice(0, -1)},${inner}}` : payload;
}

// ---- Hostile requests for any registered route, as raw bytes on a socket
// (test/reliability/reliability-fuzz-socket.test.ts): structure (nesting thousands deep, tens of thousands of keys, long
// strings), wrong types and odd encodings (bad UTF-8, bad percent escapes, UTF-16, NUL) in the body, the query, path
// parameters and headers.

/** A route as `onRoute` saw it: one method, its URL pattern, and the names its schemas declare. */
export type RouteTarget = { method: string; url: string; queryKeys: string[]; bodyKeys: string[] };
type Header = [string, string | Buffer];
/** A request before it becomes bytes: its parts, each a text or raw bytes; `kind` names the changes made. */
export type HostileRequest = {
  kind: string[];
  method: string;
  path: Array<string | Buffer>;
  query: Array<string | Buffer>;
  headers: Header[];
  body?: Buffer | undefined;
};

// Sizes drawn evenly (fast-check leans to small values by default): JSON.stringify overflows the stack from about
// 5,000 levels, which most draws pass; 64 and 65 sit at the journal's limit of what it parses back.
const count = (min: number, max: number) => fc.noBias(fc.integer({ min, max }));
const depth = fc.oneof(fc.constantFrom(64, 65, 1_000), { weight: 4, arbitrary: count(5_000, 100_000) });
const half = (n: number) => Math.ceil(n / 2);
/** JSON value texts that are deep, wide or long. */
const structureText = fc.oneof(
  depth.map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
  depth.map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
  depth.map((n) => `${'[{"password":'.repeat(half(n))}"p"${'}]'.repeat(half(n))}`),
  depth.map((n) => '['.repeat(n)), // never closed
  count(1_000, 40_000).map((n) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`),
  count(1_000, 40_000).map((n) => `[${'0,'.repeat(n)}0]`),
  count(1_000, 20_000).map((n) => `{${'"dup":{},'.repeat(n)}"dup":1}`),
  count(10_000, 900_000).map((n) => `"${'x'.repeat(n)}"`),
);
const wrongTypeText = fc.constantFrom(
  'null',
  '0',
  '-0',
  '1e999',
  '-1e999',
  'true',
  '""',
  '"text"',
  '[]',
  '[1,"a",null]',
  '{}',
  '{"__proto__":{"x":1}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '"\\ud800"',
  '"\\u0000"',
  '123456789012345678901234567890',
);
/** Byte sequences that are not UTF-8: a bad continuation, BOM-like bytes, overlong, a surrogate, past U+10FFFF, cut. */
const badUtf8 = fc
  .constantFrom(
    [0xc3, 0x28],
    [0xff, 0xfe],
    [0xc0, 0xaf],
    [0xed, 0xa0, 0x80],
    [0xf4, 0x90, 0x80, 0x80],
    [0x80],
    [0xe2, 0x82],
  )
  .map((bytes) => Buffer.from(bytes));
const utf8 = (s: string) => Buffer.from(s, 'utf8');

/** A JSON body for a route: a hostile value at the top or under one of the route's own field names. */
function hostileJson(route: RouteTarget): fc.Arbitrary<{ kind: string; body: Buffer }> {
  const keys = route.bodyKeys.length ? route.bodyKeys : ['email'];
  const value = fc.oneof({ weight: 3, arbitrary: structureText }, { weight: 1, arbitrary: wrongTypeText });
  return fc.oneof(
    value.map((v) => ({ kind: 'body:top', body: utf8(v) })),
    fc.tuple(fc.constantFrom(...keys), value).map(([k, v]) => ({ kind: `body:${k}`, body: utf8(`{"${k}":${v}}`) })),
    fc.tuple(fc.constantFrom(...keys), badUtf8).map(([k, b]) => ({
      kind: `body-bad-utf8:${k}`,
      body: Buffer.concat([utf8(`{"${k}":"a`), b, utf8('"}')]),
    })),
    fc
      .constantFrom(
        Buffer.from('{"email":"a@b.test"}', 'utf16le'),
        utf8('\ufeff{}'),
        utf8('{"a":1}\u0000'),
        utf8('\u0000'),
        Buffer.from([0xff, 0xfe, 0x7b, 0x7d]),
        utf8('{"\\u005f_proto__":{"x":1}}'),
        utf8('{"a":"\\x"}'),
        utf8('{"a":1,}'),
        utf8(`{"a":"${'\\'.repeat(5001)}"}`),
      )
      .map((body) => ({ kind: 'body:encoding', body })),
  );
}

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'application/json; charset=utf-16',
      'application/json; charset=bogus',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=zz',
      'application/octet-stream',
      'application/xml',
      '',
      ';;;',
      `application/json; ${'x=y;'.repeat(1500)}`,
      'application/json, text/plain',
      '*/*',
      'APPLICATION/JSON',
    ),
  },
);

const badEscapes = ['%', '%zz', '%E0%A4%A', '%C3%28', '%FF%FE', '%ED%A0%80', '%F4%90%80%80', '%00'];
/** Path segments that are not what any route takes (percent-encoded unless they are raw bytes on purpose). */
const hostileSegment: fc.Arbitrary<string | Buffer> = fc.oneof(
  fc.constantFrom(...badEscapes, '%2e%2e', '..%2F..%2F', '%252F', '%u002F'),
  count(400, 6_000).map((n) => 'a'.repeat(n)),
  count(100, 2_000).map((n) => '%5B'.repeat(n)),
  fc.string({ unit: 'binary', maxLength: 30 }).map((s) => safeEncode(s)),
  badUtf8, // raw bytes: Node's parser refuses them
);

/** Query strings: thousands of keys, one key thousands of times, deep brackets, long values, bad escapes, raw bytes. */
function hostileQuery(route: RouteTarget): fc.Arbitrary<{ kind: string; parts: Array<string | Buffer> }> {
  const key = fc.constantFrom(...route.queryKeys, 'sandbox', 'x', '__proto__', 'constructor[prototype][x]');
  const value = fc.oneof(
    fc.constantFrom(...badEscapes, '', 'null', '-1', '1e999', 'NaN', '[]', '{}'),
    count(1_000, 15_000).map((n) => 'v'.repeat(n)),
    fc.string({ unit: 'binary', maxLength: 30 }).map(safeEncode),
  );
  const pairs = (k: string, n: number) => Array.from({ length: n }, (_, i) => `${k || `k${i}`}=1`).join('&');
  return fc.oneof(
    fc.tuple(key, value).map(([k, v]) => ({ kind: `query:${k}`, parts: [`${encodeURIComponent(k)}=${v}`] })),
    count(200, 2_500).map((n) => ({ kind: 'query:many-keys', parts: [pairs('', n)] })),
    fc.tuple(key, count(200, 2_500)).map(([k, n]) => ({
      kind: `query:repeated:${k}`,
      parts: [pairs(encodeURIComponent(k), n)],
    })),
    fc.tuple(key, count(100, 1_500)).map(([k, n]) => ({
      kind: `query:brackets:${k}`,
      parts: [`${encodeURIComponent(k)}${'[a]'.repeat(n)}=1`],
    })),
    fc.tuple(key, badUtf8).map(([k, b]) => ({ kind: `query:raw-bytes:${k}`, parts: [`${encodeURIComponent(k)}=`, b] })),
    fc
      .constantFrom('%zz=1', '=&=&&', '&&&', '?', '#', 'a=1;b=2', '%=%', 'a%00b=1')
      .map((q) => ({ kind: 'query:shape', parts: [q] })),
  );
}

const headerValue: fc.Arbitrary<string | Buffer> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '..',
    '../../etc/passwd',
    'a b',
    '[::1',
    '@',
    '%zz',
    'evil.test:99999',
    'null',
    '\t',
    'Bearer ',
    'gzip;q=abc, *;q=-1, br',
  ),
  count(1_000, 12_000).map((n) => 'h'.repeat(n)),
  badUtf8.map((b) => Buffer.concat([utf8('a'), b])),
  // latin-1 text without control characters: what a header line can carry
  fc
    .string({ unit: 'binary', maxLength: 20 })
    .map((s) => s.replace(/[\u0000-\u001f\u007f]/g, '').replace(/[^\u0000-\u00ff]/g, 'é')),
);
const headerName = fc.constantFrom(
  'x-mock-sandbox',
  'x-mock-scenario',
  'authorization',
  'x-service-tenant-id',
  'x-service-device-id',
  'x-service-session-id',
  'x-service-session-code',
  'x-service-client-id',
  'x-service-client-secret',
  'host',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-prefix',
  'x-forwarded-for',
  'accept-encoding',
  'accept',
  'origin',
  'cookie',
  'user-agent',
  'access-control-request-method',
  'x-no-compression',
);

const oneHeader: fc.Arbitrary<Header> = fc.tuple(headerName, headerValue);
/** What a header change does: replace one header, send it a second time, or add hundreds of headers. */
const hostileHeaders: fc.Arbitrary<{ kind: string; set: Header[]; twice: boolean }> = fc.oneof(
  { weight: 5, arbitrary: oneHeader.map((h) => ({ kind: `header:${h[0]}`, set: [h], twice: false })) },
  { weight: 1, arbitrary: oneHeader.map((h) => ({ kind: `header-twice:${h[0]}`, set: [h], twice: true })) },
  {
    weight: 1,
    arbitrary: count(100, 600).map((n) => ({
      kind: 'header:many',
      set: Array.from({ length: n }, (_, i): Header => [`x-h${i}`, 'v']),
      twice: true,
    })),
  },
);

/** The route's URL pattern as a path (`*`, CORS's preflight route for every path, is `/*`). */
const urlOf = (route: RouteTarget) => (route.url.startsWith('/') ? route.url : `/${route.url}`);
/** A parameter (`:name`, `*`) filled with a plain value. */
const plain = (seg: string) => (seg.startsWith(':') || seg === '*' ? 'x' : seg);
/** Path segments joined with their slashes, raw byte segments kept as bytes. */
const joined = (segs: Array<string | Buffer>) => segs.flatMap((p, i) => (i === 0 ? [p] : ['/', p]));

/** One hostile request for the route: a plain signed-in request with one to three of its parts replaced. */
export function hostileRequests(route: RouteTarget, base: Pick<FuzzBase, 'headers'>): fc.Arbitrary<HostileRequest> {
  const segs = urlOf(route).split('/');
  const params = segs.flatMap((s, i) => (s.startsWith(':') || s === '*' ? [i] : []));
  type Change = [string, (r: HostileRequest) => void];
  // a parameter (or, without one, an extra segment) replaced, the path perhaps under a prefix
  const at = fc.constantFrom(...(params.length ? params : [segs.length]));
  const prefix = fc.constantFrom('', '/sandbox/', '/api/v2');
  const path: fc.Arbitrary<Change> = fc.tuple(at, hostileSegment, prefix).map(([i, seg, before]) => [
    `path:${segs[i] ?? 'extra'}${before ? `:${before}` : ''}`,
    (r) => {
      const parts = [...segs.map((s, j) => (j === i ? seg : plain(s))), ...(i === segs.length ? [seg] : [])];
      const sandbox = typeof seg === 'string' ? seg.slice(0, 64) : 'x';
      r.path = [before === '/sandbox/' ? `/sandbox/${sandbox}` : before, ...joined(parts)];
    },
  ]);
  const query: fc.Arbitrary<Change> = hostileQuery(route).map(({ kind, parts }) => [
    kind,
    (r) => {
      r.query = parts;
    },
  ]);
  const headers: fc.Arbitrary<Change> = hostileHeaders.map(({ kind, set, twice }) => [
    kind,
    (r) => {
      const names = new Set(set.map(([n]) => n));
      r.headers = [...(twice ? r.headers : r.headers.filter(([n]) => !names.has(n))), ...set];
    },
  ]);
  const body: fc.Arbitrary<Change> = fc.tuple(hostileJson(route), contentType).map(([{ kind, body: bytes }, type]) => [
    `${kind} as ${type.slice(0, 40) || '(empty type)'}`,
    (r) => {
      r.headers = [...r.headers.filter(([n]) => n !== 'content-type'), ['content-type', type]];
      r.body = bytes;
    },
  ]);
  const change = fc.oneof(path, query, headers, { weight: 3, arbitrary: body });
  return fc.array(change, { minLength: 1, maxLength: 3 }).map((list) => {
    const sendsBody = !['GET', 'HEAD', 'OPTIONS'].includes(route.method);
    const jsonType: Header = ['content-type', 'application/json'];
    const r: HostileRequest = {
      kind: [],
      method: route.method,
      path: joined(segs.map(plain)),
      query: [],
      headers: [...Object.entries(base.headers), ...(sendsBody ? [jsonType] : [])],
      body: sendsBody ? utf8('{}') : undefined,
    };
    for (const [kind, apply] of list) {
      r.kind.push(kind);
      apply(r);
    }
    return r;
  });
}

/** The request target of a hostile request, byte for byte. */
export function targetOf(r: HostileRequest): Buffer {
  const bytes = (p: string | Buffer) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : p);
  const path = Buffer.concat(r.path.map(bytes));
  return r.query.length ? Buffer.concat([path, Buffer.from('?'), ...r.query.map(bytes)]) : path;
}

/** A request, its long parts cut, for a failure message. */
export function describeHostile(r: HostileRequest): string {
  const cut = (b: Buffer | string) => {
    const s = typeof b === 'string' ? b : b.toString('latin1');
    return s.length > 120 ? `${s.slice(0, 120)}…(${s.length})` : s;
  };
  return JSON.stringify({
    kind: r.kind,
    method: r.method,
    target: cut(targetOf(r)),
    headers: r.headers.map(([n, v]) => `${n}: ${cut(v)}`).slice(-8),
    body: r.body && cut(r.body),
  });
}
