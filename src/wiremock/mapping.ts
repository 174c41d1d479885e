// WireMock 3.13 stub mappings (docs/wiremock.md): the subset portal-mock serves, as a TypeBox schema, and
// parseMapping, which answers a mapping or WireMock's own 422 body naming the JSON pointer of the first field it
// refuses. Nothing is accepted and ignored: a field WireMock knows but we do not serve (XML matchers, webhooks…)
// is refused as unsupported, a field WireMock does not know as WireMock refuses it.
import { type Static, Type } from '@sinclair/typebox';
import { defaultRegexLimits, regexProblem } from '../shared/matchers.js';
import { parseJsonPath } from './jsonpath.js';

const strict = { additionalProperties: false } as const;
const Bool = Type.Optional(Type.Boolean());

/** A string value pattern of WireMock (StringValuePattern and the logical and/or over them). */
export const StringPattern = Type.Recursive(
  (Self) =>
    Type.Union([
      Type.Object({ equalTo: Type.String(), caseInsensitive: Bool }, strict),
      Type.Object({ contains: Type.String() }, strict),
      Type.Object({ doesNotContain: Type.String() }, strict),
      Type.Object({ matches: Type.String() }, strict),
      Type.Object({ doesNotMatch: Type.String() }, strict),
      Type.Object({ absent: Type.Literal(true) }, strict),
      Type.Object(
        { equalToJson: Type.Unknown(), ignoreArrayOrder: Bool, ignoreExtraElements: Bool },
        { ...strict, description: 'a JSON value, or its text' },
      ),
      Type.Object(
        {
          matchesJsonPath: Type.Union([
            Type.String(),
            Type.Unsafe<{ expression: string } & Static<typeof Self>>(
              // an expression and one pattern's fields beside it (parseMapping checks them)
              Type.Object({ expression: Type.String() }, { additionalProperties: true }),
            ),
          ]),
        },
        strict,
      ),
      Type.Object({ and: Type.Array(Self, { minItems: 1 }) }, strict),
      Type.Object({ or: Type.Array(Self, { minItems: 1 }) }, strict),
    ]),
  { $id: 'WireMockStringPattern' },
);
export type StringPattern = Static<typeof StringPattern>;

const PatternMap = Type.Record(Type.String(), StringPattern);
const Int = (min: number, max?: number) =>
  Type.Integer({ minimum: min, ...(max === undefined ? {} : { maximum: max }) });

export const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'ANY'] as const;

export const RequestPattern = Type.Object(
  {
    url: Type.Optional(Type.String()),
    urlPath: Type.Optional(Type.String()),
    urlPattern: Type.Optional(Type.String()),
    urlPathPattern: Type.Optional(Type.String()),
    urlPathTemplate: Type.Optional(Type.String()),
    pathParameters: Type.Optional(PatternMap),
    method: Type.Optional(Type.Union(methods.map((m) => Type.Literal(m)))),
    queryParameters: Type.Optional(PatternMap),
    headers: Type.Optional(PatternMap),
    cookies: Type.Optional(PatternMap),
    formParameters: Type.Optional(PatternMap),
    basicAuthCredentials: Type.Optional(Type.Object({ username: Type.String(), password: Type.String() }, strict)),
    bodyPatterns: Type.Optional(Type.Array(StringPattern)),
  },
  { ...strict, $id: 'WireMockRequestPattern' },
);
export type RequestPattern = Static<typeof RequestPattern>;

export const faults = [
  'CONNECTION_RESET_BY_PEER',
  'EMPTY_RESPONSE',
  'RANDOM_DATA_THEN_CLOSE',
  'MALFORMED_RESPONSE_CHUNK',
];

export const DelayDistribution = Type.Union([
  Type.Object(
    {
      type: Type.Literal('lognormal'),
      median: Int(0),
      sigma: Type.Number({ minimum: 0 }),
      maxValue: Type.Optional(Int(0)),
    },
    strict,
  ),
  Type.Object({ type: Type.Literal('uniform'), lower: Int(0), upper: Int(0) }, strict),
  Type.Object({ type: Type.Literal('fixed'), milliseconds: Int(0) }, strict),
]);
export type DelayDistribution = Static<typeof DelayDistribution>;

