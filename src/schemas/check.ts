import type { TSchema, Static } from '@sinclair/typebox';
import { FormatRegistry } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';

// TypeBox knows no formats by itself; these are the ones our records use.
const uuidRe = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Whether a string is a UUID (the same test the `uuid` format uses). */
export const isUuid = (v: string) => uuidRe.test(v);
const dateRe = /^\d{4}-\d{2}-\d{2}$/;
const dateTimeRe = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const emailRe = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
if (!FormatRegistry.Has('uuid')) FormatRegistry.Set('uuid', (v) => uuidRe.test(v));
if (!FormatRegistry.Has('date')) FormatRegistry.Set('date', (v) => dateRe.test(v) && !Number.isNaN(Date.parse(v)));
if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set('date-time', (v) => dateTimeRe.test(v) && !Number.isNaN(Date.parse(v)));
if (!FormatRegistry.Has('email')) FormatRegistry.Set('email', (v) => emailRe.test(v));

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

export class CheckError extends Error {
  readonly path: string;
  readonly expected: string;
  constructor(source: string, path: string, expected: string) {
    super(`${source}: at ${path || '/'}: ${expected}`);
    this.path = path;
    this.expected = expected;
  }
}

/** Checks a value against a schema, throwing the first problem with its JSON path. */
export function checkOrThrow<T extends TSchema>(schema: T, value: unknown, source: string): Static<T> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  if (check.Check(value)) return value as Static<T>;
  const first = check.Errors(value).First();
  throw new CheckError(
    source,
    first?.path ?? '',
    first ? `${first.message} (found ${JSON.stringify(first.value)?.slice(0, 80)})` : 'invalid',
  );
}
