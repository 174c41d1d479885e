// A value as JSON, written in slices into a stream that waits for its reader (issue 54, part 5): an export of a
// sandbox holding tens of MB of uploads, serialized in one JSON.stringify, stalled the event loop for seconds and held
// the whole text per client. The text is byte for byte JSON.stringify's: the same walk (own enumerable keys in order,
// toJSON(key) honoured, undefined and functions left out of objects and null in arrays, non-finite numbers null);
// each slice of work is short, and a reader that stops reading stops the writer.
import { Readable } from 'node:stream';

/** A string longer than this is written in pieces of this many characters (a Buffer's base64, an upload's text). */
const stringPiece = 256 * 1024;
/** An object or array whose JSON is about this many characters at most is written by one JSON.stringify. */
const smallChars = 16 * 1024;

/**
 * A value whose JSON is a string too long to make at once (an upload's base64): `[jsonStringPieces]()` yields that
 * string's JSON text without its quotes, already escaped, in pieces; its `toJSON` gives the same string whole, for
 * JSON.stringify. The writer below writes the pieces as it goes and never calls toJSON.
 */
export const jsonStringPieces = Symbol('jsonStringPieces');
type StringPieces = { [jsonStringPieces](): Iterator<string> };
const isStringPieces = (value: unknown): value is StringPieces =>
  value !== null && typeof value === 'object' && typeof (value as StringPieces)[jsonStringPieces] === 'function';

/**
 * A list whose items are made as the writer reaches them (a HAR entry per journal entry): the work of making them is
 * sliced with the writing. toJSON makes them all, for JSON.stringify; the text is the same.
 */
export class LazyList<S, T> {
  readonly #source: readonly S[];
  readonly #make: (item: S) => T;
  constructor(source: readonly S[], make: (item: S) => T) {
    this.#source = source;
    this.#make = make;
  }
  get length(): number {
    return this.#source.length;
  }
  /** the item at `index`, made now */
  at(index: number): T {
    return this.#make(this.#source[index]!);
  }
  toJSON(): T[] {
    return this.#source.map((item) => this.#make(item));
  }
  /** The same list, each item made by `make` from what this list makes. */
  map<U>(make: (item: T) => U): LazyList<S, U> {
    const first = this.#make;
    return new LazyList(this.#source, (item) => make(first(item)));
  }
}

/** An open container knows its depth (the root's is 0): with an indent, its lines are indented by it. */
type Frame =
  | { kind: 'lazy'; list: LazyList<unknown, unknown>; at: number; depth: number }
  | { kind: 'pieces'; pieces: Iterator<string> }
  | { kind: 'array'; list: readonly unknown[]; at: number; depth: number }
  | { kind: 'object'; obj: Record<string, unknown>; keys: string[]; at: number; wrote: boolean; depth: number }
  | { kind: 'string'; text: string; at: number };

/** What JSON.stringify does to a value before writing it: toJSON(key), then boxed primitives unboxed. */
function prepared(value: unknown, key: string): unknown {
  if (isStringPieces(value) || value instanceof LazyList) return value;
  if (value !== null && (typeof value === 'object' || typeof value === 'bigint')) {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') value = (toJSON as (k: string) => unknown).call(value, key);
  }
  if (value instanceof Number) return Number(value);
  if (value instanceof String) return String(value);
  if (value instanceof Boolean) return value.valueOf();
  return value;
}

/** Whether JSON.stringify leaves this value out (in an object) or writes null for it (in an array). */
const unwritten = (value: unknown) => value === undefined || typeof value === 'function' || typeof value === 'symbol';

/**
 * Whether one native JSON.stringify of `value` is a short piece of work: its text is about `budget` characters at
 * most (a record of the store, a small list). An object with a toJSON other than a Date's may stand for any size
 * (a Buffer's base64): never counted as small.
 */
function small(value: object, budget: number): boolean {
  const stack: object[] = [value];
  let left = budget;
  let seen = 0;
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (++seen > 1000) return false; // deep or wide: walked, and a cycle is found by the walk
    const toJSON = (node as { toJSON?: unknown }).toJSON;
    // the value's own toJSON was called already: JSON.stringify(value) would call it again
    if (typeof toJSON === 'function' && (node === value || !(node instanceof Date))) return false;
    const keys = Array.isArray(node) ? null : Object.keys(node);
    const values = keys === null ? (node as unknown[]) : Object.values(node);
    if (keys !== null) for (const key of keys) left -= key.length + 4;
    for (const v of values) {
      if (typeof v === 'string') left -= v.length + 2;
      else if (v !== null && typeof v === 'object') stack.push(v);
      else if (typeof v === 'bigint') return false;
      else left -= 8;
    }
    if (left < 0) return false;
  }
  return true;
}

