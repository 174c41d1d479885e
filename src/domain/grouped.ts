// Lookups over collections that only grow (notifications, postcards, awards) and id lists, kept per array object so
// the dashboard does not filter 250 000 notifications per request. Keyed by the array itself (WeakMap): a replaced
// collection (reset, snapshot import) gets a new lookup; one that grew gets the new records appended; one that shrank
// or whose last indexed record moved is rebuilt.

type Groups<T> = { length: number; last: T | undefined; byKey: Map<string, T[]> };
const groups = new WeakMap<object, WeakMap<(item: never) => string, Groups<unknown>>>();

/**
 * The records of `list` with each key, in list order: the same as `list.filter((x) => key(x) === k)`, provided the
 * key of a record never changes (userId, recipientId).
 */
export function groupedBy<T>(list: readonly T[], key: (item: T) => string, wanted: string): readonly T[] {
  let perKey = groups.get(list);
  if (!perKey) {
    perKey = new WeakMap();
    groups.set(list, perKey);
  }
  let g = perKey.get(key as (item: never) => string) as Groups<T> | undefined;
  if (!g || list.length < g.length || (g.length > 0 && list[g.length - 1] !== g.last)) {
    g = { length: 0, last: undefined, byKey: new Map() };
    perKey.set(key as (item: never) => string, g as Groups<unknown>);
  }
  for (let i = g.length; i < list.length; i++) {
    const item = list[i]!;
    const k = key(item);
    const bucket = g.byKey.get(k);
    if (bucket) bucket.push(item);
    else g.byKey.set(k, [item]);
  }
  g.length = list.length;
  g.last = list[list.length - 1];
  return g.byKey.get(wanted) ?? [];
}

const sets = new WeakMap<
  readonly string[],
  { length: number; first: string | undefined; last: string | undefined; set: Set<string> }
>();
/** `list.includes(id)` through a Set kept while the list keeps its length and ends. */
export function includesId(list: readonly string[], id: string): boolean {
  if (list.length < 16) return list.includes(id);
  let s = sets.get(list);
  if (!s || s.length !== list.length || s.first !== list[0] || s.last !== list[list.length - 1]) {
    s = { length: list.length, first: list[0], last: list[list.length - 1], set: new Set(list) };
    sets.set(list, s);
  }
  return s.set.has(id);
}

const isStamp = (s: string) =>
  s.length === 24 ? s[10] === 'T' && s[23] === 'Z' && s[19] === '.' : s.length === 10 && s[4] === '-' && s[7] === '-';
/**
 * `a.localeCompare(b)` for stored dates and times: two of the same canonical shape (yyyy-MM-dd, or
 * yyyy-MM-ddTHH:mm:ss.sssZ as the schemas and toISOString write them) differ first in a digit, where collation
 * order is code-unit order; anything else goes to localeCompare.
 */
export function compareStamp(a: string, b: string): number {
  if (a.length === b.length && isStamp(a) && isStamp(b)) return a < b ? -1 : a > b ? 1 : 0;
  return a.localeCompare(b);
}

/** Lowercase hexadecimal digits and the hyphen: where collation order is code-unit order. */
const hexOrHyphen = (c: number) => (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || c === 45;
/**
 * `a.localeCompare(b)` for record ids: up to the first code unit where they differ, two lowercase UUIDs hold only
 * hexadecimal digits and hyphens, and when both differing units are hexadecimal digits collation orders them as code
 * units do (digits before letters); anything else goes to localeCompare. It reads only to the first difference: a
 * list of 20,000 records sorted by localeCompare held the event loop for a quarter of a second, and by a UUID pattern
 * tested on both ids of every comparison still for about 120 ms.
 */
export function compareId(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (!hexOrHyphen(x) || !hexOrHyphen(y)) break;
    if (x === y) continue;
    if (x === 45 || y === 45) break;
    return x < y ? -1 : 1;
  }
  return a.localeCompare(b);
}

const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * `list` sorted by a stamp (`'oldest'` or `'newest'` first), ties by id ascending: the order of
 * `compareStamp(…) || compareId(…)`, as a new array. When every stamp has the one canonical shape and every id is a
 * lowercase UUID, both sort as code units do, so each is checked once and a comparison is two string comparisons (a
 * queue of 20,000 records took about 90 ms to sort through the general comparators, which look at both values each
 * time); otherwise the general comparators sort.
 */
export function byStampThenId<T>(
  list: readonly T[],
  stampOf: (item: T) => string,
  idOf: (item: T) => string,
  first: 'oldest' | 'newest',
): T[] {
  const keyed = list.map((item) => ({ item, stamp: stampOf(item), id: idOf(item) }));
  const dir = first === 'oldest' ? 1 : -1;
  const length = keyed[0]?.stamp.length;
  const plain = keyed.every((k) => k.stamp.length === length && isStamp(k.stamp) && uuidShape.test(k.id));
  const byUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const stamps = plain ? byUnits : compareStamp;
  const ids = plain ? byUnits : compareId;
  return keyed.sort((a, b) => dir * stamps(a.stamp, b.stamp) || ids(a.id, b.id)).map((k) => k.item);
}

type Sorted<T> = { length: number; last: T | undefined; sorted: T[]; canonical: boolean };
const sortedCopies = new WeakMap<object, Sorted<unknown>>();
/**
 * Records of `list` whose stamp is within [from, to], newest first (ties in list order): the same as
 * `list.filter(in range).sort((a, b) => compareStamp(stamp(b), stamp(a)))`, from a sorted copy kept per list
 * (rebuilt when the list grows, shrinks or its last record moves), so a request reads only the range.
 */
export function newestWithin<T>(list: readonly T[], stamp: (item: T) => string, from: string, to: string): T[] {
  let s = sortedCopies.get(list) as Sorted<T> | undefined;
  if (!s || s.length !== list.length || s.last !== list[list.length - 1]) {
    const canonical = list.every((x) => isStamp(stamp(x)) && stamp(x).length === 24);
    s = {
      length: list.length,
      last: list[list.length - 1],
      canonical,
      sorted: [...list].sort((a, b) => compareStamp(stamp(b), stamp(a))),
    };
    sortedCopies.set(list, s as Sorted<unknown>);
  }
  if (!s.canonical)
    return list.filter((x) => stamp(x) >= from && stamp(x) <= to).sort((a, b) => compareStamp(stamp(b), stamp(a)));
  const out: T[] = [];
  for (const x of s.sorted) {
    const t = stamp(x);
    if (t > to) continue;
    if (t < from) break;
    out.push(x);
  }
  return out;
}
