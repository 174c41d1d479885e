import t from 'tap';
import { build, json } from '../helper.js';

t.test('the OpenAPI document lists the workflow operations under the workflow tag', async (t) => {
  const app = await build(t);
  const res = await app.inject({ url: '/docs/json' });
  t.equal(res.statusCode, 200);
  const doc = json(res);
  const ops: Array<{ operationId: string; tags: string[] }> = Object.values(
    doc.paths as Record<string, Record<string, { operationId: string; tags: string[] }>>,
  ).flatMap((p) => Object.values(p));
  const wf = ops
    .filter((o) => o.tags?.includes('workflow'))
    .map((o) => o.operationId)
    .sort();
  t.same(wf, ['workflowCatalog', 'workflowStart', 'workflowStartForm', 'workflowTicketIndex', 'workflowTicketView']);
  t.ok(doc.components.schemas.WorkflowTicketDetails, 'named component');
  t.ok(doc.tags.some((x: { name: string }) => x.name === 'workflow'));
});
