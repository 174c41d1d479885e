// WireMock's response templating (`transformers: ["response-template"]`, docs/wiremock.md) on Handlebars: the
// request model (request.url, request.path and its segments and parameters, request.query.x, request.headers.x,
// request.cookies.x, request.body, request.method…) and the helpers WireMock's documentation uses. `now` and
// random values come from an injected clock and random source, so the same seed and clock give the same bytes.
// Bounded: a template's size (checked when the mapping is given), each render's output and its block iterations;
// Handlebars' own runtime refuses prototype properties and methods (its defaults, kept explicit here).
import { firstMatch } from '../shared/matchers.js';
import Handlebars from 'handlebars';
import { evaluateJsonPath, parseJsonPath } from './jsonpath.js';
import { decodeForm, type WireRequest } from './match.js';

export type TemplateContext = {
  /** the time `now` renders */
  now: Date;
  /** a random source in [0, 1), seeded by the caller */
  random: () => number;
  /** the base URL the request came to (request.baseUrl), e.g. http://localhost:8080/sandbox/x/wiremock */
  baseUrl: string;
  pathParameters: Record<string, string>;
};

export type TemplateLimits = { maxOutputChars: number; maxIterations: number; maxRandomLength: number };
export const defaultTemplateLimits: TemplateLimits = {
  maxOutputChars: 1_048_576,
  maxIterations: 100_000,
  maxRandomLength: 10_000,
};

class TemplateBound extends Error {}

/** WireMock's ListOrSingle: renders as its one value, or as a Java list ("[a, b]"); `.[1]` reads the second. */
class ListOrSingle extends Array<string> {
  override toString(): string {
    return this.length === 1 ? this[0]! : `[${this.join(', ')}]`;
  }
}
const listOf = (values: readonly string[]) => {
  const list = new ListOrSingle();
  list.push(...values);
  return list;
};

/** An object whose own keys are looked up without regard to case (request.headers.X-Request-Id). */
function caseless<T>(entries: Array<[string, T]>): Record<string, T> {
  const target: Record<string, T> = Object.create(null);
  for (const [k, v] of entries) target[k.toLowerCase()] = v;
  const key = (p: string | symbol) => (typeof p === 'string' ? p.toLowerCase() : p);
  return new Proxy(target, {
    get: (t, p) => Reflect.get(t, key(p)),
    has: (t, p) => Reflect.has(t, key(p)),
    getOwnPropertyDescriptor: (t, p) => Reflect.getOwnPropertyDescriptor(t, key(p)),
  });
}

function multiMap(text: string): Record<string, ListOrSingle> {
  const out: Record<string, ListOrSingle> = Object.create(null);
  if (text === '') return out;
  for (const pair of text.split('&')) {
    const eq = pair.indexOf('=');
    const name = decodeForm(eq < 0 ? pair : pair.slice(0, eq));
    out[name] ??= new ListOrSingle();
    out[name].push(eq < 0 ? '' : decodeForm(pair.slice(eq + 1)));
  }
  return out;
}

/** request.path: renders as the path; `.[n]` is a segment, `.name` a path template's parameter. */
function pathModel(path: string, params: Record<string, string>) {
  const segments = path.split('/').filter((s) => s !== '');
  const model: Record<string, unknown> = { ...params, toString: undefined };
  segments.forEach((s, i) => {
    model[i] = s;
  });
  Object.defineProperty(model, 'toString', { value: () => path, enumerable: false });
  return model;
}

