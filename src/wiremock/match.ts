// Request matching of WireMock stub mappings (docs/wiremock.md): matchRequest answers whether one mapping matches a
// request, or how far it is (0 to 1, WireMock's near-miss ranking roughly: the URL weighs 10, the method 3, every
// other part 1; an equalTo part is as far as its edit distance); findStub picks the stub WireMock would serve:
// lowest priority number first (5 when not given), then the newest. Regexes run on the project's bounded RE2.
import { compileRegex, type CompiledRegex, RegexBudget } from '../shared/matchers.js';
import { evaluateJsonPath, parseJsonPath } from './jsonpath.js';
import { fullMatch, parsedJson, type StringPattern, type StubMapping } from './mapping.js';

/** A request as the matcher reads it: `url` is the path and query as received (still percent-encoded). */
export type WireRequest = {
  method: string;
  url: string;
  headers: Record<string, string | readonly string[] | undefined>;
  body: string;
};

/** The scenario states of one store (a sandbox): scenario name → state; a scenario not in it is "Started". */
export type ScenarioStates = Map<string, string>;
export const startedState = 'Started';

export type MatchResult =
  | { matched: true; pathParameters: Record<string, string> }
  | { matched: false; distance: number };

export const defaultPriority = 5;

/** What is read of a request once, however many stubs look at it. */
class RequestView {
  readonly path: string;
  readonly queryString: string;
  private parsedQuery?: Map<string, string[]>;
  private parsedCookies?: Map<string, string[]>;
  private parsedForm?: Map<string, string[]>;
  private json?: { value: unknown } | null;
  readonly budget = new RegexBudget();
  readonly request: WireRequest;
  constructor(request: WireRequest) {
    this.request = request;
    const q = request.url.indexOf('?');
    this.path = q < 0 ? request.url : request.url.slice(0, q);
    this.queryString = q < 0 ? '' : request.url.slice(q + 1);
  }
  header(name: string): string[] | undefined {
    const key = Object.keys(this.request.headers).find((k) => k.toLowerCase() === name.toLowerCase());
    const value = key === undefined ? undefined : this.request.headers[key];
    return value === undefined ? undefined : typeof value === 'string' ? [value] : [...value];
  }
  get query(): Map<string, string[]> {
    this.parsedQuery ??= parseForm(this.queryString);
    return this.parsedQuery;
  }
  get cookies(): Map<string, string[]> {
    if (!this.parsedCookies) {
      this.parsedCookies = new Map();
      for (const line of this.header('cookie') ?? [])
        for (const part of line.split(';')) {
          const eq = part.indexOf('=');
          if (eq < 0) continue;
          const name = part.slice(0, eq).trim();
          this.parsedCookies.set(name, [...(this.parsedCookies.get(name) ?? []), part.slice(eq + 1).trim()]);
        }
    }
    return this.parsedCookies;
  }
  get form(): Map<string, string[]> {
    const type = this.header('content-type')?.[0] ?? '';
    this.parsedForm ??= /^application\/x-www-form-urlencoded/i.test(type) ? parseForm(this.request.body) : new Map();
    return this.parsedForm;
  }
  /** The body as JSON, or null when it is not JSON. */
  get bodyJson(): { value: unknown } | null {
    if (this.json === undefined) this.json = parseJsonText(this.request.body);
    return this.json;
  }
}

/** Decodes like Java's URLDecoder (+ is a space); a malformed escape is left as it is. */
export function decodeForm(text: string): string {
  const plus = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(plus);
  } catch {
    return plus;
  }
}

function parseForm(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (text === '') return out;
  for (const pair of text.split('&')) {
    const eq = pair.indexOf('=');
    const name = decodeForm(eq < 0 ? pair : pair.slice(0, eq));
    out.set(name, [...(out.get(name) ?? []), eq < 0 ? '' : decodeForm(pair.slice(eq + 1))]);
  }
  return out;
}

function parseJsonText(text: string): { value: unknown } | null {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return null;
  }
}

/** Texts longer than this are as far as can be when unequal: the edit distance is quadratic. */
const maxDistanceChars = 2000;

