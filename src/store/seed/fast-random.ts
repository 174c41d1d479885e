// The records of users beyond the first `fakerUsers` come from a SeededRandom (src/store/random.ts): faker allocates
// on every call, too slow for --users 100000. The first `fakerUsers` users of a tenant (all at the default size)
// come from faker.
import type { Faker } from '@faker-js/faker';
import { cached } from '../world.js';
import type { SeededRandom } from '../random.js';
import { dayMs, isoDay } from './context.js';

/** Users from this index on (per tenant) are generated with a SeededRandom instead of faker. */
export const fakerUsers = 200;

/** The draws a seeder makes per user: from faker for the first `fakerUsers` users, from a SeededRandom beyond. */
export type Random = Pick<SeededRandom, 'int' | 'boolean' | 'pick' | 'between' | 'uuid' | 'numeric'>;

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

/** Name parts and phone patterns of a faker's locale, for a SeededRandom. */
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

/**
 * `new Date(ms).toISOString()` (and its first ten characters) for years 1000–9999, with the day part cached: the
 * seeders write millions of these at --users 100000, and Date#toISOString is a slow runtime call. A time's 24
 * characters are written into one buffer and read back as one flat string (see SeededRandom.uuid).
 */
export class IsoFormat {
  private readonly days = new Map<number, string>();
  private readonly text = Buffer.from('0000-00-00T00:00:00.000Z', 'latin1');
  day(ms: number): string {
    const d = Math.floor(ms / dayMs);
    return cached(this.days, d, () => isoDay(new Date(d * dayMs)));
  }
  time(ms: number): string {
    const day = this.day(ms);
    for (let i = 0; i < 10; i++) this.text[i] = day.charCodeAt(i);
    const t = ms - Math.floor(ms / dayMs) * dayMs;
    this.putDigits(11, 2, Math.floor(t / 3600_000));
    this.putDigits(14, 2, Math.floor((t % 3600_000) / 60_000));
    this.putDigits(17, 2, Math.floor((t % 60_000) / 1000));
    this.putDigits(20, 3, t % 1000);
    return this.text.toString('latin1');
  }
  /** Writes `n` as `width` decimal digits, leading zeros included, at `at`. */
  private putDigits(at: number, width: number, n: number): void {
    for (let i = at + width - 1; i >= at; i--) {
      this.text[i] = 48 + (n % 10);
      n = Math.floor(n / 10);
    }
  }
}

/**
 * Orders ISO times of one format: their code-unit order is their
 * time order (cheaper than localeCompare at 100 000 users).
 */
export const compareIso = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