export const ResponseDefinition = Type.Object(
  {
    status: Type.Optional(Int(100, 599)),
    statusMessage: Type.Optional(Type.String()),
    headers: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]))),
    body: Type.Optional(Type.String()),
    jsonBody: Type.Optional(Type.Unknown()),
    base64Body: Type.Optional(Type.String()),
    bodyFileName: Type.Optional(Type.String()),
    fixedDelayMilliseconds: Type.Optional(Int(0)),
    delayDistribution: Type.Optional(DelayDistribution),
    chunkedDribbleDelay: Type.Optional(Type.Object({ numberOfChunks: Int(1), totalDuration: Int(0) }, strict)),
    fault: Type.Optional(Type.Union(faults.map((f) => Type.Literal(f)))),
    proxyBaseUrl: Type.Optional(Type.String()),
    transformers: Type.Optional(Type.Array(Type.Literal('response-template'))),
  },
  { ...strict, $id: 'WireMockResponseDefinition' },
);
export type ResponseDefinition = Static<typeof ResponseDefinition>;

const uuidText = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

export const StubMapping = Type.Object(
  {
    id: Type.String({ pattern: uuidText }),
    uuid: Type.String({ pattern: uuidText }),
    name: Type.Optional(Type.String()),
    priority: Type.Optional(Int(1)),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    persistent: Type.Optional(Type.Boolean()),
    scenarioName: Type.Optional(Type.String()),
    requiredScenarioState: Type.Optional(Type.String()),
    newScenarioState: Type.Optional(Type.String()),
    request: RequestPattern,
    response: ResponseDefinition,
  },
  { ...strict, $id: 'WireMockStubMapping' },
);
export type StubMapping = Static<typeof StubMapping>;

/** WireMock's error body for a mapping it cannot take (HTTP 422). */
export const WireMockErrors = Type.Object(
  {
    errors: Type.Array(
      Type.Object({
        code: Type.Integer(),
        source: Type.Object({ pointer: Type.String() }),
        title: Type.String(),
        detail: Type.String(),
      }),
    ),
  },
  { $id: 'WireMockErrors' },
);
export type WireMockErrors = Static<typeof WireMockErrors>;

/** The bounds of one mapping (flags later; a larger value is refused with the 422). */
export type MappingLimits = { maxDelayMs: number; maxChunks: number; maxTemplateChars: number; maxProgram: number };
export const defaultMappingLimits: MappingLimits = {
  maxDelayMs: 60_000,
  maxChunks: 1000,
  maxTemplateChars: 65_536,
  maxProgram: defaultRegexLimits.maxProgram,
};

/** WireMock's title for what it cannot read; ours for what it reads but portal-mock does not serve. */
const invalidTitle = 'Error parsing JSON';
const unsupportedTitle = 'Unsupported by portal-mock';

class Refusal extends Error {
  readonly pointer: string;
  readonly title: string;
  readonly detail: string;
  constructor(pointer: string, title: string, detail: string) {
    super(detail);
    this.pointer = pointer;
    this.title = title;
    this.detail = detail;
  }
}
const invalid = (pointer: string, detail: string) => new Refusal(pointer, invalidTitle, detail);
const unsupported = (pointer: string, detail: string) => new Refusal(pointer, unsupportedTitle, detail);

