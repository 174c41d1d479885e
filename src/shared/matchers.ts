// The one matcher language of scenario stubs (`match`) and journal filters (header.NAME=…): docs/scenarios.md,
// "Matching requests". A matcher is a plain value (equality) or an object with exactly one of present, regex,
// contains. Regular expressions run on RE2 (re2js, pure JS): matching is linear in the text, with no backtracking
// ((a+)+$ included), and look-arounds and backreferences are refused. Linear is not cheap: the work per character
// grows with the compiled program (`((a{30}){30})$` is 965 instructions, and took 137 s against a 1 MB body), so
// a pattern's program, the text a regex reads and the work of one request are bounded (RegexLimits).
import { RE2JS } from 're2js';

export type MatcherOp = { present: boolean } | { regex: string } | { contains: string };

export const matcherOps = ['present', 'regex', 'contains'] as const;

/** Longer patterns are refused before they are compiled (the program bound is checked on the compiled one). */
export const maxPatternChars = 1000;

/**
 * The bounds of regular-expression work (flags --regex-max-program, --regex-max-text, --regex-budget). A unit of
 * work is one character read by one instruction: a regex costs (text length + 1) × its program size (a plain
 * text: × 1), the worst case of RE2's automaton (measured on the shared 2-core machine: 25–100 ns a unit when
 * every step builds a new state, 35–110 ms for 1M units over a socket; far less for most patterns, whose DFA steps
 * once a character), so the default budget is about 50 ms of that worst case.
 */
export type RegexLimits = {
  /** most instructions of a compiled pattern; a longer one is refused where it is defined (400) */
  maxProgram: number;
  /** most characters a regex reads; a longer text is a non-match */
  maxText: number;
  /** most units of work of the regular expressions of one request (a stub match, a journal read) */
  budget: number;
};

export const defaultRegexLimits: RegexLimits = { maxProgram: 300, maxText: 65_536, budget: 500_000 };

/**
 * The work left to one request's regular expressions. A regex whose text would take more than is left does not
 * run: `exhausted` is set, and the caller decides (a stub: a non-match; a journal read: a 422 saying how to
 * narrow it).
 */
export class RegexBudget {
  left: number;
  exhausted = false;
  readonly maxText: number;
  constructor(limits: Pick<RegexLimits, 'budget' | 'maxText'> = defaultRegexLimits) {
    this.left = limits.budget;
    this.maxText = limits.maxText;
  }
  /** Takes the work of reading `chars` characters with a program of `program` instructions; false: not enough. */
  take(chars: number, program: number): boolean {
    const units = (chars + 1) * program;
    if (units > this.left) {
      this.exhausted = true;
      return false;
    }
    this.left -= units;
    return true;
  }
}

/** An object whose only key is one of the operators is a matcher (its value is checked by matcherProblem). */
export function isMatcherOp(value: unknown): value is MatcherOp {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && (matcherOps as readonly string[]).includes(keys[0]!);
}

/** What is wrong with a pattern (for "expected …"), or null. */
export function regexProblem(pattern: string, maxProgram = defaultRegexLimits.maxProgram): string | null {
  if (pattern.length > maxPatternChars) return `a pattern of at most ${maxPatternChars} characters`;
  let program: number;
  try {
    program = RE2JS.compile(pattern).programSize();
  } catch (err) {
    return `a valid RE2 pattern (${(err as Error).message})`;
  }
  if (program > maxProgram)
    return (
      `a pattern that compiles to at most ${maxProgram} instructions (--regex-max-program); this one compiles to ` +
      `${program}: a counted repetition such as {30} copies what it repeats, so nested or large counts multiply`
    );
  return null;
}

/**
 * The state cache of a compiled pattern's DFA, in bytes. re2js gives each 8 MiB; a pattern whose automaton has
 * more states than its cache starts over, then falls back to its NFA. At 8 MiB a pattern such as a[ab]{296}$ spent
 * 200–250 ns a unit of work rebuilding states against random text (8,300 characters: 0.5 s); at 256 KiB it gives up
 * sooner, 25–50 ns a unit, and what a stub keeps between requests is bounded too. Patterns that fit (most) use
 * a few KiB and are as fast as before.
 */
const dfaCacheBytes = 262_144;

/** A compiled pattern and what one character read costs it: its program size, or 1 for a plain text. */
/** A compiled pattern as other parts see it: whether a text matches, and its program size (RE2JS stays inside). */
export type CompiledRegex = { re: { test(text: string): boolean }; program: number };
function compile(pattern: string): { re: RE2JS; program: number } {
  const re = RE2JS.compile(pattern);
  const engine = re.re2Input;
  const Dfa = engine.dfa.constructor as new (prog: unknown, maxMem: number) => typeof engine.lazyDFA;
  engine.lazyDFA = new Dfa(engine.prog, dfaCacheBytes);
  // a pattern that is a plain text (iOS 17) is found by indexOf, not by the automaton
  return { re, program: engine.prefixComplete ? 1 : re.programSize() };
}

