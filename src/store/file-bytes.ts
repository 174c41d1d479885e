// An uploaded file's bytes as a record keeps them: the Buffer itself, not its base64 text (a third larger, and a
// string the heap bound never saw: 80 sandboxes × 60 MiB of uploads held 6.9 GB with a 35 MB heap). Records are
// deep-frozen and a Buffer cannot be frozen, so the bytes sit in a private field of a frozen object. Wherever a record
// becomes JSON (snapshots, bug captures, the --data log, the records API) `toJSON` writes the base64 it always was,
// so those formats and their bytes do not change; the store turns base64 that comes in back into bytes.
import { TypeRegistry } from '@sinclair/typebox';
import { jsonStringPieces } from '../shared/json-stream.js';

/** Bytes of base64 per piece an export writes (a multiple of 3: the pieces' text joins into the whole's). */
const base64PieceBytes = 3 * 64 * 1024;

export class FileBytes {
  // the pieces the body arrived in (src/http/upload-body.ts), never joined: joining 10 MiB into fresh pages was most
  // of an upload's stall (2.5 s of 24 uploads in a CPU profile, issue 54)
  readonly #chunks: readonly Buffer[];
  /** bytes, as the per-sandbox upload bound and the memory budget count them */
  readonly size: number;

  private constructor(chunks: readonly Buffer[]) {
    this.#chunks = Object.freeze([...chunks]);
    this.size = chunks.reduce((n, c) => n + c.length, 0);
    Object.freeze(this);
  }

  /** Keeps `bytes` as given (no copy): the caller hands them over and never changes them again. */
  static of(bytes: Buffer): FileBytes {
    return new FileBytes([bytes]);
  }

  /** Keeps the pieces as given, in order (no copy), as `of` does. */
  static ofChunks(chunks: readonly Buffer[]): FileBytes {
    return new FileBytes(chunks);
  }

  /** The pieces, in order, to send as they are; not to be changed. */
  chunks(): readonly Buffer[] {
    return this.#chunks;
  }

  /** The bytes as one Buffer, for a reader that needs them whole: a copy when they came in pieces. */
  bytes(): Buffer {
    return this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.size);
  }

  /**
   * The bytes as one Buffer, copied `perTurn` bytes at a time with the event loop let through between: for work in
   * the background (file processing), where joining 10 MiB into fresh pages at once held the loop ~100 ms under load.
   */
  async bytesInTurns(perTurn = 1024 * 1024): Promise<Buffer> {
    if (this.#chunks.length === 1) return this.#chunks[0]!;
    const out = Buffer.allocUnsafe(this.size);
    let at = 0;
    let sinceTurn = 0;
    for (const chunk of this.#chunks) {
      if (sinceTurn >= perTurn) {
        await new Promise((resolve) => setImmediate(resolve));
        sinceTurn = 0;
      }
      chunk.copy(out, at);
      at += chunk.length;
      sinceTurn += chunk.length;
    }
    return out;
  }

  /** The base64 text in pieces of at most `pieceBytes` bytes each (a multiple of 3): joined, it is toJSON's. */
  *base64Pieces(pieceBytes = base64PieceBytes): Generator<string> {
    let carry: Buffer = Buffer.alloc(0);
    for (const chunk of this.#chunks) {
      let at = 0;
      if (carry.length > 0) {
        // the 1 or 2 bytes left of the previous piece, completed to 3 from this one
        at = Math.min(3 - carry.length, chunk.length);
        carry = Buffer.concat([carry, chunk.subarray(0, at)]);
        if (carry.length < 3) continue;
        yield carry.toString('base64');
      }
      while (chunk.length - at >= 3) {
        const end = at + Math.min(pieceBytes, Math.floor((chunk.length - at) / 3) * 3);
        yield chunk.toString('base64', at, end);
        at = end;
      }
      carry = Buffer.from(chunk.subarray(at));
    }
    if (carry.length > 0) yield carry.toString('base64');
  }

  /** A JSON export (src/shared/json-stream.ts) writes the base64 in pieces, never the whole text at once. */
  [jsonStringPieces](): Iterator<string> {
    return this.base64Pieces();
  }

  toJSON(): string {
    return [...this.base64Pieces()].join('');
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

/** The bytes of a file's content as one Buffer, joined a MiB a turn when kept in pieces (background work). */
export const bytesOfContentInTurns = (content: string): Promise<Buffer> => {
  const held: unknown = content;
  return held instanceof FileBytes ? held.bytesInTurns() : Promise.resolve(Buffer.from(content, 'base64'));
};

/** The bytes of a file's content in the pieces it is kept in, to send as they are (no copy). */
export const chunksOfContent = (content: string): readonly Buffer[] => {
  const held: unknown = content;
  return held instanceof FileBytes ? held.chunks() : [Buffer.from(content, 'base64')];
};

/**
 * `bytes` as a file record's content: FileBytes in memory, typed as the base64 text it is in JSON (the record's
 * schema is its JSON form, so the typed client and the documents say string).
 */
export const contentOf = (bytes: Buffer | FileBytes): string =>
  (bytes instanceof FileBytes ? bytes : FileBytes.of(bytes)) as unknown as string;

/** How many bytes a file's content holds, without decoding base64. */
export function sizeOfContent(content: string): number {
  const held: unknown = content;
  if (held instanceof FileBytes) return held.size;
  const padding = content.endsWith('==') ? 2 : content.endsWith('=') ? 1 : 0;
  return (content.length / 4) * 3 - padding;
}
