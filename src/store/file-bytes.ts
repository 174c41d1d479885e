// An uploaded file's bytes as a record keeps them: the Buffer itself, not its base64 text (a third larger, and a
// string the heap bound never saw: 80 sandboxes × 60 MiB of uploads held 6.9 GB with a 35 MB heap). Records are
// deep-frozen and a Buffer cannot be frozen, so the bytes sit in a private field of a frozen object. Wherever a record
// becomes JSON (snapshots, bug captures, the --data log, the records API) `toJSON` writes the base64 it always was,
// so those formats and their bytes do not change; the store turns base64 that comes in back into bytes.
import { TypeRegistry } from '@sinclair/typebox';

export class FileBytes {
  readonly #bytes: Buffer;
  /** bytes, as the per-sandbox upload bound and the memory budget count them */
  readonly size: number;

  private constructor(bytes: Buffer) {
    this.#bytes = bytes;
    this.size = bytes.length;
    Object.freeze(this);
  }

  /** Keeps `bytes` as given (no copy): the caller hands them over and never changes them again. */
  static of(bytes: Buffer): FileBytes {
    return new FileBytes(bytes);
  }

  /** The bytes themselves, to send; not to be changed. */
  bytes(): Buffer {
    return this.#bytes;
  }

  toJSON(): string {
    return this.#bytes.toString('base64');
  }

  toString(): string {
    return this.toJSON();
  }
}

/**
 * Whether `text` is base64 exactly as FileBytes writes it (padded, no stray characters), so what comes in goes out
 * again byte for byte. Decoding ignores what it cannot read, hence the round trip; only imports and the records API
 * ask, and their bodies are within --body-limit.
 */
export const isCanonicalBase64 = (text: string) =>
  text.length % 4 === 0 && Buffer.from(text, 'base64').toString('base64') === text;

// the check of schemas/file-bytes.ts's FileContent: registered with the class it knows
TypeRegistry.Set<object>(
  'FileBytes',
  (_schema, value) => value instanceof FileBytes || (typeof value === 'string' && isCanonicalBase64(value)),
);

/** The bytes of a file's content, whichever form the record holds. */
export const bytesOfContent = (content: string): Buffer => {
  const held: unknown = content;
  return held instanceof FileBytes ? held.bytes() : Buffer.from(content, 'base64');
};

/**
 * `bytes` as a file record's content: FileBytes in memory, typed as the base64 text it is in JSON (the record's
 * schema is its JSON form, so the typed client and the documents say string).
 */
export const contentOf = (bytes: Buffer): string => FileBytes.of(bytes) as unknown as string;

/** How many bytes a file's content holds, without decoding base64. */
export function sizeOfContent(content: string): number {
  const held: unknown = content;
  if (held instanceof FileBytes) return held.size;
  const padding = content.endsWith('==') ? 2 : content.endsWith('=') ? 1 : 0;
  return (content.length / 4) * 3 - padding;
}
