// The ceiling: a bare Fastify server answering a small JSON object, with nothing else in the pipeline.
import Fastify from 'fastify';

const port = Number(process.argv[2] ?? 0);
const app = Fastify({ logger: false });
const body = { id: '7d3f9a2e-5b1c-4e8a-9f60-2c4b8d1e0a01', name: 'hello', locale: 'ru' };
app.get('/mobile/tenant-info', async () => body);
app.get('/__admin/health', async () => ({ status: 'ok' }));
await app.listen({ port, host: '127.0.0.1' });