/** The request as WireMock's templates see it. */
export function requestModel(request: WireRequest, context: TemplateContext) {
  const q = request.url.indexOf('?');
  const path = q < 0 ? request.url : request.url.slice(0, q);
  const headers = Object.entries(request.headers)
    .filter((e): e is [string, string | readonly string[]] => e[1] !== undefined)
    .map(([k, v]): [string, ListOrSingle] => [k, listOf(typeof v === 'string' ? [v] : v)]);
  const cookies: Array<[string, ListOrSingle]> = [];
  for (const [, value] of headers.filter(([k]) => k.toLowerCase() === 'cookie'))
    for (const part of value.join(';').split(';')) {
      const eq = part.indexOf('=');
      if (eq > 0) cookies.push([part.slice(0, eq).trim(), listOf([part.slice(eq + 1).trim()])]);
    }
  const base = new URL(context.baseUrl);
  return {
    url: request.url,
    path: pathModel(path, context.pathParameters),
    pathSegments: path.split('/').filter((s) => s !== ''),
    query: multiMap(q < 0 ? '' : request.url.slice(q + 1)),
    method: request.method,
    headers: caseless(headers),
    cookies: Object.fromEntries(cookies),
    body: request.body,
    baseUrl: context.baseUrl,
    scheme: base.protocol.replace(':', ''),
    host: base.hostname,
    port: Number(base.port || (base.protocol === 'https:' ? 443 : 80)),
  };
}

// ---- dates: Java's DateTimeFormatter patterns (the letters WireMock's examples use), in UTC ----

const monthNames = 'January February March April May June July August September October November December'.split(' ');
const dayNames = 'Sunday Monday Tuesday Wednesday Thursday Friday Saturday'.split(' ');
const pad = (n: number, width: number) => String(n).padStart(width, '0');

export function formatDate(date: Date, format: string | undefined): string {
  if (format === undefined) return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
  if (format === 'epoch') return String(date.getTime());
  if (format === 'unix') return String(Math.floor(date.getTime() / 1000));
  let out = '';
  for (const m of format.matchAll(/'([^']*)'|([A-Za-z])\2*|[^A-Za-z']+/g)) {
    if (m[1] !== undefined) {
      out += m[1] === '' ? "'" : m[1];
      continue;
    }
    if (m[2] === undefined) {
      out += m[0];
      continue;
    }
    const token = m[0];
    const n = token.length;
    switch (token[0]) {
      case 'y':
      case 'u':
        out += n === 2 ? pad(date.getUTCFullYear() % 100, 2) : pad(date.getUTCFullYear(), n);
        break;
      case 'M':
        out +=
          n >= 4
            ? monthNames[date.getUTCMonth()]!
            : n === 3
              ? monthNames[date.getUTCMonth()]!.slice(0, 3)
              : pad(date.getUTCMonth() + 1, n);
        break;
      case 'd':
        out += pad(date.getUTCDate(), n);
        break;
      case 'E':
        out += n >= 4 ? dayNames[date.getUTCDay()]! : dayNames[date.getUTCDay()]!.slice(0, 3);
        break;
      case 'H':
        out += pad(date.getUTCHours(), n);
        break;
      case 'h':
        out += pad(date.getUTCHours() % 12 || 12, n);
        break;
      case 'a':
        out += date.getUTCHours() < 12 ? 'AM' : 'PM';
        break;
      case 'm':
        out += pad(date.getUTCMinutes(), n);
        break;
      case 's':
        out += pad(date.getUTCSeconds(), n);
        break;
      case 'S':
        out += pad(date.getUTCMilliseconds(), 3).slice(0, n).padEnd(n, '0');
        break;
      case 'Z':
        out += '+0000';
        break;
      case 'X':
        out += 'Z';
        break;
      case 'x':
        out += n === 1 ? '+00' : n === 3 || n === 5 ? '+00:00' : '+0000';
        break;
      case 'z':
        out += 'UTC';
        break;
      default:
        throw new Error(`the date format letter ${token[0]} is not served (${format})`);
    }
  }
  return out;
}

const offsetUnits: Record<string, number> = {
  second: 1000,
  seconds: 1000,
  minute: 60_000,
  minutes: 60_000,
  hour: 3_600_000,
  hours: 3_600_000,
  day: 86_400_000,
  days: 86_400_000,
  week: 604_800_000,
  weeks: 604_800_000,
};