const ptr = (base: string, key: string | number) => `${base}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const typeName = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

function expectString(v: unknown, at: string): string {
  if (typeof v !== 'string') throw invalid(at, `expected a string, found ${typeName(v)}`);
  return v;
}
function expectBool(v: unknown, at: string): boolean {
  if (typeof v !== 'boolean') throw invalid(at, `expected true or false, found ${typeName(v)}`);
  return v;
}
function expectInt(v: unknown, at: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw invalid(at, `expected an integer, found ${typeName(v)}`);
  if (v < min || v > max) throw invalid(at, `expected an integer from ${min} to ${max}, found ${v}`);
  return v;
}
function expectObject(v: unknown, at: string): Record<string, unknown> {
  if (!isObject(v)) throw invalid(at, `expected an object, found ${typeName(v)}`);
  return v;
}

/** Fields WireMock knows that portal-mock does not serve, and why (the detail of the 422). */
const unsupportedFields: Record<string, string> = {
  postServeActions: 'webhooks and post-serve actions are not served',
  serveEventListeners: 'serve event listeners are not served',
  insertionIndex: 'the insertion index is kept by the server, not given',
  customMatcher: 'custom (Java extension) matchers do not exist here',
  multipartPatterns: 'multipart matching is not served',
  host: 'host matching is not served: a sandbox has one host',
  port: 'port matching is not served: a sandbox has one port',
  scheme: 'scheme matching is not served',
  clientIp: 'client IP matching is not served',
  transformerParameters: 'transformer parameters are not served (parameters.* in templates)',
  proxyUrlPrefixToRemove: 'proxy URL prefix removal is not served',
  additionalProxyRequestHeaders: 'additional proxy request headers are not served',
  removeProxyRequestHeaders: 'proxy header removal is not served',
  fromConfiguredStub: 'fromConfiguredStub is not served',
  equalToXml: 'XML matching is not served (match the body as text with contains or matches)',
  matchesXPath: 'XPath matching is not served (match the body as text with contains or matches)',
  binaryEqualTo: 'binary matching is not served',
  before: 'date-time matchers are not served',
  after: 'date-time matchers are not served',
  equalToDateTime: 'date-time matchers are not served',
  matchesJsonSchema: 'JSON Schema matching is not served',
  not: 'the not matcher is not served (use doesNotMatch or doesNotContain)',
  hasExactly: 'multi-value matchers are not served',
  includes: 'multi-value matchers are not served',
};

const patternOps = ['equalTo', 'contains', 'doesNotContain', 'matches', 'doesNotMatch', 'absent'] as const;
const jsonOps = ['equalToJson', 'matchesJsonPath', 'and', 'or'] as const;
const patternModifiers: Record<string, string> = {
  caseInsensitive: 'equalTo',
  ignoreArrayOrder: 'equalToJson',
  ignoreExtraElements: 'equalToJson',
};

/** The parsed values of equalToJson patterns given as JSON text, computed once when the mapping is parsed. */
export const parsedJson = new WeakMap<object, unknown>();

function checkPattern(v: unknown, at: string, limits: MappingLimits, allowExpression = false): void {
  const p = expectObject(v, at);
  const keys = Object.keys(p);
  let op: string | undefined;
  for (const key of keys) {
    if (key === 'expression' && allowExpression) continue;
    if (unsupportedFields[key]) throw unsupported(ptr(at, key), unsupportedFields[key]!);
    const isOp = (patternOps as readonly string[]).includes(key) || (jsonOps as readonly string[]).includes(key);
    if (isOp) {
      if (op !== undefined) throw invalid(ptr(at, key), `a pattern has one operator; this one has ${op} and ${key}`);
      op = key;
    } else if (!patternModifiers[key])
      throw invalid(ptr(at, key), `${JSON.stringify(p)} is not a valid match operation`);
  }
  if (op === undefined) throw invalid(at, `${JSON.stringify(p)} is not a valid match operation`);
  for (const key of keys) {
    const owner = patternModifiers[key];
    if (owner && owner !== op) throw invalid(ptr(at, key), `${key} applies to ${owner}, not to ${op}`);
  }
  const value = p[op];
  const here = ptr(at, op);
  for (const key of keys) if (patternModifiers[key]) expectBool(p[key], ptr(at, key));
  switch (op) {
    case 'absent':
      if (value !== true) throw unsupported(here, 'only absent: true is served (a present value: matches ".*")');
      return;
    case 'matches':
    case 'doesNotMatch': {
      const problem = regexProblem(fullMatch(expectString(value, here)), limits.maxProgram);
      if (problem) throw invalid(here, `expected ${problem}`);
      return;
    }
    case 'equalToJson':
      if (typeof value === 'string') {
        try {
          parsedJson.set(p, JSON.parse(value));
        } catch (err) {
          throw invalid(here, `expected JSON text: ${(err as Error).message}`);
        }
      } else if (value === undefined) throw invalid(here, 'expected a JSON value');
      return;
    case 'matchesJsonPath':
      if (typeof value === 'string') {
        checkJsonPath(value, here);
      } else {
        const nested = expectObject(value, here);
        checkJsonPath(expectString(nested.expression, ptr(here, 'expression')), ptr(here, 'expression'));
        checkPattern(nested, here, limits, true);
      }
      return;
    case 'and':
    case 'or': {
      if (!Array.isArray(value) || value.length === 0) throw invalid(here, 'expected a non-empty array of patterns');
      for (const [i, item] of value.entries()) checkPattern(item, ptr(here, i), limits);
      return;
    }
    default:
      expectString(value, here);
  }
}

function checkJsonPath(expression: string, at: string): void {
  const parsed = parseJsonPath(expression);
  if ('problem' in parsed) throw invalid(at, `expected a JSONPath expression: ${parsed.problem}`);
}

/** Java's Matcher.matches() reads the whole text: RE2 finds anywhere, so the pattern is anchored. */
export const fullMatch = (pattern: string) => `^(?:${pattern})$`;

function checkPatternMap(v: unknown, at: string, limits: MappingLimits): void {
  const map = expectObject(v, at);
  for (const [name, pattern] of Object.entries(map)) checkPattern(pattern, ptr(at, name), limits);
}

const urlKeys = ['url', 'urlPath', 'urlPattern', 'urlPathPattern', 'urlPathTemplate'] as const;

function checkRequest(v: unknown, at: string, limits: MappingLimits): void {
  const r = expectObject(v, at);
  let urlKey: string | undefined;
  for (const [key, value] of Object.entries(r)) {
    const here = ptr(at, key);
    if (unsupportedFields[key]) throw unsupported(here, unsupportedFields[key]!);
    if ((urlKeys as readonly string[]).includes(key)) {
      // WireMock keeps one of several and drops the rest; a mapping that gives two is refused here
      if (urlKey !== undefined)
        throw invalid(here, `a request has one of ${urlKeys.join(', ')}; this one has ${urlKey} too`);
      urlKey = key;
      const text = expectString(value, here);
      if (key === 'urlPattern' || key === 'urlPathPattern') {
        const problem = regexProblem(fullMatch(text), limits.maxProgram);
        if (problem) throw invalid(here, `expected ${problem}`);
      }
      if (key === 'urlPathTemplate' && !/^\/(?:[^{}]*|\{[A-Za-z_][\w-]*\})*$/.test(text))
        throw invalid(here, 'expected a path template such as /contacts/{contactId}/addresses/{addressId}');
      continue;
    }
    switch (key) {
      case 'method':
        if (typeof value !== 'string' || !(methods as readonly string[]).includes(value))
          throw invalid(here, `expected one of ${methods.join(', ')}`);
        break;
      case 'pathParameters':
      case 'queryParameters':
      case 'headers':
      case 'cookies':
      case 'formParameters':
        checkPatternMap(value, here, limits);
        break;
      case 'basicAuthCredentials': {
        const c = expectObject(value, here);
        for (const [k, s] of Object.entries(c)) {
          if (k !== 'username' && k !== 'password') throw invalid(ptr(here, k), `Unrecognized field "${k}"`);
          expectString(s, ptr(here, k));
        }
        for (const k of ['username', 'password']) if (c[k] === undefined) throw invalid(ptr(here, k), 'required');
        break;
      }
      case 'bodyPatterns':
        if (!Array.isArray(value)) throw invalid(here, `expected an array, found ${typeName(value)}`);
        for (const [i, item] of value.entries()) checkPattern(item, ptr(here, i), limits);
        break;
      default:
        throw invalid(here, `Unrecognized field "${key}" (class RequestPattern), not marked as ignorable`);
    }
  }
  if (r.pathParameters !== undefined && urlKey !== 'urlPathTemplate')
    throw invalid(ptr(at, 'pathParameters'), 'pathParameters need a urlPathTemplate');
  if (urlKey === 'urlPathTemplate') {
    const names = [...String(r.urlPathTemplate).matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    for (const name of Object.keys((r.pathParameters as object | undefined) ?? {}))
      if (!names.includes(name))
        throw invalid(
          ptr(ptr(at, 'pathParameters'), name),
          `the template ${String(r.urlPathTemplate)} has no {${name}}`,
        );
  }
}

const bodyKeys = ['body', 'jsonBody', 'base64Body', 'bodyFileName'] as const;

function checkResponse(v: unknown, at: string, limits: MappingLimits): void {
  const r = expectObject(v, at);
  let bodyKey: string | undefined;
  for (const [key, value] of Object.entries(r)) {
    const here = ptr(at, key);
    if (unsupportedFields[key]) throw unsupported(here, unsupportedFields[key]!);
    if ((bodyKeys as readonly string[]).includes(key)) {
      if (bodyKey !== undefined)
        throw invalid(here, `a response has one of ${bodyKeys.join(', ')}; this one has ${bodyKey} too`);
      bodyKey = key;
      if (key === 'jsonBody') continue;
      const text = expectString(value, here);
      if (key === 'base64Body' && !/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text))
        throw invalid(here, 'expected base64 text');
      if (key === 'bodyFileName' && (text.startsWith('/') || text.split(/[\\/]/).some((s) => s === '..' || s === '')))
        throw invalid(here, 'expected a relative file name under __files, without .. or empty segments');
      if ((key === 'body' || key === 'bodyFileName') && text.length > limits.maxTemplateChars)
        throw invalid(here, `expected at most ${limits.maxTemplateChars} characters`);
      continue;
    }
    switch (key) {
      case 'status':
        expectInt(value, here, 100, 599);
        break;
      case 'statusMessage':
        if (/[\r\n]/.test(expectString(value, here))) throw invalid(here, 'expected one line');
        break;
      case 'headers':
        for (const [name, h] of Object.entries(expectObject(value, here))) {
          const at2 = ptr(here, name);
          if (!/^[!#$%&'*+.^_`|~\w-]+$/.test(name)) throw invalid(at2, 'expected an HTTP header name');
          const values = Array.isArray(h) ? h : [h];
          values.forEach((s, i) => {
            const at3 = Array.isArray(h) ? ptr(at2, i) : at2;
            if (/[\r\n\0]/.test(expectString(s, at3)))
              throw invalid(at3, 'expected a header value without line breaks');
          });
        }
        break;
      case 'fixedDelayMilliseconds':
        expectInt(value, here, 0, limits.maxDelayMs);
        break;
      case 'delayDistribution':
        checkDistribution(value, here, limits);
        break;
      case 'chunkedDribbleDelay': {
        const d = expectObject(value, here);
        for (const k of Object.keys(d))
          if (k !== 'numberOfChunks' && k !== 'totalDuration') throw invalid(ptr(here, k), `Unrecognized field "${k}"`);
        expectInt(d.numberOfChunks, ptr(here, 'numberOfChunks'), 1, limits.maxChunks);
        expectInt(d.totalDuration, ptr(here, 'totalDuration'), 0, limits.maxDelayMs);
        break;
      }
      case 'fault':
        if (typeof value !== 'string' || !faults.includes(value))
          throw invalid(here, `expected one of ${faults.join(', ')}`);
        break;
      case 'proxyBaseUrl': {
        const text = expectString(value, here);
        if (!URL.canParse(text) || !/^https?:$/.test(new URL(text).protocol))
          throw invalid(here, 'expected an http or https URL');
        break;
      }
      case 'transformers':
        if (!Array.isArray(value)) throw invalid(here, `expected an array, found ${typeName(value)}`);
        value.forEach((name, i) => {
          if (name !== 'response-template')
            throw unsupported(ptr(here, i), 'the one transformer served is "response-template"');
        });
        break;
      default:
        throw invalid(here, `Unrecognized field "${key}" (class ResponseDefinition), not marked as ignorable`);
    }
  }
}

