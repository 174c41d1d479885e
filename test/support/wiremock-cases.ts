// The corpus of WireMock documentation examples (test/fixtures/wiremock/cases.json) and the core's answers to it:
// read by the unit test (against the expected answers) and the differential test (against the real jar).
import { readFileSync } from 'node:fs';
import { parseMapping, type StubMapping } from '../../src/wiremock/mapping.js';
import { advanceScenario, findStub, type ScenarioStates, type WireRequest } from '../../src/wiremock/match.js';
import { buildResponse } from '../../src/wiremock/response.js';

export type CaseRequest = {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /**
   * `fault`: the connection fault the mapping names (no HTTP answer to compare: the differential test compares how the
   * connection ends); `proxied`: the answer is the upstream's (the core gives the URL it forwards to); `statusMessage`:
   * the reason phrase.
   */
  expect: {
    status: number;
    body?: string;
    headers?: Record<string, string>;
    statusMessage?: string;
    fault?: string;
    proxied?: boolean;
  };
};
export type Case = { name: string; mappings: unknown[]; files?: Record<string, string>; requests: CaseRequest[] };
export type Refused = { name: string; mapping: unknown; pointer: string; wiremock: string };

export const corpus = JSON.parse(readFileSync(new URL('../fixtures/wiremock/cases.json', import.meta.url), 'utf8')) as {
  cases: Case[];
  refused: Refused[];
};

/** A seeded random source (mulberry32): the same seed, the same draws. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let ids = 0;
export const newId = () => `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`;

export type CoreAnswer = {
  status: number;
  headers: Array<[string, string]>;
  body: string;
  statusMessage?: string;
  fault?: string;
  proxyUrl?: string;
};

/** The base URL the corpus's proxyBaseUrl mappings name; the differential test puts its own upstream there. */
export const upstreamPlaceholder = 'http://upstream.invalid';

/** The core's answers to a case's requests, in order, over one scenario store. */
export function coreAnswers(c: Case, now: Date): CoreAnswer[] {
  const mappings: StubMapping[] = c.mappings.map((m) => {
    const parsed = parseMapping(m, newId);
    if (!('mapping' in parsed)) throw new Error(`${c.name}: refused ${JSON.stringify(parsed.errors)}`);
    return parsed.mapping;
  });
  const states: ScenarioStates = new Map();
  const files = (name: string) => (c.files?.[name] === undefined ? undefined : Buffer.from(c.files[name]!));
  return c.requests.map((r) => {
    const request: WireRequest = { method: r.method, url: r.url, headers: r.headers ?? {}, body: r.body ?? '' };
    const found = findStub(mappings, request, states);
    if (!found.found) return { status: 404, headers: [], body: '' };
    advanceScenario(found.found.mapping, states);
    const context = {
      now,
      random: seeded(1),
      baseUrl: 'http://127.0.0.1:8080',
      pathParameters: found.found.pathParameters,
    };
    const built = buildResponse(found.found.mapping, request, context, files);
    if ('error' in built) throw new Error(`${c.name}: ${built.error}`);
    const { status, headers, body, statusMessage, fault, proxyUrl } = built.response;
    return {
      status,
      headers,
      body: body.toString('utf8'),
      ...(statusMessage === undefined ? {} : { statusMessage }),
      ...(fault === undefined ? {} : { fault }),
      ...(proxyUrl === undefined ? {} : { proxyUrl }),
    };
  });
}