/** now plus an offset such as "3 days", "-24 seconds", "1 months" (months and years by the calendar, in UTC). */
export function offsetDate(date: Date, offset: string | undefined): Date {
  if (offset === undefined) return date;
  const m = /^\s*([+-]?\d+)\s+([a-z]+)\s*$/i.exec(offset);
  if (!m) throw new Error(`an offset such as "3 days" or "-1 months", not "${offset}"`);
  const amount = Number(m[1]);
  const unit = m[2]!.toLowerCase();
  const d = new Date(date.getTime());
  if (unit === 'month' || unit === 'months') d.setUTCMonth(d.getUTCMonth() + amount);
  else if (unit === 'year' || unit === 'years') d.setUTCFullYear(d.getUTCFullYear() + amount);
  else if (offsetUnits[unit]) d.setTime(d.getTime() + amount * offsetUnits[unit]!);
  else throw new Error(`the offset unit ${unit} is not served`);
  return d;
}

/** A date of text in a Java format (only the numeric fields), or ISO 8601 when no format is given. */
export function parseDateText(text: string, format: string | undefined): Date {
  if (format === undefined || format === 'epoch' || format === 'unix') {
    if (format === 'epoch') return new Date(Number(text));
    if (format === 'unix') return new Date(Number(text) * 1000);
    const d = new Date(text);
    if (Number.isNaN(d.getTime())) throw new Error(`an ISO 8601 date, not "${text}"`);
    return d;
  }
  const fields: Record<string, number> = { y: 1970, M: 1, d: 1, H: 0, m: 0, s: 0 };
  let at = 0;
  for (const m of format.matchAll(/'([^']*)'|([yMdHms])\2*|./g)) {
    if (m[2] === undefined) {
      at += (m[1] ?? m[0]).length;
      continue;
    }
    const digits = /^\d+/.exec(text.slice(at, at + m[0].length + (m[0].length === 1 ? 1 : 0)))?.[0];
    if (digits === undefined) throw new Error(`"${text}" does not fit the format ${format}`);
    fields[m[2]] = Number(digits);
    at += digits.length;
  }
  return new Date(Date.UTC(fields.y!, fields.M! - 1, fields.d, fields.H, fields.m, fields.s));
}

// ---- random values ----

const alphabets: Record<string, string> = {
  ALPHANUMERIC: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  ALPHABETIC: 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
  NUMERIC: '0123456789',
  HEXADECIMAL: '0123456789abcdef',
  ALPHANUMERIC_AND_SYMBOLS:
    'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&()*+,-./:;<=>?@[]^_{|}~',
};

function uuidFrom(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16));
  hex[12] = '4';
  hex[16] = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// ---- the Handlebars environment ----

type Options = Handlebars.HelperOptions;
type RenderState = { context: TemplateContext; limits: TemplateLimits; iterations: number };

const hash = (options: unknown): Record<string, unknown> => (options as Options | undefined)?.hash ?? {};
/** A helper's positional arguments (Handlebars passes its options object last). */
const args = (all: unknown[]) => all.slice(0, -1);
const str = (v: unknown) => (v === undefined || v === null ? '' : String(v));

