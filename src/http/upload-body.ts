// An upload's body kept as the pieces it arrived in (issue 54): not copied into one Buffer. Fastify's buffer parser
// joins the chunks at the end, and copying each chunk into a Buffer made from the Content-Length still wrote 10 MiB
// into fresh pages per upload: 2.5 s of 24 uploads in a CPU profile on a loaded 2-core machine, stalls of 0.5-1.7 s
// with many at once. A chunk of at least `keptAsIs` bytes is kept as it came (the socket read it into memory of its
// own size); smaller ones, which a client sending in tiny pieces would make by the million, are gathered into pieces
// of `gathered` bytes, so what a kept chunk costs beside its bytes stays small.
import type { IncomingMessage } from 'node:http';
import { fail } from '../errors.js';
import { FileBytes } from '../store/file-bytes.js';
import { bodyTurns } from './body-turns.js';

const tooLarge = (limit: number) => fail.payloadTooLarge(`the body is larger than ${limit} bytes`);

/** A chunk this large is kept as it came. */
export const keptAsIs = 16 * 1024;
/** Smaller chunks are copied into pieces of this size. */
const gathered = 64 * 1024;

/** The body `readBytes` parsed (none: no bytes). */
export const uploadedBody = (body: unknown): FileBytes =>
  body instanceof FileBytes ? body : FileBytes.of(Buffer.alloc(0));

/** The parser of a route whose body is raw bytes, at most `limit` of them (413 past it): a FileBytes. */
export function readBytes(limit: number) {
  return (
    req: { headers: IncomingMessage['headers'] },
    payload: IncomingMessage,
    done: (err: Error | null, body?: FileBytes) => void,
  ) => {
    const declared = Number(req.headers['content-length']);
    const sized = Number.isSafeInteger(declared) && declared >= 0;
    if (sized && declared > limit) return done(tooLarge(limit));
    const max = sized ? declared : limit;
    const chunks: Buffer[] = [];
    // the piece small chunks are gathered into, and how much of it is filled
    let small: Buffer | null = null;
    let filled = 0;
    let received = 0;
    let settled = false;
    const flushSmall = () => {
      if (small && filled > 0) chunks.push(small.subarray(0, filled));
      small = null;
      filled = 0;
    };
    // the error listener stays: a client that aborts after the answer must not meet a stream with none (the
    // process would end on it)
    const stop = () => {
      settled = true;
      bodyTurns.forget(payload);
      payload.off('data', onData);
      payload.off('end', onEnd);
    };
    const onData = (chunk: Buffer) => {
      if (received + chunk.length > max) {
        stop();
        return done(tooLarge(limit));
      }
      received += chunk.length;
      bodyTurns.take(payload, chunk.length);
      if (chunk.length >= keptAsIs) {
        flushSmall();
        chunks.push(chunk);
        return;
      }
      if (small && filled + chunk.length > small.length) flushSmall();
      small ??= Buffer.allocUnsafeSlow(Math.min(gathered, max - received + chunk.length));
      chunk.copy(small, filled);
      filled += chunk.length;
    };
    const onEnd = () => {
      stop();
      flushSmall();
      if (sized && received !== declared)
        return done(fail.badRequest(`the body ended after ${received} of its ${declared} bytes`));
      done(null, FileBytes.ofChunks(chunks));
    };
    const onError = (err: Error) => {
      if (settled) return;
      stop();
      done(err);
    };
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
  };
}