/** The edit distance of two texts over the longer one's length (0: equal, 1: nothing alike). */
export function textDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length > maxDistanceChars || b.length > maxDistanceChars) return 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]! / Math.max(a.length, b.length);
}

const regexes = new WeakMap<object, Map<string, CompiledRegex>>();

/** A full-match regex of a mapping's pattern, compiled once and kept with the object that holds it. */
function regexMatches(holder: object, pattern: string, text: string, budget: RegexBudget): boolean {
  let byText = regexes.get(holder);
  if (!byText) {
    byText = new Map();
    regexes.set(holder, byText);
  }
  let entry = byText.get(pattern);
  if (!entry) {
    entry = compileRegex(fullMatch(pattern));
    byText.set(pattern, entry);
  }
  if (text.length > budget.maxText) return false;
  return budget.take(text.length, entry.program) && entry.re.test(text);
}

const jsonPlaceholder = /^\$\{json-unit\.(ignore|any-string|any-number|any-boolean)\}$/;

/** JSON equality as WireMock's equalToJson (JsonUnit) with its options and the json-unit placeholders. */
export function jsonEquals(
  expected: unknown,
  actual: unknown,
  ignoreArrayOrder: boolean,
  ignoreExtra: boolean,
): boolean {
  if (typeof expected === 'string') {
    const placeholder = jsonPlaceholder.exec(expected)?.[1];
    if (placeholder === 'ignore') return actual !== undefined;
    if (placeholder === 'any-string') return typeof actual === 'string';
    if (placeholder === 'any-number') return typeof actual === 'number';
    if (placeholder === 'any-boolean') return typeof actual === 'boolean';
  }
  if (expected === null || typeof expected !== 'object') return expected === actual;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return false;
    if (ignoreExtra ? actual.length < expected.length : actual.length !== expected.length) return false;
    if (!ignoreArrayOrder) return expected.every((e, i) => jsonEquals(e, actual[i], ignoreArrayOrder, ignoreExtra));
    // each expected item takes the first unused actual item equal to it (greedy, so at most n × m comparisons)
    const used = new Set<number>();
    return expected.every((e) => {
      const i = actual.findIndex((a, k) => !used.has(k) && jsonEquals(e, a, ignoreArrayOrder, ignoreExtra));
      if (i >= 0) used.add(i);
      return i >= 0;
    });
  }
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
  const a = actual as Record<string, unknown>;
  const e = expected as Record<string, unknown>;
  if (!ignoreExtra && Object.keys(a).some((k) => !Object.hasOwn(e, k))) return false;
  return Object.keys(e).every((k) =>
    jsonEquals(e[k], Object.hasOwn(a, k) ? a[k] : undefined, ignoreArrayOrder, ignoreExtra),
  );
}

/** The text a JSONPath result is matched as: a string as it is, anything else as JSON. */
const resultText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** How far a value (undefined: absent) is from a pattern: 0 is a match. */
export function patternDistance(p: StringPattern, value: string | undefined, budget: RegexBudget): number {
  if ('absent' in p) return value === undefined ? 0 : 1;
  if ('and' in p) return Math.max(...p.and.map((q) => patternDistance(q, value, budget)));
  if ('or' in p) return Math.min(...p.or.map((q) => patternDistance(q, value, budget)));
  if (value === undefined) return 1;
  if ('equalTo' in p)
    return p.caseInsensitive
      ? textDistance(p.equalTo.toLowerCase(), value.toLowerCase())
      : textDistance(p.equalTo, value);
  if ('contains' in p) return value.includes(p.contains) ? 0 : 1;
  if ('doesNotContain' in p) return value.includes(p.doesNotContain) ? 1 : 0;
  if ('matches' in p) return regexMatches(p, p.matches, value, budget) ? 0 : 1;
  if ('doesNotMatch' in p) return regexMatches(p, p.doesNotMatch, value, budget) ? 1 : 0;
  const json = parseJsonText(value);
  if (json === null) return 1;
  if ('equalToJson' in p) {
    const expected = typeof p.equalToJson === 'string' ? parsedJson.get(p) : p.equalToJson;
    return jsonEquals(expected, json.value, p.ignoreArrayOrder === true, p.ignoreExtraElements === true) ? 0 : 1;
  }
  return jsonPathDistance(p.matchesJsonPath, json.value, budget);
}

