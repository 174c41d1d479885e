// The answer a served stub gives (docs/wiremock.md): status, headers and body (templated when the mapping names
// "response-template"), the delay to wait (fixed plus a distribution, drawn from the injected random source), and
// what the transport does instead (a fault, a dribble, a proxy). Plain data: the HTTP layer sends it.
import type { DelayDistribution, StubMapping } from './mapping.js';
import type { WireRequest } from './match.js';
import { renderTemplate, type TemplateContext, type TemplateLimits, defaultTemplateLimits } from './template.js';

export type StubResponse = {
  status: number;
  statusMessage?: string;
  headers: Array<[string, string]>;
  body: Buffer;
  delayMs: number;
  chunkedDribbleDelay?: { numberOfChunks: number; totalDuration: number };
  fault?: string;
  /** the URL to forward the request to (proxyBaseUrl + the request's path and query) */
  proxyUrl?: string;
};

/** A file under the mapping root's __files, by its relative name; undefined when there is none. */
export type FileReader = (name: string) => Buffer | undefined;

/** A draw of a delay distribution (lognormal: median × e^(σ·N(0,1)), capped by maxValue). */
export function drawDelay(d: DelayDistribution, random: () => number): number {
  if (d.type === 'fixed') return d.milliseconds;
  if (d.type === 'uniform') return d.lower + Math.floor(random() * (d.upper - d.lower + 1));
  // Box–Muller; 1 - random() keeps the logarithm's argument in (0, 1]
  const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const value = Math.round(d.median * Math.exp(d.sigma * normal));
  return d.maxValue === undefined ? value : Math.min(value, d.maxValue);
}

/**
 * The response of a served mapping, or a template error (WireMock answers it as a 500; the HTTP layer decides).
 * `maxDelayMs` bounds the drawn delay as the mapping's own fields are bounded.
 */
export function buildResponse(
  mapping: StubMapping,
  request: WireRequest,
  context: TemplateContext,
  files: FileReader,
  options: { maxDelayMs: number; limits?: TemplateLimits } = { maxDelayMs: 60_000 },
): { response: StubResponse } | { error: string } {
  const r = mapping.response;
  const templated = r.transformers?.includes('response-template') === true;
  const limits = options.limits ?? defaultTemplateLimits;
  const render = (text: string): string => {
    if (!templated) return text;
    const out = renderTemplate(text, request, context, limits);
    if ('error' in out) throw new TemplateFailure(out.error);
    return out.text;
  };
  try {
    const headers: Array<[string, string]> = [];
    for (const [name, value] of Object.entries(r.headers ?? {}))
      for (const v of Array.isArray(value) ? value : [value]) headers.push([name, render(v)]);
    let body: Buffer = Buffer.alloc(0);
    if (r.body !== undefined) body = Buffer.from(render(r.body));
    else if (r.jsonBody !== undefined) body = Buffer.from(render(JSON.stringify(r.jsonBody)));
    else if (r.base64Body !== undefined) body = Buffer.from(r.base64Body, 'base64');
    else if (r.bodyFileName !== undefined) {
      const name = render(r.bodyFileName);
      if (name.startsWith('/') || name.split(/[\\/]/).some((s) => s === '..' || s === ''))
        throw new TemplateFailure(`the body file name ${name} leaves __files`);
      const file = files(name);
      if (file === undefined) throw new TemplateFailure(`no body file ${name} under __files`);
      body = templated ? Buffer.from(render(file.toString('utf8'))) : file;
    }
    const drawn = r.delayDistribution ? drawDelay(r.delayDistribution, context.random) : 0;
    const delayMs = Math.min((r.fixedDelayMilliseconds ?? 0) + drawn, options.maxDelayMs);
    const response: StubResponse = { status: r.status ?? 200, headers, body, delayMs };
    if (r.statusMessage !== undefined) response.statusMessage = r.statusMessage;
    if (r.chunkedDribbleDelay) response.chunkedDribbleDelay = r.chunkedDribbleDelay;
    if (r.fault !== undefined) response.fault = r.fault;
    if (r.proxyBaseUrl !== undefined) response.proxyUrl = r.proxyBaseUrl.replace(/\/$/, '') + request.url;
    return { response };
  } catch (err) {
    if (err instanceof TemplateFailure) return { error: err.message };
    throw err;
  }
}

class TemplateFailure extends Error {}
