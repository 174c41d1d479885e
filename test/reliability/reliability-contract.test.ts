// Contract self-check: every operation of the app's own OpenAPI document, called with valid input as a signed-in
// demo account, answers what the document declares (ajv against the declared response schema).
import t from 'tap';
import { build } from '../helper.js';
import { loadDoc, operations, ResponseValidator } from '../support/openapi.js';
import { makeCtx, validInputs } from '../support/valid-inputs.js';

t.test('every documented operation answers its declared schema to valid input', async (t) => {
  // a CA certificate so GET /__admin/ca.pem has something to answer (HTTPS itself is tested in
  // test/process/https.test.ts)
  const app = await build(t, { caCertificate: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' });
  const doc = await loadDoc(app, 'both'); // the portal's operations and the control plane's
  const ops = operations(doc);
  const validator = new ResponseValidator(doc);
  t.ok(ops.length > 100, `${ops.length} operations in the document`);
  const missing = ops.filter((o) => !validInputs[o.operationId]).map((o) => o.operationId);
  t.same(missing, [], 'every operation has an entry in the table of valid inputs');
  const stale = Object.keys(validInputs).filter((id) => !ops.some((o) => o.operationId === id));
  t.same(stale, [], 'no table entry names an operation the document lacks');
  let checked = 0;
  for (const op of ops) {
    const valid = validInputs[op.operationId];
    if (!valid) continue;
    const sandbox = `c-${op.operationId}`.slice(0, 64);
    const ctx = await makeCtx(app, sandbox);
    const req = await valid(ctx);
    const headers = {
      ...(req.headers && Object.keys(req.headers).length ? {} : ctx.s.headers),
      ...(req.headers as object),
    };
    const res = await app.inject({ ...req, method: req.method ?? 'GET', headers });
    const where = `${op.operationId} (${req.method ?? 'GET'} ${String(req.url).slice(0, 90)})`;
    t.ok(
      res.statusCode >= 200 && res.statusCode < 300,
      `${where} answers 2xx: ${res.statusCode} ${res.statusCode >= 300 ? res.body.slice(0, 300) : ''}`,
    );
    const problem = validator.check(op, res.statusCode, String(res.headers['content-type'] ?? ''), res.body);
    t.equal(problem, null, `${where}: answer matches the declared schema${problem ? `: ${problem}` : ''}`);
    checked++;
    if (op.operationId !== 'mockSandboxDelete') await app.sandboxes.delete(sandbox);
  }
  t.equal(checked, ops.length, `${checked} operations checked`);
});
