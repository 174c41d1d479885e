// What the mock knows about one request lives in one object, `req.mock`, declared here and nowhere else. Each field
// names the one module that writes it; everyone else only reads. (Module augmentation is global and invisible in
// the import graph, so it is used once, here.)
import type { IncomingMessage } from 'node:http';
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { Right } from '../schemas/common.js';
import type { FaultKind } from '../schemas/control.js';
import type { Scenario } from '../schemas/scenario.js';
import { checkSandboxName, type Sandbox } from '../store/sandbox.js';
import type { Fixtures } from '../store/fixtures.js';
import type { Options } from '../config.js';
import { noAuth, type AuthContext, type AuthMode } from './credentials.js';
import { noPrefix, sandboxKey, type PrefixInfo } from './context.js';
import type { KeptAnswer } from './answer-cache.js';

export type RequestState = {
  /** performance.now() when the request arrived: the journal's duration. Writer: this file. */
  arrivedAt: number;
  /** the route's operationId (null: a path no operation answers). Writer: this file. */
  operationId: string | null;
  /** the route's config, read once (Fastify builds `routeOptions` anew on every access). Writer: this file. */
  routeConfig: RouteConfig;
  /** what the client put before the operation's path (/sandbox/NAME, /api/v2). Writer: this file. */
  prefix: PrefixInfo;
  /**
   * The sandbox of the request. Writers: http/request-context.ts (the portal context's first hook), and
   * control/sandbox.ts for a control-plane route that needs one (its `config.sandbox`).
   */
  sandbox: Sandbox;
  /** the open unit of work of a control-plane write. Writer: control/sandbox.ts. */
  adminWork: AdminWork | null;
  /** who is calling. Writer: auth/plugin.ts. */
  auth: AuthContext;
  /** the scenario that applies: x-mock-scenario (this request only), else the sandbox's. Writer: scenarios/plugin.ts. */
  scenario: Scenario | null;
  scenarioFromHeader: boolean;
  /** the scenario fault acting on this answer, and whether it acts after the commit. Writer: scenarios/runtime.ts. */
  fault: FaultKind | null;
  faultAfterCommit: boolean;
  /** answered by a scenario (stub or fault), not the mock's handler. Writer: scenarios/runtime.ts. */
  stubbed: boolean;
  /** the stub that answered (its index in the scenario's stubs). Writer: scenarios/runtime.ts. */
  stub: { index: number; name?: string } | null;
  /** the id of the sandbox's WireMock stub mapping that answered. Writer: scenarios/wiremock.ts. */
  wiremockMapping: string | null;
  /** the kept answer this request was sent, while its text is what compression gets. Writer: http/answer-cache.ts. */
  keptAnswer: KeptAnswer | null;
  /** what the journal keeps of this request. Writer: http/journal.ts. */
  journal: JournalMark;
  /** body fields whose JSON type the route's schema does not take (before validation converts them). Writer: findings/plugin.ts. */
  findingTypes: string[] | null;
};

export type JournalMark = {
  /** the id its journal entry will have (0: the journal is off) */
  id: number;
  /** the request body's text as it arrived, cut (store/journal.ts keptText) */
  body: string | undefined;
  /** the status of the answer as it left (0: none left, as for a connection a fault dropped before any answer) */
  status: number;
  /** the answer's JSON text as it left (a body fault may break the connection after it) */
  answer: string | undefined;
};

/** What a route declares about itself in its `config`. */
export type RouteConfig = {
  auth?: AuthMode;
  rights?: Right[];
  /** the portal context's catch-all of paths no operation answers (pass-through, stubs by path, else 404) */
  unmatched?: boolean;
  /** set on every route of the control plane's context (its token, not the portal's auth, guards it) */
  controlPlane?: boolean;
  /**
   * a control-plane route that answers for the instance reached, never the sandbox's owner (health), or only when
   * asked with ?scope=local
   */
  answersHere?: boolean | 'when-local';
  /**
   * what a control-plane route does with its sandbox: reads one that exists (else 404), uses one (made on first use,
   * no unit of work: WireMock's reads), or writes (made on demand, in a unit of work)
   */
  sandbox?: 'read' | 'use' | 'write';
  /** where a control-plane route's sandbox is named: its key (default), or the :name of its path */
  sandboxFrom?: 'key' | 'path';
  /**
   * how a control-plane route takes --admin-token: in a header (default), also as ?token= (an <img>), also as
   * `Authorization: Token T` (WireMock's clients, 'wiremock'), or not at all
   */
  adminToken?: 'header' | 'header-or-query' | 'wiremock' | 'none';
};

/** The unit of work of a control-plane write (src/control/sandbox.ts's UnitOfWork). */
export interface AdminWork {
  /** the call made the sandbox */
  readonly made: boolean;
  /** something else to put back when the call is refused */
  onUndo(step: () => void): void;
  /** async work that lets other requests through before this call writes */
  outside<T>(work: () => Promise<T>): Promise<T>;
  /** a draft made outside (others let through), then committed in this unit of work */
  commitDraft<T extends { commit(): void }>(make: () => Promise<T>): Promise<T>;
  commit(): void;
  undo(): void;
}

declare module 'fastify' {
  interface FastifyContextConfig extends RouteConfig {}
  interface FastifyRequest {
    mock: RequestState;
  }
  /** The app's settings, decorated once by buildApp (src/app.ts); plugins/ declare the registries. */
  interface FastifyInstance {
    /** who this process is (--instance-name; else hostname:port once listening): the x-mock-instance header */
    instance: { name: string };
    config: Options;
    fixtures: Fixtures;
  }
}

const noConfig: RouteConfig = {};

/**
 * The first hook of every request, in every context: the request's state with what is known on arrival. On the way
 * out, every answer names the instance that made it (a forwarded one already names its owner).
 */
export const requestStatePlugin = fp(
  async (app: FastifyInstance, opts: { prefixes: WeakMap<IncomingMessage, PrefixInfo> }) => {
    app.decorateRequest('mock', null as never);
    // callback-style hooks here and in the other plugins of every request: nothing is awaited, so no promise per
    // hook (a throw still reaches the error handler)
    app.addHook('onRequest', (req, _reply, done) => {
      const route = req.routeOptions;
      const operationId = route.schema?.operationId;
      req.mock = {
        arrivedAt: performance.now(),
        operationId: typeof operationId === 'string' ? operationId : null,
        routeConfig: route.config ?? noConfig,
        prefix: opts.prefixes.get(req.raw) ?? noPrefix,
        sandbox: null as never, // the portal context's first hook sets it, or the control plane's
        adminWork: null,
        auth: noAuth,
        scenario: null,
        scenarioFromHeader: false,
        fault: null,
        faultAfterCommit: false,
        stubbed: false,
        stub: null,
        wiremockMapping: null,
        keptAnswer: null,
        journal: { id: 0, body: undefined, status: 0, answer: undefined },
        findingTypes: null,
      };
      // a malformed sandbox key is refused on every route: it is also what a balancer routes by, and answers would
      // hand out its URLs (a prefix is checked even when the header names the sandbox)
      const prefixed = req.mock.prefix.sandbox;
      checkSandboxName(sandboxKey(req.headers['x-mock-sandbox'], prefixed));
      if (prefixed !== null) checkSandboxName(prefixed);
      done();
    });
    app.addHook('onSend', (_req, reply, payload, done) => {
      if (!reply.hasHeader('x-mock-instance')) reply.header('x-mock-instance', app.instance.name);
      done(null, payload);
    });
  },
  { name: 'request-state' },
);
