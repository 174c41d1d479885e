// The ceiling: a bare Fastify server with nothing else in the pipeline. It answers a small JSON object (the ceiling
// the ratios use) and, given files, the very bytes the mock answers for the light read and for the dashboard,
// as ready-made strings: the most any server on this machine can do for answers of those sizes.
// node bench/bare.mjs PORT [TENANT_INFO_BODY_FILE] [DASHBOARD_BODY_FILE] [DASHBOARD_GZIP_FILE] [--work-us=N]
// --work-us=N: N microseconds of synchronous work in an onRequest hook, as if the server did that much more per
// request (bench/cost-model.mjs: what a microsecond of our own costs in throughput).
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const workUs = Number(process.argv.find((a) => a.startsWith('--work-us='))?.slice(10) ?? 0);
const [port = '0', tenantInfoFile, dashboardFile, dashboardGzipFile] = process.argv
  .slice(2)
  .filter((a) => !a.startsWith('--'));
const app = Fastify({ logger: false });
if (workUs > 0) {
  app.addHook('onRequest', (_req, _reply, done) => {
    const until = performance.now() + workUs / 1000;
    while (performance.now() < until); // busy on purpose: CPU work the event loop cannot overlap
    done();
  });
}
const body = { id: '7d3f9a2e-5b1c-4e8a-9f60-2c4b8d1e0a01', name: 'hello', locale: 'ru' };
app.get('/mobile/tenant-info', async () => body);
app.get('/__admin/health', async () => ({ status: 'ok' }));
for (const [path, file] of [
  ['/same/tenant-info', tenantInfoFile],
  ['/same/dashboard', dashboardFile],
]) {
  if (!file) continue;
  const text = readFileSync(file, 'utf8');
  app.get(path, async (_req, reply) => reply.type('application/json; charset=utf-8').send(text));
}
if (dashboardGzipFile) {
  const bytes = readFileSync(dashboardGzipFile);
  app.get('/same/dashboard-gzip', async (_req, reply) =>
    reply.type('application/json; charset=utf-8').header('content-encoding', 'gzip').send(bytes),
  );
}
await app.listen({ port: Number(port), host: '127.0.0.1' });
