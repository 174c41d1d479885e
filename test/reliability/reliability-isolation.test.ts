// Isolation matrix: every session operation of the document, called with a credential that must not work
// (another tenant's id, another device's id, a revoked session, an unbound device, another sandbox's session),
// answers 401/403 with the error body and reveals nothing of the data it would have shown.
import t from 'tap';
import { accounts, build, signIn, tenants } from '../helper.js';
import { isErrorBody, loadDoc, operations } from '../support/openapi.js';
import { makeCtx, validInputs } from '../support/valid-inputs.js';

t.test('foreign, revoked and misplaced credentials are refused on every session operation', async (t) => {
  const app = await build(t);
  const doc = await loadDoc(app);
  const sandbox = 'iso';
  const ctx = await makeCtx(app, sandbox);
  const ops = operations(doc).filter((o) => '401' in o.responses); // the portal's document: no control plane
  // the requests of the table of valid inputs that authorize with the session headers
  const requests: Array<{ id: string; req: any }> = [];
  for (const op of ops) {
    if (['mobileAuth', 'mobileUnbind'].includes(op.operationId)) continue;
    const req = await validInputs[op.operationId]!(ctx);
    const own = Object.keys((req.headers as object | undefined) ?? {});
    if (own.some((h) => h !== 'x-mock-sandbox')) continue; // API key, tenant-only or signed-URL operations
    requests.push({ id: op.operationId, req });
  }
  t.ok(requests.length >= 70, `${requests.length} session operations in the matrix`);

  const nw = await signIn(app, accounts.nwAdmin, { sandbox });
  const other = await signIn(app, accounts.admin, { sandbox });
  const unbound = await signIn(app, accounts.admin, { sandbox });
  const elsewhere = await signIn(app, accounts.admin, { sandbox: 'iso-b' });
  const unbind = await app.inject({
    method: 'POST',
    url: `/mobile/unbind?deviceId=${unbound.deviceId}`,
    headers: unbound.headers,
  });
  t.equal(unbind.statusCode, 200, 'device unbound');
  const nwData = app.sandboxes.get(sandbox).store.tenant(tenants.northwind)!;
  const secrets = [tenants.northwind, nwData.tenant.name, ...nwData.users.slice(0, 20).map((u) => u.email)];

  const variants: Array<[string, Record<string, string>]> = [
    ['tenant A session with tenant B id', { ...ctx.s.headers, 'x-service-tenant-id': tenants.northwind }],
    ['tenant B session with tenant A id', { ...nw.headers, 'x-service-tenant-id': tenants.romashka }],
    ['session used with another device id', { ...ctx.s.headers, 'x-service-device-id': other.deviceId }],
    [
      'session of another device',
      { ...other.headers, 'x-service-session-id': ctx.s.sessionId, 'x-service-session-code': ctx.s.sessionSecret },
    ],
    ['unbound device', unbound.headers],
    ['session of sandbox iso-b used in iso', { ...elsewhere.headers, 'x-mock-sandbox': sandbox }],
    ['session of iso used in sandbox iso-b', { ...ctx.s.headers, 'x-mock-sandbox': 'iso-b' }],
    ['session of iso through /sandbox/iso-b', ctx.s.headers],
    ['revoked (expired) session', ctx.s.headers],
  ];
  let checked = 0;
  for (const [name, headers] of variants) {
    if (name.startsWith('revoked')) {
      const exp = await app.inject({ method: 'POST', url: `/__admin/sessions/expire?sandbox=${sandbox}`, payload: {} });
      t.equal(exp.statusCode, 200, 'sessions expired');
    }
    const failures: string[] = [];
    for (const { id, req } of requests) {
      const url = name.includes('/sandbox/iso-b') ? `/sandbox/iso-b${req.url}` : req.url;
      const res = await app.inject({
        ...req,
        url,
        headers: {
          ...headers,
          ...(name.includes('/sandbox/') ? { 'x-mock-sandbox': 'iso-b' } : {}),
          ...(req.headers?.['content-type'] ? { 'content-type': req.headers['content-type'] } : {}),
        },
      });
      checked++;
      // web pages answer with an HTML error page (issue 13), everything else with the JSON error body
      const page = String(res.headers['content-type'] ?? '').includes('text/html');
      const ok =
        (res.statusCode === 401 || res.statusCode === 403) &&
        (page || isErrorBody(JSON.parse(res.body || 'null'), res.statusCode)) &&
        !secrets.some((s) => res.body.includes(s));
      if (!ok) failures.push(`${id} → ${res.statusCode} ${res.body.slice(0, 160)}`);
    }
    t.same(failures, [], `${name}: every session operation answers 401/403 and reveals nothing`);
  }
  t.comment(`${checked} refused requests checked`);
});
