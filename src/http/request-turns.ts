// The time portal requests take in one event-loop turn, across every request at once (issue 54, part 5). A request
// is handled in the turn its last byte arrives, so requests arriving together are handled back to back: eight
// 365-day calendar reads (answers of about 110 KB, some 7 ms each) held the loop 55-60 ms, and a health check sent
// meanwhile waited for all of them (p99 72 ms, longest stall 156 ms under the 10-minute cache-busting abuser).
// Past `turnMs` of work begun in a turn, a request waits for a later turn, first come first served, so that every
// turn also reads the other sockets: a health check, the control plane, a body. A request is never cut: one that
// takes longer than the budget alone still runs whole.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

/** Work begun in one turn before the next requests wait for a later one. */
export const turnMs = 10;

export class RequestTurns {
  /** when this turn's first request began, or -1 between turns */
  private startedAt = -1;
  /** requests waiting for a later turn: while any wait, a new one goes behind them */
  private waiting = 0;
  /** requests that waited, since the process began (for tests) */
  private waited = 0;

  private readonly budgetMs: number;
  private readonly now: () => number;

  constructor(budgetMs = turnMs, now: () => number = () => performance.now()) {
    this.budgetMs = budgetMs;
    this.now = now;
  }

  /** Runs `go` now, or in a later turn past this turn's budget; in the order asked. */
  admit(go: () => void): void {
    if (this.waiting === 0 && this.hasRoom()) {
      go();
      return;
    }
    this.waiting++;
    this.waited++;
    setImmediate(this.retry, go);
  }

  /** Requests waiting for a later turn (for tests). */
  get waitingCount(): number {
    return this.waiting;
  }

  /** Requests that waited for a later turn since the process began (for tests). */
  get waitedCount(): number {
    return this.waited;
  }

  // the check phase runs each waiting request in its own callback: the work a request leaves to promises is done
  // before the next one looks at the clock; one without room goes again, behind those before it
  private readonly retry = (go: () => void): void => {
    if (!this.hasRoom()) {
      setImmediate(this.retry, go);
      return;
    }
    this.waiting--;
    go();
  };

  private hasRoom(): boolean {
    const now = this.now();
    if (this.startedAt < 0) {
      this.startedAt = now;
      // the check phase after this turn's I/O, or the next turn's when it began there: a new budget
      setImmediate(this.endTurn);
      return true;
    }
    return now - this.startedAt < this.budgetMs;
  }

  private readonly endTurn = (): void => {
    this.startedAt = -1;
  };
}

/** The one budget of the process: every portal request shares it. */
export const requestTurns = new RequestTurns();

/**
 * Registered in the portal context after the sandbox and the journal: a waiting request holds its sandbox in use
 * (no idle sweep drops it) and is journaled if its client leaves before its turn. The control plane has no such
 * hook: its health check answers between the portal's requests.
 */
export const requestTurnsPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRequest', (_req, _reply, done) => requestTurns.admit(done));
  },
  { name: 'request-turns', dependencies: ['journal'] },
);
