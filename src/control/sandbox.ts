// Which sandbox a control-plane call is about, and the one unit of work of a call that writes to it. A route says
// what it needs in its config (`sandbox: 'read' | 'use' | 'write'`, by default none; `sandboxFrom: 'path'` when its path's
// :name names it) and the hooks here, registered once in the control plane's context (src/control/plugin.ts), do
// the rest: a read of a sandbox that does not exist is a 404, a write makes it, and everything a write changed is
// committed in one place on the way out, or undone on any refusal.
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fail } from '../errors.js';
import { checkSandboxName, type ColdSandbox, type Sandbox, type SandboxWork } from '../store/sandbox.js';
import { Clock } from '../store/clock.js';
import { sandboxKey } from '../http/context.js';
import type { AdminWork } from '../http/request-state.js';
import { findingsOf } from '../findings/plugin.js';
import { forwardToOwner } from './peers.js';

export const SandboxQuery = Type.Object({
  sandbox: Type.Optional(
    Type.String({
      description: 'the sandbox, when neither x-mock-sandbox nor a /sandbox/NAME prefix names one (else default)',
    }),
  ),
});

/**
 * The sandbox key of an admin call (header, path prefix, `sandbox` query, default); a `sandbox` field of the body
 * only when none of those names one (a balancer cannot see bodies: name it in the query).
 */
export function adminSandboxName(req: FastifyRequest): string {
  const q = (req.query as Record<string, unknown> | undefined)?.sandbox;
  return sandboxKey(
    req.headers['x-mock-sandbox'],
    req.mock.prefix.sandbox,
    q ?? (req.body as Record<string, unknown> | undefined)?.sandbox,
  );
}

/** The sandbox a call is about: its path's :name for the routes that say so, else its key. */
const targetName = (req: FastifyRequest): string =>
  req.mock.routeConfig.sandboxFrom === 'path'
    ? String((req.params as Record<string, unknown>).name)
    : adminSandboxName(req);

/** Whether the call is answered by the instance reached, whichever holds the sandbox (health; ?scope=local). */
const answeredHere = (req: FastifyRequest): boolean => {
  const { answersHere } = req.mock.routeConfig;
  if (answersHere === 'when-local') return (req.query as { scope?: string }).scope === 'local';
  return answersHere === true;
};

/** The one error of a sandbox that does not exist (names it; says how to make one); nothing is created. */
export function sandboxNotFound(req: FastifyRequest, name: string) {
  const peersAsked = !answeredHere(req) && req.server.config.peers.length > 0;
  const where = peersAsked ? ` on instance ${req.server.instance.name} or its peers` : '';
  return fail.sandboxNotFound(
    `sandbox "${name.slice(0, 80)}" does not exist${where} (nothing was created: make it with ` +
      `PUT /__admin/sandboxes/${encodeURIComponent(name.slice(0, 80))}, or by any portal request that names it)`,
  );
}

/**
 * preValidation, once the body is parsed (an old script may name the sandbox there): with --peers, a call about a
 * sandbox this instance does not hold is done by the instance that does, or is a 503 while a peer that may hold it
 * cannot be asked (forwardToOwner), so no second copy of a sandbox is ever made. Every route, as the balancer routes
 * every call by its key; a route that answers for the instance reached says so (`answersHere`).
 */
export async function ownerFirst(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  if (answeredHere(req) || req.server.config.peers.length === 0) return undefined;
  return (await forwardToOwner(req, reply, checkSandboxName(targetName(req)))) ? reply : undefined;
}

/**
 * What one admin write changes, as one unit: the sandbox's data, clock, scenario and settings (Sandbox.begin),
 * the sandbox itself when the call made it, and what the route adds (`onUndo`). Committed by finishWork when the
 * answer is a success, else undone whole, so a refused write leaves no trace, not even a sandbox.
 */
export class UnitOfWork implements AdminWork {
  private unit: SandboxWork;
  private readonly undoSteps: Array<() => void> = [];
  /** whether another request wrote to the sandbox while this call let others through (outside) */
  private shared = false;
  private readonly req: FastifyRequest;
  readonly sandbox: Sandbox;
  /** the call made the sandbox (a 201 where a route says so) */
  readonly made: boolean;
  constructor(req: FastifyRequest, sandbox: Sandbox, made: boolean) {
    this.req = req;
    this.sandbox = sandbox;
    this.made = made;
    this.unit = sandbox.begin();
  }
  /** Something else to put back when the call is refused (undone last first, after the sandbox's own changes). */
  onUndo(step: () => void): void {
    this.undoSteps.push(step);
  }
  /**
   * Runs async work that lets other requests through (a draft made in slices, a call to the upstream) before this
   * call writes: the sandbox is open to them meanwhile, and this call's changes start after it. A sandbox deleted
   * or replaced meanwhile is a 409: nothing is written to a sandbox no request can reach.
   */
  async outside<T>(work: () => Promise<T>): Promise<T> {
    this.unit.commit();
    const version = this.sandbox.store.version;
    let result: T;
    try {
      result = await work();
    } finally {
      this.shared ||= this.sandbox.store.version !== version;
      this.unit = this.sandbox.begin();
    }
    if (this.req.server.sandboxes.find(this.sandbox.name) !== this.sandbox)
      throw fail.conflict(`sandbox ${this.sandbox.name} was deleted or replaced while this call was working`);
    return result;
  }
  /** A draft made while others are let through (outside), then written as this call's change. */
  async commitDraft<T extends { commit(): void }>(make: () => Promise<T>): Promise<T> {
    const draft = await this.outside(make);
    draft.commit();
    return draft;
  }
  commit(): void {
    this.unit.commit();
    this.sandbox.keep(); // an admin write acknowledged that the sandbox exists: under --data it has files now
  }
  undo(): void {
    this.unit.undo();
    for (const step of this.undoSteps.reverse()) step();
    const untouched = !this.shared && this.req.server.sandboxes.find(this.sandbox.name) === this.sandbox;
    if (this.made && untouched) this.req.server.sandboxes.delete(this.sandbox.name);
  }
}

