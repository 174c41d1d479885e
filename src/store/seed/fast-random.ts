// A small seeded generator for the records of users beyond the first `fakerUsers`: faker allocates on every call,
// too slow for --users 100000. The first `fakerUsers` users of a tenant (all at the default size) come from faker.
import { createHash } from 'node:crypto';
import type { Faker } from '@faker-js/faker';
import { cached } from '../world.js';
import { dayMs, isoDay } from './context.js';

/** Users from this index on (per tenant) are generated with FastRandom instead of faker. */
export const fakerUsers = 200;

const hex = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** sfc32: 128 bits of state, so streams of different collections do not overlap (uuids stay unique). */
export class FastRandom {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  constructor(...parts: Array<string | number>) {
    const h = createHash('sha256').update(parts.join(':')).digest();
    this.a = h.readUInt32BE(0);
    this.b = h.readUInt32BE(4);
    this.c = h.readUInt32BE(8);
    this.d = h.readUInt32BE(12) | 1;
    for (let i = 0; i < 12; i++) this.u32();
  }
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }
  /** [0, 1) */
  float(): number {
    return this.u32() / 4294967296;
  }
  /** an integer in [min, max] */
  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }
  boolean(probability = 0.5): boolean {
    return this.float() < probability;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.float() * items.length)]!;
  }
  /** a time in [from, to] (ms) */
  between(from: number, to: number): Date {
    return new Date(from + Math.floor(this.float() * (to - from + 1)));
  }
  /** a random version-4 UUID, lower case, as faker.string.uuid() writes it */
  uuid(): string {
    const a = this.u32();
    const b = this.u32();
    const c = this.u32();
    const d = this.u32();
    const byte = (x: number, shift: number) => hex[(x >>> shift) & 0xff]!;
    // join() gives a flat string; a template literal of this length would keep a tree of cons strings in memory
    return [
      byte(a, 24),
      byte(a, 16),
      byte(a, 8),
      byte(a, 0),
      '-',
      byte(b, 24),
      byte(b, 16),
      '-4',
      hex[(b >>> 8) & 0x0f]!.slice(1),
      byte(b, 0),
      '-',
      hex[0x80 | ((c >>> 24) & 0x3f)],
      byte(c, 16),
      '-',
      byte(c, 8),
      byte(c, 0),
      byte(d, 24),
      byte(d, 16),
      byte(d, 8),
      byte(d, 0),
    ].join('');
  }
  /** `length` digits, leading zeros included */
  numeric(length: number): string {
    return String(this.int(0, 10 ** length - 1)).padStart(length, '0');
  }
  /** digits for '#' and 2–9 for '!' in a faker phone pattern */
  digits(pattern: string): string {
    const out: string[] = [];
    for (const ch of pattern) out.push(ch === '#' ? String(this.int(0, 9)) : ch === '!' ? String(this.int(2, 9)) : ch);
    return out.join('');
  }
}

/** The draws a seeder makes per user: from faker for the first `fakerUsers` users, from a FastRandom beyond. */
export type Random = Pick<FastRandom, 'int' | 'boolean' | 'pick' | 'between' | 'uuid' | 'numeric'>;

/** A faker as a Random: each draw is the faker call the seeders made, so the default data stays the same. */
export const fakerRandom = (faker: Faker): Random => ({
  int: (min, max) => faker.number.int({ min, max }),
  boolean: (probability) => faker.datatype.boolean(probability),
  pick: (items) => faker.helpers.arrayElement(items),
  between: (from, to) => faker.date.between({ from, to }),
  uuid: () => faker.string.uuid(),
  numeric: (length) => faker.string.numeric(length),
});

type Gender = 'male' | 'female';
type Words = { generic?: string[]; male?: string[]; female?: string[] } | string[] | undefined;
const list = (w: Words, gender: Gender): string[] => (Array.isArray(w) ? w : (w?.[gender] ?? w?.generic ?? []));

/** Name parts and phone patterns of a faker's locale, for FastRandom. */
export function localeWords(faker: Faker) {
  const person = faker.rawDefinitions.person as Record<string, Words> | undefined;
  const phones = (faker.rawDefinitions.phone_number as { format?: { international?: string[] } } | undefined)?.format
    ?.international ?? ['+1##########'];
  return {
    firstName: (g: Gender) => list(person?.first_name, g),
    lastName: (g: Gender) => list(person?.last_name, g),
    middleName: (g: Gender) => list(person?.middle_name, g),
    phones,
  };
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));
const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : String(n));

/**
 * `new Date(ms).toISOString()` (and its first ten characters) for years 1000–9999, with the day part cached: the
 * seeders write millions of these at --users 100000, and Date#toISOString is a slow runtime call.
 */
export class IsoFormat {
  private readonly days = new Map<number, string>();
  day(ms: number): string {
    const d = Math.floor(ms / dayMs);
    return cached(this.days, d, () => isoDay(new Date(d * dayMs)));
  }
  time(ms: number): string {
    const t = ms - Math.floor(ms / dayMs) * dayMs;
    const h = Math.floor(t / 3600_000);
    const m = Math.floor((t % 3600_000) / 60_000);
    const s = Math.floor((t % 60_000) / 1000);
    // flat, see uuid()
    return [this.day(ms), 'T', pad2(h), ':', pad2(m), ':', pad2(s), '.', pad3(t % 1000), 'Z'].join('');
  }
}

/**
 * Orders ISO times of one format: their code-unit order is their
 * time order (cheaper than localeCompare at 100 000 users).
 */
export const compareIso = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
