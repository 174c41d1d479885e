import { createHash } from 'node:crypto';
import { uuidFrom } from './ids.js';

/** The 16 bytes of the uuid being drawn. */
const uuidBytes = Buffer.alloc(16);

/**
 * The one seeded generator where faker's own seeding does not serve: the records beyond the first `fakerUsers` of
 * a tenant (faker allocates on every call, too slow for --users 100000) and a sandbox's scenario probabilities and
 * delays. sfc32: 128 bits of state, so streams of different collections do not overlap (uuids stay unique); the
 * state comes from a SHA-256 of the parts, so the same parts always give the same stream.
 */
export class SeededRandom {
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
  next(): number {
    return this.u32() / 4294967296;
  }
  /** A standard normal sample (Box–Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
  /** an integer in [min, max] */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  boolean(probability = 0.5): boolean {
    return this.next() < probability;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  /** a time in [from, to] (ms) */
  between(from: number, to: number): Date {
    return new Date(from + Math.floor(this.next() * (to - from + 1)));
  }
  /** a random version-4 UUID, lower case, as faker.string.uuid() writes it */
  uuid(): string {
    // the four draws in order, big-endian: the layout the seeded data has always had
    for (let at = 0; at < 16; at += 4) uuidBytes.writeUInt32BE(this.u32(), at);
    return uuidFrom(uuidBytes);
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
