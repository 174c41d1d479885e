import { createHash } from 'node:crypto';

const hexDigits = Buffer.from('0123456789abcdef', 'latin1');
/**
 * A uuid's 36 characters are written here and read back as one flat string: joining its pieces cost twice as much
 * (millions of uuids at --users 100000), and a template literal of this length keeps a tree of strings in memory.
 */
const uuidText = Buffer.from('00000000-0000-4000-0000-000000000000', 'latin1');
/** Writes a byte as two hex digits at `at`. */
function putHex(at: number, byte: number): void {
  uuidText[at] = hexDigits[byte >>> 4]!;
  uuidText[at + 1] = hexDigits[byte & 0x0f]!;
}
/** Writes a 32-bit number as eight hex digits at `at`. */
function putHex32(at: number, x: number): void {
  putHex(at, x >>> 24);
  putHex(at + 2, (x >>> 16) & 0xff);
  putHex(at + 4, (x >>> 8) & 0xff);
  putHex(at + 6, x & 0xff);
}

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
    // xxxxxxxx-xxxx-4xxx-Yxxx-xxxxxxxxxxxx (Y is 8, 9, a or b), from the four draws in order
    putHex32(0, a);
    putHex(9, b >>> 24);
    putHex(11, (b >>> 16) & 0xff);
    uuidText[15] = hexDigits[(b >>> 8) & 0x0f]!;
    putHex(16, b & 0xff);
    putHex(19, 0x80 | ((c >>> 24) & 0x3f));
    putHex(21, (c >>> 16) & 0xff);
    putHex(24, (c >>> 8) & 0xff);
    putHex(26, c & 0xff);
    putHex32(28, d);
    return uuidText.toString('latin1');
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
