import { hash, timingSafeEqual } from 'node:crypto';

/**
 * Whatever mints ids, secrets and codes: a sandbox's store, from the seed, the sandbox name and a counter kept in its
 * meta, so the same requests against the same seed mint the same values (a replayable bug), two sandboxes mint
 * different ones, and an imported snapshot carries on where it left off instead of minting duplicates.
 */
export type Minter = { mint(purpose: string): Buffer };

export function uuidFrom(bytes: Buffer): string {
  const b = Buffer.from(bytes.subarray(0, 16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
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