// keyed by the matcher object itself: a scenario's stubs compile once and the entry dies with the scenario
/** A pattern compiled for another part (WireMock's matchers): the bounded engine, without naming it. */
export const compileRegex = (pattern: string): CompiledRegex => compile(pattern);

/**
 * The first part of `text` that `pattern` matches, or null: the bounded engine (linear time, whatever the pattern),
 * for WireMock's regexExtract. A pattern RE2 does not take (a look-ahead, a back-reference) throws.
 */
export function firstMatch(pattern: string, text: string): string | null {
  const matcher = compile(pattern).re.matcher(text);
  return matcher.find() ? matcher.group() : null;
}

const compiled = new WeakMap<object, { re: RE2JS; program: number }>();
function regexOf(m: { regex: string }): { re: RE2JS; program: number } {
  let entry = compiled.get(m);
  if (!entry) {
    entry = compile(m.regex);
    compiled.set(m, entry);
  }
  return entry;
}

/** The text a regex, contains or text equality looks at: a string as it is, any other value as JSON. */
export const textOf = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));

/**
 * Values nested deeper than this have no text for a matcher, so regex and contains do not match them: JSON.stringify
 * recurses once a level, and a request body 5,000 deep overflowed the stack (a 500 instead of a non-match).
 */
export const maxTextDepth = 64;

/** Whether a value nests arrays and objects deeper than `max`; a walk with its own stack, so any depth is safe. */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<{ value: object; depth: number }> = [];
  if (value !== null && typeof value === 'object') stack.push({ value, depth: 1 });
  while (stack.length > 0) {
    const { value: at, depth } = stack.pop()!;
    if (depth > max) return true;
    for (const child of Array.isArray(at) ? at : Object.values(at))
      if (child !== null && typeof child === 'object') stack.push({ value: child as object, depth: depth + 1 });
  }
  return false;
}

// a request's body is turned into text once however many stubs look at it; the entry dies with the body
const texts = new WeakMap<object, string | null>();

/** The text a matcher reads of a value (textOf), or null when it nests deeper than maxTextDepth. */
function matchText(value: unknown): string | null {
  if (value === null || typeof value !== 'object') return textOf(value);
  let text = texts.get(value);
  if (text === undefined) {
    text = nestedDeeperThan(value, maxTextDepth) ? null : textOf(value);
    texts.set(value, text);
  }
  return text;
}