function checkDistribution(v: unknown, at: string, limits: MappingLimits): void {
  const d = expectObject(v, at);
  const fields: Record<string, string[]> = {
    lognormal: ['median', 'sigma', 'maxValue'],
    uniform: ['lower', 'upper'],
    fixed: ['milliseconds'],
  };
  if (typeof d.type !== 'string' || !fields[d.type])
    throw invalid(ptr(at, 'type'), 'expected one of lognormal, uniform, fixed');
  const allowed = fields[d.type]!;
  for (const key of Object.keys(d))
    if (key !== 'type' && !allowed.includes(key))
      throw invalid(ptr(at, key), `Unrecognized field "${key}" for ${d.type}`);
  for (const key of allowed) {
    if (key === 'maxValue' && d.maxValue === undefined) continue;
    if (key === 'sigma') {
      if (typeof d.sigma !== 'number' || d.sigma < 0 || d.sigma > 10)
        throw invalid(ptr(at, key), 'expected a number from 0 to 10');
    } else expectInt(d[key], ptr(at, key), 0, limits.maxDelayMs);
  }
  if (d.type === 'uniform' && (d.lower as number) > (d.upper as number))
    throw invalid(ptr(at, 'upper'), 'expected upper ≥ lower');
}

const uuidPattern = new RegExp(uuidText, 'i');