/** Whether JSON.stringify(value) is about `chars` characters at most, found by a walk that stops past them. */
export const jsonIsShort = (value: object, chars: number): boolean => small(value, chars);

/**
 * JSON.stringify(value, null, indent) (no replacer; indent 0, the default, is no indent) as a resumable walk:
 * `next(chars)` gives the next piece of about that many characters (a piece may run over by one short value), ''
 * once the text is whole. A cycle throws JSON.stringify's TypeError, as does a BigInt.
 */
export class JsonWriter {
  private readonly stack: Frame[] = [];
  /** the objects on the path being written: a cycle is an error, as in JSON.stringify */
  private readonly open = new Set<object>();
  private out: string[] = [];
  private length = 0;
  private done = false;
  /** spaces per level; 0: compact */
  private readonly indent: number;
  /** the line breaks and indents of each depth, made once */
  private readonly breaks: string[] = [];

  constructor(value: unknown, indent = 0) {
    // JSON.stringify's rule: at most 10 spaces
    this.indent = Math.max(0, Math.min(10, Math.floor(indent)));
    const root = prepared(value, '');
    // JSON.stringify(undefined) is undefined: an export always has a body, so the writer writes nothing
    if (unwritten(root)) this.done = true;
    else this.value(root, 0);
  }

  /** A line break and the indent of `depth`; '' without an indent. */
  private lineAt(depth: number): string {
    if (this.indent === 0) return '';
    this.breaks[depth] ??= `\n${' '.repeat(this.indent * depth)}`;
    return this.breaks[depth];
  }

  next(chars: number): string {
    while (this.length < chars && this.stack.length > 0) this.step(chars);
    if (this.stack.length === 0) this.done = true;
    const piece = this.out.join('');
    this.out = [];
    this.length = 0;
    return piece;
  }

  get finished(): boolean {
    return this.done && this.length === 0;
  }

  private write(text: string): void {
    this.out.push(text);
    this.length += text.length;
  }

  /** Writes a prepared value that JSON.stringify writes (not undefined, a function or a symbol), at `depth`. */
  private value(value: unknown, depth: number): void {
    if (value === null || typeof value === 'number' || typeof value === 'boolean') {
      this.write(JSON.stringify(value));
      return;
    }
    if (typeof value === 'bigint') throw new TypeError('Do not know how to serialize a BigInt');
    if (typeof value === 'string') {
      if (value.length <= stringPiece) this.write(JSON.stringify(value));
      else {
        this.write('"');
        this.stack.push({ kind: 'string', text: value, at: 0 });
      }
      return;
    }
    if (value instanceof LazyList) {
      this.write('[');
      this.stack.push({ kind: 'lazy', list: value, at: 0, depth });
      return;
    }
    if (isStringPieces(value)) {
      this.write('"');
      this.stack.push({ kind: 'pieces', pieces: value[jsonStringPieces]() });
      return;
    }
    const obj = value as object;
    if (this.open.has(obj)) throw new TypeError('Converting circular structure to JSON');
    if (small(obj, smallChars)) {
      if (this.indent === 0) this.write(JSON.stringify(obj));
      // indented from column 0: each line moved to this depth (a JSON text has no raw line break inside a string)
      else if (depth === 0) this.write(JSON.stringify(obj, null, this.indent));
      else this.write(JSON.stringify(obj, null, this.indent).replace(/\n/g, this.lineAt(depth)));
      return;
    }
    this.open.add(obj);
    if (Array.isArray(obj)) {
      this.write('[');
      this.stack.push({ kind: 'array', list: obj, at: 0, depth });
    } else {
      this.write('{');
      this.stack.push({
        kind: 'object',
        obj: obj as Record<string, unknown>,
        keys: Object.keys(obj),
        at: 0,
        wrote: false,
        depth,
      });
    }
  }

