// What every benchmark script needs to talk to a mock over loopback: a free port, one HTTP call, and the sign-in
// sequence autocannon drives.
import { request } from 'node:http';
import { createServer } from 'node:net';

/** A port nothing listens on now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** One HTTP call; resolves { status, headers, bytes, body }. `agent`: a keep-alive agent, as a test client holds. */
export function call(port, method, path, headers = {}, body = undefined, agent = undefined) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: {
          ...headers,
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          resolve({ status: res.statusCode, headers: res.headers, bytes, body: bytes.toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The demo tenant of the fixtures, and its admin, as every benchmark signs in. */
export const romashka = {
  tenantId: '7d3f9a2e-5b1c-4e8a-9f60-2c4b8d1e0a01',
  demo: { email: 'ivan.petrov@romashka.test', password: 'demo1234', userId: 'a1000000-0000-4000-8000-000000000001' },
  /** the admin's bound demo device: POST /mobile/auth with it opens a session without binding */
  device: {
    secret: 'demo-device-secret-1',
    userId: 'a1000000-0000-4000-8000-000000000001',
    deviceId: 'demo-device-romashka',
  },
  apiKey: { 'x-service-client-id': 'romashka-integration', 'x-service-client-secret': 'romashka-secret-0001' },
};

let devicesMade = 0;
/**
 * The sign-in pair (manual-bind, then auth) as autocannon requests for one demo account. autocannon gives each
 * sequence a fresh context, so a device id kept there would bind a new device every sequence and the tenant's devices
 * and sessions would grow by the thousand: a sequence borrows an id from a pool and gives it back after its auth (at
 * most one per connection; a rebind replaces the device's sessions). `newDevices`: a new device every time, as a
 * pipeline that binds one per job.
 */
export function signInRequests({ email, password, userId, tenantId }, { newDevices = false } = {}) {
  const free = [];
  return [
    {
      method: 'POST',
      path: '/mobile/manual-bind',
      headers: { 'content-type': 'application/json' },
      setupRequest: (req, ctx) => {
        ctx.deviceId = (newDevices ? undefined : free.pop()) ?? `bench-device-${devicesMade++}`;
        const device = { id: ctx.deviceId, platform: 'ios' };
        return { ...req, body: JSON.stringify({ email, password, device }) };
      },
      onResponse: (status, body, ctx) => {
        if (status === 200) ctx.accountSecret = JSON.parse(body).accountSecret;
      },
    },
    {
      method: 'POST',
      path: '/mobile/auth',
      headers: { 'content-type': 'application/json', 'x-service-tenant-id': tenantId },
      setupRequest: (req, ctx) => ({
        ...req,
        body: JSON.stringify({ secret: ctx.accountSecret?.secret ?? 'x', userId, deviceId: ctx.deviceId }),
      }),
      onResponse: (_status, _body, ctx) => free.push(ctx.deviceId),
    },
  ];
}