/**
 * A mapping as WireMock's admin API takes it (parsed JSON), checked field by field in the order given: the mapping
 * with its id and uuid set (`newId` when it gives none), or WireMock's 422 body naming the first field refused.
 */
export function parseMapping(
  json: unknown,
  newId: () => string,
  limits: MappingLimits = defaultMappingLimits,
): { mapping: StubMapping } | { status: 422; errors: WireMockErrors } {
  try {
    const m = expectObject(json, '');
    for (const [key, value] of Object.entries(m)) {
      const here = ptr('', key);
      if (unsupportedFields[key]) throw unsupported(here, unsupportedFields[key]!);
      switch (key) {
        case 'id':
        case 'uuid':
          if (!uuidPattern.test(expectString(value, here))) throw invalid(here, 'expected a UUID');
          break;
        case 'name':
        case 'scenarioName':
        case 'requiredScenarioState':
        case 'newScenarioState':
          expectString(value, here);
          break;
        case 'priority':
          expectInt(value, here, 1);
          break;
        case 'metadata':
          expectObject(value, here);
          break;
        case 'persistent':
          expectBool(value, here);
          break;
        case 'request':
          checkRequest(value, here, limits);
          break;
        case 'response':
          checkResponse(value, here, limits);
          break;
        default:
          throw invalid(here, `Unrecognized field "${key}" (class StubMapping), not marked as ignorable`);
      }
    }
    if (m.id !== undefined && m.uuid !== undefined && String(m.id).toLowerCase() !== String(m.uuid).toLowerCase())
      throw invalid('/uuid', 'expected the same UUID as id');
    for (const key of ['requiredScenarioState', 'newScenarioState'])
      if (m[key] !== undefined && m.scenarioName === undefined)
        throw invalid(ptr('', key), `${key} needs a scenarioName`);
    if (m.request === undefined) throw invalid('/request', 'a mapping needs a request pattern');
    const id = String(m.id ?? m.uuid ?? newId()).toLowerCase();
    const mapping = { ...m, id, uuid: id, response: m.response ?? { status: 200 } } as StubMapping;
    return { mapping };
  } catch (err) {
    if (!(err instanceof Refusal)) throw err;
    const errors = { errors: [{ code: 10, source: { pointer: err.pointer }, title: err.title, detail: err.detail }] };
    return { status: 422, errors };
  }
}