  private step(chars: number): void {
    const frame = this.stack.at(-1)!;
    if (frame.kind === 'string') {
      let end = Math.min(frame.text.length, frame.at + Math.max(1024, chars - this.length));
      // never between the two halves of a surrogate pair: each half alone would be written as an escape
      const last = frame.text.charCodeAt(end - 1);
      if (end < frame.text.length && last >= 0xd800 && last <= 0xdbff) end++;
      const quoted = JSON.stringify(frame.text.slice(frame.at, end));
      this.write(quoted.slice(1, -1));
      frame.at = end;
      if (end === frame.text.length) {
        this.write('"');
        this.stack.pop();
      }
      return;
    }
    if (frame.kind === 'lazy') {
      if (frame.at === frame.list.length) {
        this.write(frame.list.length > 0 ? `${this.lineAt(frame.depth)}]` : ']');
        this.stack.pop();
        return;
      }
      const index = frame.at++;
      this.write(index > 0 ? `,${this.lineAt(frame.depth + 1)}` : this.lineAt(frame.depth + 1));
      const item = prepared(frame.list.at(index), String(index));
      if (unwritten(item)) this.write('null');
      else this.value(item, frame.depth + 1);
      return;
    }
    if (frame.kind === 'pieces') {
      const piece = frame.pieces.next();
      if (piece.done) {
        this.write('"');
        this.stack.pop();
      } else this.write(piece.value);
      return;
    }
    if (frame.kind === 'array') {
      if (frame.at === frame.list.length) {
        // an empty array is [] with an indent too
        this.write(frame.list.length > 0 ? `${this.lineAt(frame.depth)}]` : ']');
        this.close(frame.list);
        return;
      }
      const index = frame.at++;
      this.write(index > 0 ? `,${this.lineAt(frame.depth + 1)}` : this.lineAt(frame.depth + 1));
      const item = prepared(frame.list[index], String(index));
      if (unwritten(item)) this.write('null');
      else this.value(item, frame.depth + 1);
      return;
    }
    const colon = this.indent > 0 ? ': ' : ':';
    while (frame.at < frame.keys.length) {
      const key = frame.keys[frame.at++]!;
      const item = prepared(frame.obj[key], key);
      if (unwritten(item)) continue;
      const line = this.lineAt(frame.depth + 1);
      this.write(`${frame.wrote ? ',' : ''}${line}${JSON.stringify(key)}${colon}`);
      frame.wrote = true;
      this.value(item, frame.depth + 1);
      return;
    }
    // an object whose every value was left out is {} with an indent too
    this.write(frame.wrote ? `${this.lineAt(frame.depth)}}` : '}');
    this.close(frame.obj);
  }

  private close(obj: object): void {
    this.stack.pop();
    this.open.delete(obj);
  }
}

export type JsonStreamOptions = {
  /** ms a reader may read nothing while the stream waits for it; then the stream is destroyed (its connection cut) */
  stallTimeout: number;
  /** spaces per level, as JSON.stringify's third argument (a file a person reads); 0, the default: compact */
  indent?: number;
  /** characters per pushed chunk */
  chunkChars?: number;
  /** ms of writing before the event loop is given back to other work */
  sliceMs?: number;
  /** bytes the stream buffers before it waits for its reader (Readable's highWaterMark) */
  highWaterMark?: number;
};

/** Bytes a JSON export buffers ahead of its reader before it waits (plus one chunk being written). */
export const jsonStreamHighWaterMark = 256 * 1024;
const defaultChunkChars = 64 * 1024;
const defaultSliceMs = 8;

/** The error a JSON stream is destroyed with when its reader read nothing for the stall timeout. */
export class StalledReaderError extends Error {
  readonly code = 'EXPORT_READER_STALLED';
  /** bytes the stream held unread when it was cut */
  readonly heldBytes: number;
  /** bytes it had written in all */
  readonly producedBytes: number;
  constructor(message: string, heldBytes: number, producedBytes: number) {
    super(message);
    this.heldBytes = heldBytes;
    this.producedBytes = producedBytes;
  }
}

/**
 * The time of one event-loop turn that every JSON stream shares: together they write for at most their sliceMs a
 * turn, then wait for the next. Each stream counting only its own time let nine streams (eight clients that read
 * nothing and one that read) take 9 × 8 ms of a turn, plus the socket writes between them (stalls of 200-390 ms,
 * issue 54). In the next turn the streams that waited without writing go first, then those that wrote: none is
 * starved by one that always asks first.
 */
class TurnBudget {
  /** when this turn's writing began; null: none yet in this turn */
  private start: number | null = null;
  /** streams to go on in the next turn: those that wrote nothing in this one, and those that did */
  private readonly unserved = new Set<() => void>();
  private readonly served = new Set<() => void>();

  /** Whether writing may go on in this turn: the first call of a turn begins its slice. */
  open(sliceMs: number): boolean {
    const now = performance.now();
    if (this.start === null) {
      this.start = now;
      // the check phase, after this turn's I/O: the next turn begins a new slice
      setImmediate(() => this.endTurn());
      return true;
    }
    return now - this.start < sliceMs;
  }

