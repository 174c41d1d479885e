// Where the mock's answer differs from the upstream's: status, and shape by JSON path (values are not compared).
import { Type, type Static } from '@sinclair/typebox';
import type { UpstreamAnswer } from './upstream.js';
import { jsonType } from '../shared/json-type.js';

export const ShapeDifference = Type.Object({
  path: Type.String({ description: 'JSON path; [] stands for the items of an array' }),
  kind: Type.Union([Type.Literal('missing'), Type.Literal('extra'), Type.Literal('type')], {
    description:
      'missing: the upstream has it, the mock does not; extra: the mock has it, the upstream does not; type: both ' +
      'have it with different JSON types',
  }),
  mock: Type.Optional(Type.String({ description: 'JSON type in the mock answer' })),
  upstream: Type.Optional(Type.String({ description: 'JSON type in the upstream answer' })),
});
export type ShapeDifference = Static<typeof ShapeDifference>;

export const Comparison = Type.Object({
  at: Type.String({ format: 'date-time' }),
  operationId: Type.Union([Type.String(), Type.Null()]),
  method: Type.String(),
  path: Type.String(),
  mockStatus: Type.Integer(),
  upstreamStatus: Type.Integer({ description: '502 or 504 when the upstream failed' }),
  sameStatus: Type.Boolean(),
  sameShape: Type.Boolean(),
  differences: Type.Array(ShapeDifference),
  upstreamError: Type.Optional(Type.String()),
});
export type Comparison = Static<typeof Comparison>;

const compatible = (a: string, b: string) =>
  a === b || (['integer', 'number'].includes(a) && ['integer', 'number'].includes(b));

/** Shape differences by JSON path; arrays are compared item shape against item shape (every item of both sides merged). */
export function shapeDiff(
  mock: unknown,
  upstream: unknown,
  path = '$',
  out: ShapeDifference[] = [],
  depth = 0,
): ShapeDifference[] {
  if (depth > 20) return out;
  const tm = jsonType(mock);
  const tu = jsonType(upstream);
  if (!compatible(tm, tu)) {
    out.push({ path, kind: 'type', mock: tm, upstream: tu });
    return out;
  }
  if (tm === 'array') {
    const a = mock as unknown[];
    const b = upstream as unknown[];
    if (a.length > 0 && b.length > 0) shapeDiff(mergeItems(a), mergeItems(b), `${path}[]`, out, depth + 1);
    return out;
  }
  if (tm === 'object') {
    const a = mock as Record<string, unknown>;
    const b = upstream as Record<string, unknown>;
    for (const k of Object.keys(b))
      if (!Object.hasOwn(a, k)) out.push({ path: `${path}.${k}`, kind: 'missing', upstream: jsonType(b[k]) });
    for (const k of Object.keys(a))
      if (!Object.hasOwn(b, k)) out.push({ path: `${path}.${k}`, kind: 'extra', mock: jsonType(a[k]) });
    for (const k of Object.keys(a)) if (Object.hasOwn(b, k)) shapeDiff(a[k], b[k], `${path}.${k}`, out, depth + 1);
  }
  return out;
}

/** Items of an array as one representative: objects merged field by field (first non-null wins), else the first item. */
function mergeItems(items: unknown[]): unknown {
  if (!items.every((i) => i !== null && typeof i === 'object' && !Array.isArray(i))) return items[0];
  const merged: Record<string, unknown> = {};
  for (const item of items.slice(0, 50) as Array<Record<string, unknown>>) {
    for (const [k, v] of Object.entries(item)) if (!Object.hasOwn(merged, k) || merged[k] === null) merged[k] = v;
  }
  return merged;
}

/** Parses an answer body for comparison: JSON, else the text itself (compared as a string). */
function parseForCompare(body: string): unknown {
  if (body === '') return null;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

export function compareAnswers(
  at: string,
  who: { operationId: string | null; method: string; path: string },
  mock: { status: number; body: string },
  upstream: UpstreamAnswer,
): Comparison {
  const differences = upstream.ok
    ? shapeDiff(parseForCompare(mock.body), parseForCompare(upstream.body.toString('utf8')))
    : [];
  return {
    at,
    ...who,
    mockStatus: mock.status,
    upstreamStatus: upstream.status,
    sameStatus: mock.status === upstream.status,
    sameShape: differences.length === 0 && upstream.ok,
    differences,
    ...(upstream.ok ? {} : { upstreamError: upstream.reason }),
  };
}
