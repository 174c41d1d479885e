// src/schemas/operation-ids.ts (the portal's operationIds the typed client types a journal filter with, and the
// control plane suggests from) is what `npm run operation-ids` writes from the app's routes: a route added, renamed
// or removed fails here until the file is written again.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { generateOperationIds, operationIdsFile, portalOperationIdsOfApp } from '../../src/tools/operation-ids.js';
import { portalOperationIds } from '../../src/schemas/operation-ids.js';

t.test('the committed list is the one the routes give (npm run operation-ids)', async (t) => {
  t.equal(readFileSync(operationIdsFile, 'utf8'), await generateOperationIds(), 'run `npm run operation-ids`');
  const ids = await portalOperationIdsOfApp();
  t.same([...portalOperationIds], ids);
  t.ok(ids.includes('mobileAuth') && !ids.some((id) => id.startsWith('mock')), 'the portal only, no control plane');
});
