import { createHash } from 'node:crypto';

const hex = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

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
