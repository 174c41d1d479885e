// HTTPS for phones: a local CA created once and reused, a server certificate for this machine's names, a client that
// trusts only that CA signs in over TLS, a client without it is refused.
import t from 'tap';
import { request } from 'node:https';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureCa, issueServerCert, serverNames } from '../../src/tls/ca.js';
import { resolveTls } from '../../src/cli/start.js';
import { parseOptions, UsageError } from '../../src/config.js';
import { accounts, build } from '../helper.js';

type Answer = { status: number; body: string; json: () => any };

function call(
  url: string,
  opts: { ca?: string; method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const req = request(
      url,
      {
        method: opts.method ?? 'GET',
        ...(opts.ca ? { ca: opts.ca } : {}),
        headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...opts.headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, json: () => JSON.parse(body) }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

function usageError(fn: () => unknown): boolean {
  try {
    fn();
  } catch (err) {
    return err instanceof UsageError;
  }
  return false;
}

const caDir = mkdtempSync(join(tmpdir(), 'pm-ca-'));
const ca = ensureCa(caDir);

t.test('the CA is created once, reused, its key private', async (t) => {
  t.equal(ca.created, true);
  const again = ensureCa(caDir);
  t.equal(again.created, false);
  t.equal(again.cert, ca.cert, 'the same CA on the next start: a phone trusts it once');
  t.equal(statSync(join(caDir, 'portal-mock-ca-key.pem')).mode & 0o077, 0, 'the CA key is readable by the owner only');
  t.ok(serverNames().includes('localhost') && serverNames().includes('127.0.0.1'));
});

t.test('a client trusting only the local CA signs in over TLS; one without it is refused', async (t) => {
  const app = await build(t, { tls: issueServerCert(ca), caCertificate: ca.cert });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  t.match(address, /^https:\/\/127\.0\.0\.1:\d+$/);
  const base = address.replace('127.0.0.1', 'localhost');

  const creds = { email: accounts.admin.email, password: accounts.admin.password };
  const bind = await call(`${base}/api/v2/mobile/manual-bind`, {
    ca: ca.cert,
    method: 'POST',
    body: { ...creds, device: { id: 'tls-phone', platform: 'ios' } },
  });
  t.equal(bind.status, 200, bind.body);
  const { accountSecret, tenantInfo } = bind.json();
  t.match(tenantInfo.base_url, /^https:\/\/localhost:\d+$/, 'base_url handed to the phone is https');
  const auth = await call(`${base}/mobile/auth`, {
    ca: ca.cert,
    method: 'POST',
    headers: { 'x-service-tenant-id': accountSecret.tenantId },
    body: { secret: accountSecret.secret, userId: accountSecret.userId, deviceId: accountSecret.deviceId },
  });
  t.equal(auth.status, 200, auth.body);
  const { sessionId, sessionSecret } = auth.json();
  const info = await call(`${base}/mobile/tenant-info`, {
    ca: ca.cert,
    headers: {
      'x-service-tenant-id': accountSecret.tenantId,
      'x-service-device-id': 'tls-phone',
      'x-service-session-id': sessionId,
      'x-service-session-code': sessionSecret,
    },
  });
  t.equal(info.status, 200, info.body);
  t.match(info.json().base_url, /^https:/);

  // by LAN-style IP address too (the certificate names 127.0.0.1)
  t.equal((await call(`${address}/__admin/health`, { ca: ca.cert })).status, 200);

  const pem = await call(`${base}/__admin/ca.pem`, { ca: ca.cert });
  t.equal(pem.status, 200);
  t.equal(pem.body, ca.cert, 'the console offers the CA for download');

  const refused = await call(`${base}/__admin/health`).then(
    () => null,
    (err: NodeJS.ErrnoException) => err,
  );
  t.ok(refused, 'a client without the CA is refused');
  t.match(String(refused?.code), /SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/);

  const other = ensureCa(mkdtempSync(join(tmpdir(), 'pm-ca-other-')));
  const wrong = await call(`${base}/__admin/health`, { ca: other.cert }).then(
    () => null,
    (err: NodeJS.ErrnoException) => err,
  );
  t.ok(wrong, 'a client trusting another CA is refused');
});

t.test('without --https there is no CA to download', async (t) => {
  const app = await build(t);
  t.equal((await app.inject({ url: '/__admin/ca.pem' })).statusCode, 404);
});

t.test('flags: --https, --ca-dir, --tls-cert/--tls-key and their environment twins', async (t) => {
  t.match(parseOptions(['--https', '--ca-dir', caDir], {}), { https: true, caDir });
  t.match(parseOptions([], { PORTAL_MOCK_HTTPS: 'true', PORTAL_MOCK_CA_DIR: caDir }), { https: true, caDir });
  t.match(parseOptions([], {}), { https: false, caDir: null, noBanner: false, portFile: null });
  t.ok(
    usageError(() => parseOptions(['--tls-cert', 'a.pem'], {})),
    'a certificate without its key',
  );
  t.ok(
    usageError(() => parseOptions([], { PORTAL_MOCK_HTTPS: 'maybe' })),
    'a boolean twin takes true/false',
  );

  const local = resolveTls({ https: true, caDir, tlsCert: null, tlsKey: null });
  t.equal(local?.caCertificate, ca.cert, 'the local CA of --ca-dir is reused');
  t.equal(resolveTls({ https: false, caDir: null, tlsCert: null, tlsKey: null }), null);

  const dir = mkdtempSync(join(tmpdir(), 'pm-own-'));
  const own = issueServerCert(ca, ['localhost']);
  writeFileSync(join(dir, 'cert.pem'), own.cert);
  writeFileSync(join(dir, 'key.pem'), own.key);
  const mine = resolveTls({ https: false, caDir: null, tlsCert: join(dir, 'cert.pem'), tlsKey: join(dir, 'key.pem') });
  t.equal(mine?.tls.cert, own.cert);
  t.equal(mine?.caCertificate, null, 'your own certificate: no CA offered');
  t.ok(
    usageError(() =>
      resolveTls({ https: false, caDir: null, tlsCert: join(dir, 'missing.pem'), tlsKey: join(dir, 'key.pem') }),
    ),
    'an unreadable file is a usage error (exit 2)',
  );
});