/**
 * The pattern nested in a `matchesJsonPath` object, made once per mapping: what the parser attached to the object
 * (the parsed text of an `equalToJson`, the compiled regex) is keyed by the pattern object, so a copy made on each
 * request would miss it (an `equalToJson` text nested here never matched).
 */
const nestedPatterns = new WeakMap<object, StringPattern>();
function nestedPattern(m: StringPattern & { expression: string }): StringPattern {
  let nested = nestedPatterns.get(m);
  if (nested === undefined) {
    const { expression: _, ...rest } = m;
    nested = rest as StringPattern;
    if (parsedJson.has(m)) parsedJson.set(nested, parsedJson.get(m));
    nestedPatterns.set(m, nested);
  }
  return nested;
}

function jsonPathDistance(m: string | (StringPattern & { expression: string }), value: unknown, budget: RegexBudget) {
  const path = parseJsonPath(typeof m === 'string' ? m : m.expression);
  if ('problem' in path) return 1;
  const found = evaluateJsonPath(path, value);
  if (found === null) return 1;
  if (typeof m === 'string') {
    if (found.length === 0) return 1;
    // a definite path to null or to an empty list or object selects nothing (Jayway, as WireMock reads it)
    if (path.definite) {
      const v = found[0];
      if (v === null || (typeof v === 'object' && Object.keys(v).length === 0)) return 1;
    }
    return 0;
  }
  const pattern = nestedPattern(m);
  if (found.length === 0) return patternDistance(pattern, undefined, budget);
  if (path.definite) return patternDistance(pattern, found[0] === null ? undefined : resultText(found[0]), budget);
  return Math.min(...found.map((v) => patternDistance(pattern, resultText(v), budget)));
}

/** The path parameters of a template such as /contacts/{id}, or null when the path does not fit it. */
function templateParameters(template: string, path: string): Record<string, string> | null {
  const t = template.split('/');
  const p = path.split('/');
  if (t.length !== p.length) return null;
  const params: Record<string, string> = {};
  for (const [i, part] of t.entries()) {
    const name = /^\{(.+)\}$/.exec(part)?.[1];
    if (name !== undefined) {
      if (p[i] === '') return null;
      params[name] = decodeForm(p[i]!.replace(/\+/g, '%2B'));
    } else if (part !== p[i]) return null;
  }
  return params;
}

type Part = { weight: number; distance: number };

function urlPart(mapping: StubMapping, view: RequestView): { part: Part; params: Record<string, string> } {
  const r = mapping.request;
  const none = { params: {} };
  const d = (matched: boolean) => ({ weight: 10, distance: matched ? 0 : 1 });
  if (r.url !== undefined) return { ...none, part: { weight: 10, distance: textDistance(r.url, view.request.url) } };
  if (r.urlPath !== undefined) return { ...none, part: { weight: 10, distance: textDistance(r.urlPath, view.path) } };
  if (r.urlPattern !== undefined)
    return { ...none, part: d(regexMatches(r, r.urlPattern, view.request.url, view.budget)) };
  if (r.urlPathPattern !== undefined)
    return { ...none, part: d(regexMatches(r, r.urlPathPattern, view.path, view.budget)) };
  if (r.urlPathTemplate !== undefined) {
    const params = templateParameters(r.urlPathTemplate, view.path);
    return { params: params ?? {}, part: d(params !== null) };
  }
  return { ...none, part: d(true) };
}

/** The best distance of a pattern over the values of a multi-valued part (a query parameter sent twice). */
function valuesDistance(p: StringPattern, values: string[] | undefined, budget: RegexBudget): number {
  if (values === undefined || values.length === 0) return patternDistance(p, undefined, budget);
  return Math.min(...values.map((v) => patternDistance(p, v, budget)));
}

/**
 * Whether a mapping matches a request in the given scenario states, or how far it is (for near misses). A mapping
 * of a scenario matches only in its required state.
 */
export function matchRequest(
  mapping: StubMapping,
  request: WireRequest,
  states: ReadonlyMap<string, string>,
): MatchResult {
  return matchView(mapping, new RequestView(request), states);
}