  /** `resume` runs in the next turn (once, however often it is asked for); `wrote`: it had its share of this one. */
  later(resume: () => void, wrote: boolean): void {
    this.forget(resume);
    (wrote ? this.served : this.unserved).add(resume);
  }

  forget(resume: () => void): void {
    this.unserved.delete(resume);
    this.served.delete(resume);
  }

  private endTurn(): void {
    this.start = null;
    const due = [...this.unserved, ...this.served];
    this.unserved.clear();
    this.served.clear();
    for (const resume of due) resume();
  }
}
const turnBudget = new TurnBudget();

/**
 * JSON.stringify(value, null, indent) as a Readable of UTF-8 bytes: written `chunkChars` at a time while its reader
 * takes them, giving the event loop back every `sliceMs`; it waits (writes nothing more) once `highWaterMark` bytes
 * wait unread, and is destroyed with a StalledReaderError when it waited `stallTimeout` ms with no read. It emits
 * 'waiting' each time it stops for its reader; `produced` counts the bytes written so far. The value is read as the
 * stream goes: give it data that does not change (the store's frozen collections), else the text is whatever the
 * value held when each part was written.
 *
 * The slice's time is counted from the start of the turn, across reads and across streams (TurnBudget): a piped
 * reader whose socket takes what it is given (a client on the same machine) reads again within the same turn each
 * time the buffer is full, and when every read began a new slice a 25 MB state was written in one turn (a 630 ms
 * stall, issue 54).
 */
export class JsonStream extends Readable {
  /** bytes pushed so far */
  produced = 0;
  private readonly writer: JsonWriter;
  private readonly chunkChars: number;
  private readonly sliceMs: number;
  private readonly stallTimeout: number;
  private wanted = false;
  private running = false;
  /** the turn's slice was used up while the reader still wanted more: it goes on in the next turn */
  private resumePending = false;
  private readonly goOn = () => {
    this.resumePending = false;
    if (this.wanted && !this.destroyed) this.run();
  };
  /** armed while the stream waits for its reader; it fires once and looks at lastRead (no timer per chunk) */
  private stallTimer: NodeJS.Timeout | undefined;
  private lastRead = 0;
  private waitingForReader = false;

  constructor(value: unknown, options: JsonStreamOptions) {
    super({ highWaterMark: options.highWaterMark ?? jsonStreamHighWaterMark });
    this.writer = new JsonWriter(value, options.indent);
    this.chunkChars = options.chunkChars ?? defaultChunkChars;
    this.sliceMs = options.sliceMs ?? defaultSliceMs;
    this.stallTimeout = options.stallTimeout;
  }

  override _read(): void {
    this.wanted = true;
    this.waitingForReader = false;
    this.lastRead = performance.now();
    if (!this.running && !this.resumePending) this.run();
  }

  /** Chunks until the reader has enough or this turn's slice is used up (then the rest in the next turn). */
  private run(): void {
    this.running = true;
    let wrote = false;
    try {
      while (this.wanted && !this.destroyed) {
        if (!turnBudget.open(this.sliceMs)) {
          this.resumePending = true;
          turnBudget.later(this.goOn, wrote);
          return;
        }
        const piece = this.writer.next(this.chunkChars);
        wrote = true;
        if (piece !== '') {
          const bytes = Buffer.from(piece, 'utf8');
          this.produced += bytes.length;
          this.wanted = this.push(bytes);
        }
        if (this.writer.finished) {
          this.push(null);
          return;
        }
      }
    } catch (err) {
      this.destroy(err as Error);
      return;
    } finally {
      this.running = false;
    }
    // the buffer is full: the reader has stallTimeout ms to take some of it
    if (this.destroyed) return;
    this.waitingForReader = true;
    this.stallTimer ??= setTimeout(() => this.checkStalled(), this.stallTimeout);
    this.emit('waiting');
  }

  private checkStalled(): void {
    this.stallTimer = undefined;
    if (!this.waitingForReader || this.destroyed) return;
    const waited = performance.now() - this.lastRead;
    if (waited < this.stallTimeout) {
      this.stallTimer = setTimeout(() => this.checkStalled(), this.stallTimeout - waited);
      return;
    }
    const message = `the reader read nothing for ${this.stallTimeout} ms`;
    this.destroy(new StalledReaderError(message, this.readableLength, this.produced));
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    clearTimeout(this.stallTimer);
    turnBudget.forget(this.goOn);
    callback(err);
  }
}
