// Tool schemas are our TypeBox records (TypeBox objects are JSON Schema): their `$ref`s to shared records are
// inlined, since a tool's schema must stand alone, and each is compiled once, when this module loads.
import { type Static, type TSchema, type TUnsafe, Type } from '@sinclair/typebox';
import { fromJsonSchema, type JsonSchemaType, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { sharedSchemas } from '../schemas/index.js';

const byId = new Map<string, unknown>(
  sharedSchemas.filter((s) => typeof s.$id === 'string').map((s) => [`${s.$id}#`, s]),
);

/** A plain JSON copy of a schema with every `$ref` to a shared record replaced by that record (no `$id`). */
export function inlineRefs(schema: unknown, seen: string[] = []): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inlineRefs(s, seen));
  if (schema === null || typeof schema !== 'object') return schema;
  const node = schema as Record<string, unknown>;
  const target = typeof node.$ref === 'string' ? node.$ref : undefined;
  if (target !== undefined) {
    const found = byId.get(target.endsWith('#') ? target : `${target}#`);
    if (!found) throw new Error(`tool schema: unknown $ref ${target}`);
    if (seen.includes(target)) throw new Error(`tool schema: recursive $ref ${target}`);
    const { $ref: _, ...rest } = node;
    return { ...(inlineRefs(found, [...seen, target]) as object), ...(inlineRefs(rest, seen) as object) };
  }
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$id') continue;
    copy[key] = inlineRefs(value, seen);
  }
  return copy;
}

/** A TypeBox schema as the SDK takes it (Standard Schema with its JSON Schema), compiled once. */
export function toolSchema<T extends TSchema>(schema: T): StandardSchemaWithJSON<Static<T>, Static<T>> {
  return fromJsonSchema<Static<T>>(inlineRefs(schema) as JsonSchemaType);
}

/**
 * One of a few strings, as `enum` (TypeBox writes a union of literals as anyOf of consts: longer in tools/list, and
 * a wrong value is refused once per literal in the validator's message).
 */
export function oneOf<const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}