/**
 * preHandler, once the input is valid: the sandbox of a route that needs one, in `req.mock.sandbox`. A read of one
 * that does not exist is a 404 SANDBOX_NOT_FOUND naming it and makes nothing (a misspelt name never reads as an
 * empty sandbox); a write makes it (429 past --max-sandboxes) and opens the call's unit of work.
 */
export function pickSandbox(req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void {
  try {
    const need = req.mock.routeConfig.sandbox;
    if (need !== undefined) {
      const sandbox = sandboxFor(req, need);
      req.mock.sandbox = sandbox;
      // in use until the connection is done with it: the idle sweep leaves it alone meanwhile
      req.server.sandboxes.enter(sandbox);
      reply.raw.once('close', () => req.server.sandboxes.leave(sandbox));
    }
    done();
  } catch (err) {
    done(err as Error);
  }
}

function sandboxFor(req: FastifyRequest, need: 'read' | 'use' | 'write'): Sandbox {
  const name = checkSandboxName(targetName(req));
  const found = req.server.sandboxes.find(name);
  if (need === 'read') {
    if (!found) throw sandboxNotFound(req, name);
    return found;
  }
  // a read that makes the sandbox on first use, as a portal request does (WireMock's API: a fresh one is empty)
  if (need === 'use') return found ?? req.server.sandboxes.get(name);
  const sandbox = found ?? req.server.sandboxes.get(name); // 429 past --max-sandboxes
  req.mock.adminWork = new UnitOfWork(req, sandbox, found === undefined);
  return sandbox;
}

/** onSend: a write's unit of work is committed before a success leaves, and undone when the answer is a refusal. */
export function finishWork(req: FastifyRequest, reply: FastifyReply, payload: unknown, done: SendDone): void {
  const work = req.mock.adminWork;
  req.mock.adminWork = null;
  let failed: Error | null = null;
  if (work && reply.statusCode >= 400) work.undo();
  else if (work) {
    try {
      work.commit();
    } catch (err) {
      // not written (the disk refused the log line): not acknowledged either
      work.undo();
      failed = err as Error;
    }
  }
  done(failed, payload);
}
type SendDone = (err: Error | null, payload?: unknown) => void;

/** onResponse: a unit of work no answer closed (the connection went first) is undone: nothing was acknowledged. */
export function abandonWork(req: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  req.mock.adminWork?.undo();
  req.mock.adminWork = null;
  done();
}

/** The unit of work of a write route (its `config: { sandbox: 'write' }`): set by pickSandbox. */
export const adminWork = (req: FastifyRequest): AdminWork => {
  if (!req.mock.adminWork) throw new Error(`${req.mock.operationId} is not a write route: it has no unit of work`);
  return req.mock.adminWork;
};

/** The findings of a sandbox, less the codes its scenario turns off. */
export const sandboxFindings = (req: FastifyRequest, sandbox: Sandbox) =>
  findingsOf(sandbox, req.server.scenarios.get(sandbox.scenario)?.findings?.off);

/** A sandbox as the control plane lists it (SandboxInfo). */
export const sandboxInfo = (s: Sandbox, instance: string) => ({
  instance,
  name: s.name,
  scenario: s.scenario,
  createdAt: s.createdAt,
  clock: s.clock.state,
  now: s.clock.iso(),
  persistent: s.persistent,
  journalEntries: s.journal.size(),
  outboxMessages: s.outbox.list().length,
  kept: s.kept,
  resident: true,
});

/**
 * A written-out sandbox as the listing shows it, from what was kept when it left memory (its files are not read):
 * its journal and outbox are empty, as it comes back with none; it was not kept, or it would not have left.
 */
export const coldSandboxInfo = (s: ColdSandbox, instance: string) => ({
  instance,
  name: s.name,
  scenario: s.scenario,
  createdAt: s.createdAt,
  clock: s.clock,
  now: new Clock(s.clock).iso(),
  persistent: true,
  journalEntries: 0,
  outboxMessages: 0,
  kept: false,
  resident: false,
  writtenOutAt: s.writtenOutAt,
});
