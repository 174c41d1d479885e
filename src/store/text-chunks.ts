/** A run of bytes texts are written into, one after the other; reused once none of its texts is kept. */
type Chunk = { bytes: Buffer; used: number; kept: number };

/** Where a kept text lies; the owner keeps it (a journal slot) and hands it back to read or drop the text. */
export type TextPlace = { chunk: Chunk | null; start: number; length: number };

const firstChunkBytes = 4 * 1024;
const largestChunkBytes = 64 * 1024;
/** A text larger than this gets a chunk of exactly its size: packed into 64 KB chunks, two of them wasted a third */
const ownChunkFrom = 16 * 1024;
/** Empty chunks kept to be written again; more are given up, so a journal that shrank holds what it keeps */
const freeChunksKept = 2;

/**
 * Texts kept outside the JavaScript heap, as UTF-8 bytes. A journal keeps each request for the next thousand; kept
 * as strings, those texts were copied by every scavenge while they lived, which cost more than the rest of the
 * journal together (docs/performance.md, "The journal"). Bytes are neither traced nor copied by the collector.
 *
 * Each text is a list of parts (a request's url, body, headers …), written as a 4-byte length and the part's bytes.
 * Chunks start small, so a sandbox that sees a few requests holds a few KB, and double up to 64 KB.
 */
export class TextChunks {
  /** the chunk new texts go into */
  private current: Chunk | null = null;
  /** every chunk made and not given up (what this store holds) */
  private held = 0;
  /** chunks none of whose texts is kept, to be written again */
  private free: Chunk[] = [];
  private nextSize = firstChunkBytes;

  /**
   * Writes `parts` as one text and records where in `place` (which must hold no text); answers the bytes it takes.
   * The bytes are a copy: the text keeps nothing of the strings it was given (nor the request they came from).
   */
  write(place: TextPlace, parts: readonly string[]): number {
    // room for the longest the parts can be (UTF-8 takes at most 3 bytes per UTF-16 unit): measuring each part
    // first took as long as writing it, so they are measured only when the longest does not fit where they go.
    // A new chunk is made for the exact size: sized for the longest, a text of non-Latin letters reserved three
    // times what it takes (issue 54: 122 MB of ArrayBuffers for a journal whose texts took 40)
    let most = 0;
    for (const part of parts) most += 4 + 3 * part.length;
    const current = this.current;
    let size = most;
    if (!current || current.used + most > current.bytes.length) {
      size = 0;
      for (const part of parts) size += 4 + Buffer.byteLength(part, 'utf8');
    }
    const chunk = this.chunkWithRoom(size);
    const start = chunk.used;
    let at = start;
    for (const part of parts) {
      const written = chunk.bytes.write(part, at + 4, 'utf8');
      chunk.bytes.writeUInt32LE(written, at);
      at += 4 + written;
    }
    place.chunk = chunk;
    place.start = start;
    place.length = at - start;
    chunk.used = at;
    chunk.kept++;
    return place.length;
  }

  /** The parts of the text at `place`, as they were written (a string that is not well-formed UTF-16 is not kept as is). */
  read(place: TextPlace): string[] {
    const parts: string[] = [];
    const { chunk, start, length } = place;
    if (!chunk) return parts;
    for (let at = start; at < start + length; ) {
      const size = chunk.bytes.readUInt32LE(at);
      parts.push(chunk.bytes.toString('utf8', at + 4, at + 4 + size));
      at += 4 + size;
    }
    return parts;
  }

  /**
   * A copy of the text at `place`, in a chunk of its own that `read` reads: what a later drop or write does to
   * `place` or its chunk leaves the copy as it was.
   */
  copy(place: TextPlace): TextPlace {
    const { chunk, start, length } = place;
    if (!chunk) return { chunk: null, start: 0, length: 0 };
    const bytes = Buffer.from(chunk.bytes.subarray(start, start + length));
    return { chunk: { bytes, used: length, kept: 1 }, start: 0, length };
  }

  /** Lets the text at `place` go; its chunk is written again once it keeps no text. */
  drop(place: TextPlace): void {
    const { chunk } = place;
    if (!chunk) return;
    place.chunk = null;
    if (--chunk.kept > 0) return;
    chunk.used = 0;
    if (chunk === this.current) return;
    if (this.free.length < freeChunksKept) this.free.push(chunk);
    else this.held -= chunk.bytes.length;
  }

  /** Drops every text and chunk. */
  clear(): void {
    this.current = null;
    this.free = [];
    this.nextSize = firstChunkBytes;
    this.held = 0;
  }

  /** The bytes of the chunks this store holds, written or free. */
  heldBytes(): number {
    return this.held;
  }

  private chunkWithRoom(size: number): Chunk {
    const current = this.current;
    if (current && current.used + size <= current.bytes.length) return current;
    // a chunk left behind with texts in it is freed by the drop of its last one; an empty one is given up
    if (current && current.kept === 0) this.held -= current.bytes.length;
    const reused = this.free.findIndex((c) => c.bytes.length >= size);
    let chunk: Chunk;
    if (reused >= 0) chunk = this.free.splice(reused, 1)[0]!;
    else {
      const bytes = size > ownChunkFrom ? size : Math.max(this.nextSize, size);
      chunk = { bytes: Buffer.allocUnsafeSlow(bytes), used: 0, kept: 0 };
      this.held += chunk.bytes.length;
      if (size <= ownChunkFrom) this.nextSize = Math.min(2 * this.nextSize, largestChunkBytes);
    }
    this.current = chunk;
    return chunk;
  }
}