function createEnvironment(state: () => RenderState) {
  const hb = Handlebars.create();
  const builtinEach = hb.helpers.each!;
  // every block iteration and its output are counted: nested loops over a large body cannot run away
  const counted = (helper: Handlebars.HelperDelegate) =>
    function (this: unknown, ...all: unknown[]) {
      const options = all[all.length - 1] as Options;
      const s = state();
      const wrap = (fn: Handlebars.TemplateDelegate) => (ctx: unknown, opts?: Handlebars.RuntimeOptions) => {
        if (++s.iterations > s.limits.maxIterations)
          throw new TemplateBound(`more than ${s.limits.maxIterations} iterations`);
        const out = fn(ctx, opts);
        if (out.length > s.limits.maxOutputChars)
          throw new TemplateBound(`more than ${s.limits.maxOutputChars} characters`);
        return out;
      };
      const bounded = { ...options, fn: wrap(options.fn), inverse: wrap(options.inverse) };
      return helper.call(this, ...all.slice(0, -1), bounded);
    };
  hb.registerHelper('each', counted(builtinEach));
  for (const name of ['if', 'unless', 'with']) hb.registerHelper(name, counted(hb.helpers[name]!));

  const h: Record<string, (...all: unknown[]) => unknown> = {
    jsonPath: (...all) => {
      const [json, expression] = args(all);
      const source = typeof json === 'string' ? safeJson(json) : json;
      const path = parseJsonPath(str(expression));
      if ('problem' in path) throw new Error(`jsonPath ${str(expression)}: ${path.problem}`);
      const found = evaluateJsonPath(path, source);
      if (found === null || found.length === 0) return '';
      const value = path.definite ? found[0] : found;
      return typeof value === 'object' && value !== null ? JSON.stringify(value) : str(value);
    },
    now: (...all) => {
      const o = hash(all[all.length - 1]);
      return formatDate(
        offsetDate(state().context.now, o.offset as string | undefined),
        o.format as string | undefined,
      );
    },
    date: (...all) => {
      const [d] = args(all);
      const o = hash(all[all.length - 1]);
      const date = d instanceof Date ? d : parseDateText(str(d), undefined);
      return formatDate(offsetDate(date, o.offset as string | undefined), o.format as string | undefined);
    },
    parseDate: (...all) => {
      const [text] = args(all);
      return parseDateText(str(text), hash(all[all.length - 1]).format as string | undefined);
    },
    randomValue: (...all) => {
      const o = hash(all[all.length - 1]);
      const { random } = state().context;
      const type = str(o.type || 'ALPHANUMERIC').toUpperCase();
      if (type === 'UUID') return uuidFrom(random);
      const alphabet = alphabets[type];
      if (!alphabet)
        throw new Error(`randomValue type ${type} is not one of UUID, ${Object.keys(alphabets).join(', ')}`);
      const length = Number(o.length ?? 36);
      if (!Number.isInteger(length) || length < 0 || length > state().limits.maxRandomLength)
        throw new TemplateBound(`randomValue length from 0 to ${state().limits.maxRandomLength}`);
      const value = Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      return o.uppercase === true ? value.toUpperCase() : value;
    },
    randomInt: (...all) => {
      const o = hash(all[all.length - 1]);
      const lower = Number(o.lower ?? -2147483648);
      const upper = Number(o.upper ?? 2147483647);
      return lower + Math.floor(state().context.random() * (upper - lower + 1));
    },
    randomDecimal: (...all) => {
      const o = hash(all[all.length - 1]);
      const lower = Number(o.lower ?? -1e10);
      const upper = Number(o.upper ?? 1e10);
      return lower + state().context.random() * (upper - lower);
    },
    pickRandom: (...all) => {
      const items = args(all).flat();
      return items[Math.floor(state().context.random() * items.length)];
    },
    regexExtract: (...all) => {
      // on the bounded RE2 engine, as every regex of the mock: a pattern that backtracks cannot stall the server
      const [text, pattern] = args(all).map(str);
      if (pattern!.length > 200 || text!.length > 65_536)
        throw new TemplateBound('regexExtract over a long text or pattern');
      try {
        return firstMatch(pattern!, text!) ?? '';
      } catch {
        throw new TemplateBound(
          `regexExtract: a pattern the regex engine (RE2) does not take: ${pattern!.slice(0, 80)}`,
        );
      }
    },
    size: (...all) => {
      const [v] = args(all);
      if (typeof v === 'string' || Array.isArray(v)) return v.length;
      return v !== null && typeof v === 'object' ? Object.keys(v).length : 0;
    },
    base64: (...all) => {
      const o = hash(all[all.length - 1]);
      const text = str(args(all)[0]);
      return o.decode === true ? Buffer.from(text, 'base64').toString('utf8') : Buffer.from(text).toString('base64');
    },
    urlEncode: (...all) => {
      const text = str(args(all)[0]);
      return hash(all[all.length - 1]).decode === true
        ? decodeForm(text)
        : encodeURIComponent(text).replace(/%20/g, '+');
    },
    formData: (...all) => {
      const [body, name] = args(all);
      const form = multiMap(str(body));
      return name === undefined ? form : form[str(name)];
    },
    upper: (...all) => str(args(all)[0]).toUpperCase(),
    lower: (...all) => str(args(all)[0]).toLowerCase(),
    capitalize: (...all) => str(args(all)[0]).replace(/\b\w/g, (c) => c.toUpperCase()),
    trim: (...all) => str(args(all)[0]).trim(),
    join: (...all) => {
      const [list, sep] = args(all);
      return Array.isArray(list) ? list.map(str).join(str(sep ?? ',')) : str(list);
    },
    contains: (...all) => {
      const [a, b] = args(all);
      return Array.isArray(a) ? a.map(str).includes(str(b)) : str(a).includes(str(b));
    },
    // Java's equals, as WireMock's eq: a query value (a list) is not equal to a text, 1 is not "1"
    eq: (...all) => args(all)[0] === args(all)[1],
    neq: (...all) => args(all)[0] !== args(all)[1],
    gt: (...all) => Number(args(all)[0]) > Number(args(all)[1]),
    gte: (...all) => Number(args(all)[0]) >= Number(args(all)[1]),
    lt: (...all) => Number(args(all)[0]) < Number(args(all)[1]),
    lte: (...all) => Number(args(all)[0]) <= Number(args(all)[1]),
    and: (...all) => args(all).every(Boolean),
    or: (...all) => args(all).some(Boolean),
    not: (...all) => !args(all)[0],
    math: (...all) => {
      const [a, op, b] = args(all);
      const x = Number(a);
      const y = Number(b);
      const ops: Record<string, number> = { '+': x + y, '-': x - y, '*': x * y, '/': x / y, '%': x % y };
      if (!(str(op) in ops)) throw new Error(`math operator ${str(op)} is not one of + - * / %`);
      return ops[str(op)];
    },
    range: (...all) => {
      const [from, to] = args(all).map(Number);
      if (!Number.isInteger(from) || !Number.isInteger(to) || Math.abs(to! - from!) > state().limits.maxIterations)
        throw new TemplateBound(`range of at most ${state().limits.maxIterations} integers`);
      return Array.from({ length: to! - from! + 1 }, (_, i) => from! + i);
    },
    array: (...all) => args(all),
    val: (...all) => {
      const [v] = args(all);
      return v === undefined || v === null || v === '' ? hash(all[all.length - 1]).default : v;
    },
    toJson: (...all) => JSON.stringify(args(all)[0]),
  };
  for (const [name, fn] of Object.entries(h)) hb.registerHelper(name, fn as Handlebars.HelperDelegate);
  return hb;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

let current: RenderState | undefined;
const environment = createEnvironment(() => {
  if (!current) throw new Error('a helper ran outside a render');
  return current;
});

// compiled templates, kept by text; at most this many (each a mapping's body or header value)
const compiledTemplates = new Map<string, Handlebars.TemplateDelegate>();
const maxCompiled = 2000;

function compiled(template: string): Handlebars.TemplateDelegate {
  let fn = compiledTemplates.get(template);
  if (!fn) {
    fn = environment.compile(template, { noEscape: true, strict: false });
    if (compiledTemplates.size >= maxCompiled) compiledTemplates.delete(compiledTemplates.keys().next().value!);
    compiledTemplates.set(template, fn);
  }
  return fn;
}

/** A template rendered against a request, or what went wrong (a template error, a bound reached). */
export function renderTemplate(
  template: string,
  request: WireRequest,
  context: TemplateContext,
  limits: TemplateLimits = defaultTemplateLimits,
): { text: string } | { error: string } {
  current = { context, limits, iterations: 0 };
  try {
    const text = compiled(template)(
      { request: requestModel(request, context) },
      { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false },
    );
    if (text.length > limits.maxOutputChars)
      return { error: `the template renders more than ${limits.maxOutputChars} characters` };
    return { text };
  } catch (err) {
    return { error: `${err instanceof TemplateBound ? 'template bound: ' : ''}${(err as Error).message}` };
  } finally {
    current = undefined;
  }
}
