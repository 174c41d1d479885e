// The one matcher language of scenario stubs (`match`) and journal filters (header.NAME=…): docs/scenarios.md,
// "Matching requests". A matcher is a plain value (equality) or an object with exactly one of present, regex,
// contains. Regular expressions run on RE2 (re2js, pure JS): matching is linear in the subject, so no pattern a
// scenario or a filter brings can hang the server ((a+)+$ included); look-arounds and backreferences are refused.
import { RE2JS } from 're2js';

export type MatcherOp = { present: boolean } | { regex: string } | { contains: string };

export const matcherOps = ['present', 'regex', 'contains'] as const;

/** Longer patterns are refused: RE2 is linear in the subject, but its compiled program grows with the pattern. */
export const maxPatternChars = 1000;

/** An object whose only key is one of the operators is a matcher (its value is checked by matcherProblem). */
export function isMatcherOp(value: unknown): value is MatcherOp {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && (matcherOps as readonly string[]).includes(keys[0]!);
}

/** What is wrong with a pattern (for "expected …"), or null. */
export function regexProblem(pattern: string): string | null {
  if (pattern.length > maxPatternChars) return `a pattern of at most ${maxPatternChars} characters`;
  try {
    RE2JS.compile(pattern);
    return null;
  } catch (err) {
    return `a valid RE2 pattern (${(err as Error).message})`;
  }
}

// keyed by the matcher object itself: a scenario's stubs compile once and the entry dies with the scenario
const compiled = new WeakMap<object, RE2JS>();
function regexOf(m: { regex: string }): RE2JS {
  let re = compiled.get(m);
  if (!re) {
    re = RE2JS.compile(m.regex);
    compiled.set(m, re);
  }
  return re;
}

/** The text a regex, contains or text equality looks at: a string as it is, any other value as JSON. */
export const textOf = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * What is wrong with a matcher, as "at PATH: expected …", or null. `text`: a query or header matcher (a plain
 * value is a string, number or boolean); else a body matcher (a JSON subset whose leaves may be matchers).
 */
export function matcherProblem(m: unknown, path: string, kind: 'text' | 'json'): string | null {
  if (isMatcherOp(m)) {
    const [op, value] = Object.entries(m)[0]!;
    if (op === 'present')
      return typeof value === 'boolean' ? null : `at ${path}/present: expected true or false, found ${textOf(value)}`;
    if (typeof value !== 'string') return `at ${path}/${op}: expected a string, found ${textOf(value)}`;
    const problem = op === 'regex' ? regexProblem(value) : null;
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
    return `at ${path}: expected a string, number, boolean or a matcher object, found ${textOf(m)}`;
  }
  if (Array.isArray(m)) {
    for (const [i, item] of m.entries()) {
      const problem = matcherProblem(item, `${path}/${i}`, 'json');
      if (problem) return problem;
    }
  } else if (m !== null && typeof m === 'object') {
    for (const [key, item] of Object.entries(m)) {
      const problem = matcherProblem(item, `${path}/${escapePointer(key)}`, 'json');
      if (problem) return problem;
    }
  }
  return null;
}

/** An operator against a value (undefined: absent). */
function opMatches(m: MatcherOp, actual: unknown): boolean {
  if ('present' in m) return (actual !== undefined) === m.present;
  if (actual === undefined) return false;
  if ('regex' in m) return regexOf(m).matcher(textOf(actual)).find();
  return textOf(actual).includes(m.contains);
}

/**
 * A query or header matcher against the values received (undefined: absent). A plain value equals one of them by
 * text (3 matches "3"); a repeated parameter or header matches when any of its values does.
 */
export function textMatches(m: unknown, values: readonly string[] | undefined): boolean {
  if (isMatcherOp(m)) {
    if ('present' in m || values === undefined) return opMatches(m, values?.[0]);
    return values.some((v) => opMatches(m, v));
  }
  return values?.some((v) => v === textOf(m)) === true;
}

/**
 * A body matcher against a parsed JSON value (undefined: absent): every field the matcher gives must match,
 * recursively, and fields it does not give are ignored; an array matches an array of the same length, item by item.
 */
export function jsonMatches(m: unknown, actual: unknown): boolean {
  if (isMatcherOp(m)) return opMatches(m, actual);
  if (actual === undefined) return false;
  if (m === null || typeof m !== 'object') return m === actual;
  if (Array.isArray(m))
    return Array.isArray(actual) && actual.length === m.length && m.every((item, i) => jsonMatches(item, actual[i]));
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
  const fields = actual as Record<string, unknown>;
  return Object.entries(m).every(([key, item]) =>
    jsonMatches(item, Object.hasOwn(fields, key) ? fields[key] : undefined),
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
export function fieldFilter(key: string, value: string): FieldFilter | { problem: string } | null {
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
    const problem = regexProblem(value);
    return problem ? { problem: `expected ${problem}` } : { source, name, matcher: { regex: value } };
  }
  return { source, name, matcher: op === 'contains' ? { contains: value } : value };
}
