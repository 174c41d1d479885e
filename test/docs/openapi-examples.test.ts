// Every JSON request body and success answer of the document shows an example captured from the seeded world, and
// the committed openapi-examples.json is what a capture gives now (the examples themselves are checked against their
// schemas by Spectral in test/docs/openapi-lint.test.ts).
import t from 'tap';
import { readFileSync } from 'node:fs';
import { examplesFile } from '../../src/openapi.js';
import { captureExamples, examplesText } from '../support/examples.js';
import { loadDoc, operations } from '../support/openapi.js';
import { build } from '../helper.js';

t.test('openapi-examples.json is up to date', async (t) => {
  const fresh = examplesText(await captureExamples());
  const committed = readFileSync(examplesFile, 'utf8');
  const a = committed.split('\n');
  const line = fresh.split('\n').findIndex((l, i) => l !== a[i]);
  t.ok(
    fresh === committed,
    fresh === committed
      ? 'matches a fresh capture'
      : `openapi-examples.json is stale: run \`npm run openapi\` and commit it (first difference at line ${line + 1}: ${JSON.stringify(fresh.split('\n')[line])})`,
  );
});

t.test('every JSON request body and success answer has an example', async (t) => {
  const app = await build(t);
  const missing: string[] = [];
  let shown = 0;
  for (const op of operations(await loadDoc(app, 'both'))) {
    const success = Object.entries(op.responses).find(([status]) => status.startsWith('2'))?.[1];
    for (const [what, media] of [
      ['request body', op.requestBody?.content],
      ['success answer', success?.content],
    ] as const) {
      const json = (media as Record<string, { example?: unknown }> | undefined)?.['application/json'];
      if (!json) continue;
      if (json.example === undefined) missing.push(`${op.operationId} ${what}`);
      else shown++;
    }
  }
  t.same(missing, [], 'no JSON body or answer without an example');
  t.ok(shown > 100, `${shown} examples shown`);
});
