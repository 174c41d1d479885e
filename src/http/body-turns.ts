// Bytes of request bodies read in one event-loop turn, across every body at once (issue 54). libuv reads each ready
// socket up to 32 times in a turn, so 80 uploads arriving together were read a few hundred MB at a time, and a health
// check waited behind them: a bare Fastify server reading 80 × 6 bodies of 10 MiB answered a probe at p99 450 ms.
// Past `turnBytes` in a turn, a body pauses (its socket stops reading) and waits; at the end of the turn as many
// waiting bodies go on as the budget holds, the longest waiting first, so that every turn also serves the other
// sockets and no body starves. The same bare server with this budget: p99 46 ms; the mock's upload abuser went from
// p99 146-207 to 32-46 ms (docs/reliability.md).
import type { Readable } from 'node:stream';

/** Body bytes read in one turn before the bodies wait for the next. */
export const turnBytes = 1024 * 1024;

/** What a socket reads at most at once (libuv's 64 KiB). */
export const socketChunk = 64 * 1024;

/** Waiting bodies resumed in a turn: each reads at least a chunk before it can stop again. */
export const resumedPerTurn = turnBytes / socketChunk;

class BodyTurns {
  private taken = 0;
  private ending = false;
  private readonly waiting = new Set<Readable>();

  /**
   * Counts a chunk `body` just gave; past this turn's budget the body pauses until the next turn. Call it from the
   * body's 'data' listener.
   */
  take(body: Readable, bytes: number): void {
    this.endTurnLater();
    this.taken += bytes;
    if (this.taken <= turnBytes) return;
    body.pause();
    this.waiting.add(body);
  }

  /** A body no longer read (ended, refused, aborted): it is not resumed. */
  forget(body: Readable): void {
    this.waiting.delete(body);
  }

  /** Bodies waiting for the next turn (for tests). */
  get waitingCount(): number {
    return this.waiting.size;
  }

  private endTurnLater(): void {
    if (this.ending) return;
    this.ending = true;
    // the check phase, after this turn's I/O: the next turn has a new budget
    setImmediate(() => this.endTurn());
  }

  private endTurn(): void {
    this.taken = 0;
    this.ending = false;
    // each resumed body reads at least a chunk (64 KiB from a socket) before it can be paused again: resuming all of
    // 80 would read 5 MB in the turn whatever the budget, so as many go on as the budget holds, in the order they
    // stopped (one that stops again goes to the back)
    let room = resumedPerTurn;
    for (const body of this.waiting) {
      if (room-- === 0) break;
      this.waiting.delete(body);
      if (!body.destroyed) body.resume();
    }
    if (this.waiting.size > 0) this.endTurnLater();
  }
}

/** The one budget of the process: every body reader shares it. */
export const bodyTurns = new BodyTurns();
