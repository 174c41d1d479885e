import { buildApp } from './dist/app.js';
const app = await buildApp({});
const T = '7d3f9a2e-5b1c-4e8a-9f60-2c4b8d1e0a01';
const body = { secret: 'demo-device-secret-1', userId: 'a1000000-0000-4000-8000-000000000001', deviceId: 'demo-device-romashka' };
async function signIn() {
  const r = await app.inject({ method: 'POST', url: '/mobile/auth', headers: { 'x-service-tenant-id': T }, payload: body });
  const j = r.json();
  return { 'x-service-tenant-id': T, 'x-service-device-id': body.deviceId, 'x-service-session-id': j.sessionId, 'x-service-session-code': j.sessionSecret };
}
async function time(h) {
  const t0 = performance.now();
  for (let i = 0; i < 5000; i++) await app.inject({ url: '/user/profile?id=a1000000-0000-4000-8000-000000000001', headers: h });
  return ((performance.now() - t0) / 5000 * 1000).toFixed(1);
}
const h0 = await signIn();
console.log('1 session', await time(h0), 'us/req');
const t0 = performance.now();
for (let i = 0; i < 20000; i++) await signIn();
console.log('20000 sign-ins', ((performance.now() - t0) / 20000 * 1000).toFixed(1), 'us each');
console.log('20001 sessions, first', await time(h0), 'us/req');
const h1 = await signIn();
console.log('20002 sessions, last', await time(h1), 'us/req');
console.log('rss', (process.memoryUsage().rss / 1048576).toFixed(0));
await app.close();
