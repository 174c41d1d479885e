import { buildApp } from './dist/app.js';
const app = await buildApp({});
const T = '7d3f9a2e-5b1c-4e8a-9f60-2c4b8d1e0a01';
const body = { secret: 'demo-device-secret-1', userId: 'a1000000-0000-4000-8000-000000000001', deviceId: 'demo-device-romashka' };
for (let k = 0; k < 4; k++) {
  const t0 = performance.now();
  for (let i = 0; i < 5000; i++) await app.inject({ method: 'POST', url: '/mobile/auth', headers: { 'x-service-tenant-id': T }, payload: body });
  const m = process.memoryUsage();
  console.log((k + 1) * 5000, ((performance.now() - t0) / 5000 * 1000).toFixed(0), 'us each; rss', (m.rss / 1048576).toFixed(0), 'heapUsed', (m.heapUsed / 1048576).toFixed(0));
}
await app.close();
