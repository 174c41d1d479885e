// The examples of the API document (openapi-examples.json), captured from the seeded world: every operation is
// called with its valid input (valid-inputs.ts) in a fresh sandbox, as the demo admin, with the default seed and a
// fixed clock, so the capture is the same on every run. `npm run openapi` writes it (scripts/openapi-examples.mjs);
// test/docs/openapi-examples.test.ts fails when the committed file is stale.
import { relative } from 'node:path';
import { buildApp } from '../../src/app.js';
import { packageRoot } from '../../src/paths.js';
import type { Examples } from '../../src/openapi.js';
import { loadDoc, operations } from './openapi.js';
import { makeCtx, validInputs } from './valid-inputs.js';

const json = (content: Record<string, unknown> | undefined) => content?.['application/json'] !== undefined;

const clock = '2026-03-02T09:00:00.000Z';
/** Facts of the process, not of the data: fixed, so the capture is the same on every run. */
const volatile: Record<string, unknown> = {
  durationMs: 1.2,
  uptimeMs: 5000,
  uptimeInSeconds: 5,
  timestamp: clock,
  totalTime: 1.2,
  serveTime: 1.2,
  rssBytes: 120_000_000,
  heapUsedBytes: 45_000_000,
  externalBytes: 8_000_000,
  heldBytes: 120_000_000,
};

/** Examples stay readable: every array cut to its first 2 items, long texts to 200 characters. */
const trim = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.slice(0, 2).map(trim);
  if (typeof v === 'string') return v.length > 200 ? `${v.slice(0, 200)}…` : v;
  if (v === null || typeof v !== 'object') return v;
  // a sandbox's createdAt is wall-clock time; a scenario file's path is where the package sits on this machine
  const steady = (k: string, x: unknown) =>
    volatile[k] ??
    (k === 'createdAt' && 'journalEntries' in v
      ? clock
      : k === 'file' && typeof x === 'string'
        ? relative(packageRoot, x)
        : trim(x));
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, steady(k, x)]));
};

export async function captureExamples(): Promise<Examples> {
  const app = await buildApp({ now: clock, logLevel: 'silent' });
  try {
    const out: Examples = {};
    for (const op of operations(await loadDoc(app, 'both'))) {
      const request = json(op.requestBody?.content);
      const success = Object.keys(op.responses).find((status) => /^2/.test(status));
      const response = json(op.responses[success ?? '']?.content);
      const valid = validInputs[op.operationId];
      if ((!request && !response) || !valid) continue;
      const ctx = await makeCtx(app, 'qa-1', 'device-1');
      const req = await valid(ctx);
      const headers = {
        ...(req.headers && Object.keys(req.headers).length ? {} : ctx.s.headers),
        ...(req.headers as object),
        host: 'localhost:3000',
      };
      const res = await app.inject({ ...req, method: req.method ?? 'GET', headers });
      if (String(res.statusCode) !== success)
        throw new Error(`${op.operationId}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      out[op.operationId] = {
        ...(request ? { request: trim(req.payload) } : {}),
        ...(response ? { response: trim(res.json()) } : {}),
      };
      if (op.operationId !== 'mockSandboxDelete') await app.sandboxes.delete('qa-1');
    }
    return out;
  } finally {
    await app.close();
  }
}

export const examplesText = (examples: Examples) => `${JSON.stringify(examples, null, 2)}\n`;
