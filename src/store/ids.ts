import { hash, timingSafeEqual } from 'node:crypto';

/**
 * Whatever mints ids, secrets and codes: a sandbox's store, from the seed, the sandbox name and a counter kept in its
 * meta, so the same requests against the same seed mint the same values (a replayable bug), two sandboxes mint
 * different ones, and an imported snapshot carries on where it left off instead of minting duplicates.
 */
export type Minter = { mint(purpose: string): Buffer };

const hexDigits = Buffer.from('0123456789abcdef', 'latin1');
/** Where each of a uuid's 16 bytes goes in its text, as two hex digits. */
const uuidPlaces = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
/**
 * A uuid's 36 characters are written here and read back as one flat string: the seeders make millions at
 * --users 100000, and joining pieces cost twice as much (a template literal keeps a tree of strings in memory).
 */
const uuidText = Buffer.from('00000000-0000-0000-0000-000000000000', 'latin1');

/** A version-4 uuid from the first 16 of `bytes` (there must be 16; version and variant bits set). */
export function uuidFrom(bytes: Uint8Array): string {
  for (let i = 0; i < 16; i++) {
    const byte = i === 6 ? (bytes[i]! & 0x0f) | 0x40 : i === 8 ? (bytes[i]! & 0x3f) | 0x80 : bytes[i]!;
    uuidText[uuidPlaces[i]!] = hexDigits[byte >>> 4]!;
    uuidText[uuidPlaces[i]! + 1] = hexDigits[byte & 0x0f]!;
  }
  return uuidText.toString('latin1');
}

export const newUuid = (minter: Minter, purpose = 'id') => uuidFrom(minter.mint(purpose));
export const newSecret = (minter: Minter, purpose = 'secret') => minter.mint(purpose).toString('base64url');
export const newCode = (minter: Minter, digits = 6) =>
  String(minter.mint('code').readUInt32BE(0) % 10 ** digits).padStart(digits, '0');

// the one-shot hash, cheaper than a Hash object per call: every authenticated request hashes (docs/performance.md)
export const hashSecret = (secret: string) => hash('sha256', secret);

/** Compares a presented secret with a stored hash in constant time. */
export function secretMatches(presented: string, storedHash: string): boolean {
  const a = hash('sha256', presented, 'buffer');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A stable 32-bit number from any text: derives independent faker seeds per tenant and collection. */
export function seedFrom(...parts: Array<string | number>): number {
  return hash('sha256', parts.join(':'), 'buffer').readUInt32BE(0);
}