function matchView(mapping: StubMapping, view: RequestView, states: ReadonlyMap<string, string>): MatchResult {
  const r = mapping.request;
  const { part, params } = urlPart(mapping, view);
  const parts: Part[] = [part];
  const method = r.method ?? 'ANY';
  parts.push({ weight: 3, distance: method === 'ANY' || method === view.request.method.toUpperCase() ? 0 : 1 });
  const b = view.budget;
  const each = (map: Record<string, StringPattern> | undefined, values: (name: string) => string[] | undefined) => {
    for (const [name, p] of Object.entries(map ?? {}))
      parts.push({ weight: 1, distance: valuesDistance(p, values(name), b) });
  };
  each(r.pathParameters, (name) => (params[name] === undefined ? undefined : [params[name]!]));
  each(r.queryParameters, (name) => view.query.get(name));
  each(r.headers, (name) => view.header(name));
  each(r.cookies, (name) => view.cookies.get(name));
  each(r.formParameters, (name) => view.form.get(name));
  if (r.basicAuthCredentials) {
    const { username, password } = r.basicAuthCredentials;
    const expected = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
    parts.push({ weight: 1, distance: valuesDistance({ equalTo: expected }, view.header('authorization'), b) });
  }
  for (const p of r.bodyPatterns ?? []) parts.push({ weight: 1, distance: patternDistance(p, view.request.body, b) });
  if (mapping.scenarioName !== undefined && mapping.requiredScenarioState !== undefined) {
    const state = states.get(mapping.scenarioName) ?? startedState;
    parts.push({ weight: 1, distance: state === mapping.requiredScenarioState ? 0 : 1 });
  }
  const total = parts.reduce((s, p) => s + p.weight, 0);
  const distance = parts.reduce((s, p) => s + p.weight * p.distance, 0) / total;
  return distance === 0 ? { matched: true, pathParameters: params } : { matched: false, distance };
}

/** Mappings in the order WireMock tries them: priority (lower first, 5 when not given), then newest first. */
export function servingOrder(mappings: readonly StubMapping[]): StubMapping[] {
  return mappings
    .map((m, i) => ({ m, i }))
    .sort((a, b) => (a.m.priority ?? defaultPriority) - (b.m.priority ?? defaultPriority) || b.i - a.i)
    .map(({ m }) => m);
}

export type Found = { mapping: StubMapping; pathParameters: Record<string, string> };

/**
 * The stub WireMock serves for a request (mappings in insertion order, oldest first), or undefined with the
 * nearest misses (at most `nearMisses`, nearest first). Pure: serving it (the scenario's next state) is
 * advanceScenario's.
 */
export function findStub(
  mappings: readonly StubMapping[],
  request: WireRequest,
  states: ReadonlyMap<string, string>,
  nearMisses = 3,
): FindResult {
  return findInOrder(servingOrder(mappings), request, states, nearMisses);
}

export type FindResult =
  | { found: Found }
  | { found: undefined; nearMisses: Array<{ mapping: StubMapping; distance: number }> };

/** findStub over mappings already in serving order (WireMockStubs.servingOrder keeps it worked out). */
export function findInOrder(
  ordered: readonly StubMapping[],
  request: WireRequest,
  states: ReadonlyMap<string, string>,
  nearMisses = 3,
): FindResult {
  const view = new RequestView(request);
  const misses: Array<{ mapping: StubMapping; distance: number }> = [];
  for (const mapping of ordered) {
    const result = matchView(mapping, view, states);
    if (result.matched) return { found: { mapping, pathParameters: result.pathParameters } };
    misses.push({ mapping, distance: result.distance });
  }
  misses.sort((a, b) => a.distance - b.distance);
  return { found: undefined, nearMisses: misses.slice(0, nearMisses) };
}

/** Serving a mapping moves its scenario to its new state (the states hold at most one entry per scenario named). */
export function advanceScenario(mapping: StubMapping, states: ScenarioStates): void {
  if (mapping.scenarioName !== undefined && mapping.newScenarioState !== undefined)
    states.set(mapping.scenarioName, mapping.newScenarioState);
}
