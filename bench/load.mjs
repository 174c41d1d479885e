// A single load run for profiling: node bench/load.mjs PORT [PATH] [SECONDS] [CONNECTIONS] against a mock started with node --cpu-prof dist/portal-mock.mjs.
import autocannon from 'autocannon';
import { request } from 'node:http';
const port = Number(process.argv[2]);
const path = process.argv[3] ?? '/mobile/tenant-info';
const dur = Number(process.argv[4] ?? 5);
const T = '7d3f9a2e-5b1c-4e8a-9f60-2c4b8d1e0a01';
const body = JSON.stringify({
  secret: 'demo-device-secret-1',
  userId: 'a1000000-0000-4000-8000-000000000001',
  deviceId: 'demo-device-romashka',
});
const s = await new Promise((res, rej) => {
  const r = request(
    {
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/mobile/auth',
      headers: { 'x-service-tenant-id': T, 'content-type': 'application/json' },
    },
    (x) => {
      let b = '';
      x.on('data', (c) => (b += c));
      x.on('end', () => res(JSON.parse(b)));
    },
  );
  r.on('error', rej);
  r.end(body);
});
const headers = {
  'x-service-tenant-id': T,
  'x-service-device-id': 'demo-device-romashka',
  'x-service-session-id': s.sessionId,
  'x-service-session-code': s.sessionSecret,
};
const r = await autocannon({
  url: `http://127.0.0.1:${port}${path}`,
  connections: Number(process.argv[5] ?? 50),
  duration: dur,
  headers,
});
console.log(
  path,
  Math.round(r.requests.average),
  'req/s p99',
  r.latency.p99,
  'non2xx',
  r.non2xx,
  'requests',
  r.requests.total,
);