/** A value as an error message quotes it, cut; one too deep to write as JSON is said to be so. */
function shown(value: unknown): string {
  const text = nestedDeeperThan(value, maxTextDepth) ? '(a value nested too deep to show)' : textOf(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * What is wrong with a matcher, as "at PATH: expected …", or null. `text`: a query or header matcher (a plain
 * value is a string, number or boolean); else a body matcher (a JSON subset whose leaves may be matchers).
 */
export function matcherProblem(
  m: unknown,
  path: string,
  kind: 'text' | 'json',
  maxProgram = defaultRegexLimits.maxProgram,
): string | null {
  if (isMatcherOp(m)) {
    const [op, value] = Object.entries(m)[0]!;
    if (op === 'present')
      return typeof value === 'boolean' ? null : `at ${path}/present: expected true or false, found ${shown(value)}`;
    if (typeof value !== 'string') return `at ${path}/${op}: expected a string, found ${shown(value)}`;
    const problem = op === 'regex' ? regexProblem(value, maxProgram) : null;
    return problem ? `at ${path}/regex: expected ${problem}` : null;
  }
  if (kind === 'text') {
    if (typeof m === 'string' || typeof m === 'number' || typeof m === 'boolean') return null;
    if (m !== null && typeof m === 'object' && !Array.isArray(m)) {
      const unknown = Object.keys(m).find((k) => !(matcherOps as readonly string[]).includes(k));
      return unknown !== undefined
        ? `at ${path}: unknown matcher key "${unknown}"; expected exactly one of ${matcherOps.join(', ')}`
        : `at ${path}: expected exactly one of ${matcherOps.join(', ')}`;
    }
    return `at ${path}: expected a string, number, boolean or a matcher object, found ${shown(m)}`;
  }
  if (Array.isArray(m)) {
    for (const [i, item] of m.entries()) {
      const problem = matcherProblem(item, `${path}/${i}`, 'json', maxProgram);
      if (problem) return problem;
    }
  } else if (m !== null && typeof m === 'object') {
    for (const [key, item] of Object.entries(m)) {
      const problem = matcherProblem(item, `${path}/${escapePointer(key)}`, 'json', maxProgram);
      if (problem) return problem;
    }
  }
  return null;
}

/**
 * An operator against a value (undefined: absent). A regex reads at most `budget.maxText` characters and runs only
 * while the budget lasts; a longer text, one nested too deep, or a spent budget is a non-match.
 */
function opMatches(m: MatcherOp, actual: unknown, budget: RegexBudget): boolean {
  if ('present' in m) return (actual !== undefined) === m.present;
  if (actual === undefined) return false;
  const text = matchText(actual);
  if (text === null) return false;
  if ('contains' in m) return text.includes(m.contains);
  if (text.length > budget.maxText) return false;
  const { re, program } = regexOf(m);
  // test(), not matcher().find(): without capture positions RE2 runs its DFA, 10 to 100 times faster
  return budget.take(text.length, program) && re.test(text);
}

/**
 * A query or header matcher against the values received (undefined: absent). A plain value equals one of them by
 * text (3 matches "3"); a repeated parameter or header matches when any of its values does.
 */
export function textMatches(
  m: unknown,
  values: readonly string[] | undefined,
  budget: RegexBudget = new RegexBudget(),
): boolean {
  if (isMatcherOp(m)) {
    if ('present' in m || values === undefined) return opMatches(m, values?.[0], budget);
    return values.some((v) => opMatches(m, v, budget));
  }
  return values?.some((v) => v === textOf(m)) === true;
}

/**
 * A body matcher against a parsed JSON value (undefined: absent): every field the matcher gives must match,
 * recursively, and fields it does not give are ignored; an array matches an array of the same length, item by item.
 * The walk follows the matcher (a definition, at most 64 deep as admin bodies are), never the value's own depth.
 */
export function jsonMatches(m: unknown, actual: unknown, budget: RegexBudget = new RegexBudget()): boolean {
  if (isMatcherOp(m)) return opMatches(m, actual, budget);
  if (actual === undefined) return false;
  if (m === null || typeof m !== 'object') return m === actual;
  if (Array.isArray(m))
    return (
      Array.isArray(actual) && actual.length === m.length && m.every((item, i) => jsonMatches(item, actual[i], budget))
    );
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
  const fields = actual as Record<string, unknown>;
  return Object.entries(m).every(([key, item]) =>
    jsonMatches(item, Object.hasOwn(fields, key) ? fields[key] : undefined, budget),
  );
}

/** The value at a dotted path (numbers index arrays); the empty path is the value itself. */
export function valueAt(value: unknown, path: string): unknown {
  let at = value;
  for (const key of path === '' ? [] : path.split('.')) {
    if (at === null || typeof at !== 'object') return undefined;
    if (Array.isArray(at)) at = /^\d+$/.test(key) ? at[Number(key)] : undefined;
    else at = Object.hasOwn(at, key) ? (at as Record<string, unknown>)[key] : undefined;
  }
  return at;
}

/** One journal filter of the query string: `header.NAME`, `query.NAME` or `body[.PATH]`, then `:OP` or nothing. */
export type FieldFilter = { source: 'header' | 'query' | 'body'; name: string; matcher: unknown };

const filterKey = /^(?:(header|query)\.([^:]+)|(body)(?:\.([^:]+))?)(?::(regex|contains|present))?$/;

/** Whether a query-string key is a field filter's (its value still to be checked by fieldFilter). */
export const isFieldFilterKey = (key: string): boolean => filterKey.test(key);

/** A field filter from its query-string key and value, or what is wrong with it (null: not a filter's key). */
export function fieldFilter(
  key: string,
  value: string,
  maxProgram = defaultRegexLimits.maxProgram,
): FieldFilter | { problem: string } | null {
  const m = filterKey.exec(key);
  if (!m) return null;
  const source = (m[1] ?? m[3]) as FieldFilter['source'];
  const name = source === 'header' ? m[2]!.toLowerCase() : (m[2] ?? m[4] ?? '');
  const op = m[5];
  if (op === 'present') {
    if (value !== 'true' && value !== 'false') return { problem: 'expected true or false' };
    return { source, name, matcher: { present: value === 'true' } };
  }
  if (op === 'regex') {
    const problem = regexProblem(value, maxProgram);
    return problem ? { problem: `expected ${problem}` } : { source, name, matcher: { regex: value } };
  }
  return { source, name, matcher: op === 'contains' ? { contains: value } : value };
}
