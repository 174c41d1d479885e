// A local certificate authority for HTTPS on phones: created once (RSA 2048) in a directory outside the repo and
// reused, so a phone trusts it once; the server's leaf certificate is issued at each start for this machine's names.
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { hostname, homedir } from 'node:os';
import { join } from 'node:path';
import { isIP } from 'node:net';
import { createRequire } from 'node:module';
import type Forge from 'node-forge';
import { lanAddresses } from '../shared/lan.js';
import { writeAtomic } from '../shared/write-atomic.js';
import { makeDirs } from '../shared/make-dirs.js';

// node-forge is loaded only when TLS is asked for: importing it costs ~30 ms of every start-up.
const forgeLib = (): typeof Forge => createRequire(import.meta.url)('node-forge') as typeof Forge;

export type TlsMaterial = { key: string; cert: string };
export type LocalCa = TlsMaterial & { dir: string; created: boolean };

export const defaultCaDir = () => join(homedir(), '.portal-mock', 'ca');

const dayMs = 24 * 3600 * 1000;

/** A new RSA key pair and a certificate of its public key, valid from a day ago for `validMs`. */
function newCertificate(forge: typeof Forge, validMs: number) {
  const keys = forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = `01${forge.util.bytesToHex(forge.random.getBytesSync(15))}`;
  cert.validity.notBefore = new Date(Date.now() - dayMs);
  cert.validity.notAfter = new Date(Date.now() + validMs);
  return { keys, cert };
}

/** The CA in `dir`: read when present, else created (key readable by the owner only). */
export function ensureCa(dir: string): LocalCa {
  const certPath = join(dir, 'portal-mock-ca.pem');
  const keyPath = join(dir, 'portal-mock-ca-key.pem');
  if (existsSync(certPath) && existsSync(keyPath)) {
    return { dir, cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8'), created: false };
  }
  makeDirs(dir, 0o700);
  const forge = forgeLib();
  const { keys, cert } = newCertificate(forge, 10 * 365 * dayMs);
  const attrs = [
    { name: 'commonName', value: `portal-mock local CA (${hostname()})` },
    { name: 'organizationName', value: 'portal-mock' },
  ];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  const certPem = forge.pki.certificateToPem(cert);
  const keyPem = forge.pki.privateKeyToPem(keys.privateKey);
  writeAtomic(keyPath, keyPem, 0o600);
  chmodSync(keyPath, 0o600);
  writeAtomic(certPath, certPem, 0o644);
  return { dir, cert: certPem, key: keyPem, created: true };
}

/** Names the server certificate covers: localhost, loopback, the host name and every LAN address. */
export function serverNames(): string[] {
  const host = hostname();
  const names = [
    'localhost',
    '127.0.0.1',
    '::1',
    host,
    ...(host.includes('.') ? [] : [`${host}.local`]),
    ...lanAddresses(),
  ];
  return [...new Set(names.filter(Boolean))];
}

/** A server certificate (valid 397 days, the most iOS accepts) signed by the CA, for these names. */
export function issueServerCert(ca: TlsMaterial, names: string[] = serverNames()): TlsMaterial {
  const forge = forgeLib();
  const caCert = forge.pki.certificateFromPem(ca.cert);
  const caKey = forge.pki.privateKeyFromPem(ca.key);
  const { keys, cert } = newCertificate(forge, 397 * dayMs - 2 * dayMs);
  cert.setSubject([
    { name: 'commonName', value: names[0] ?? 'localhost' },
    { name: 'organizationName', value: 'portal-mock' },
  ]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: names.map((n) => (isIP(n) ? { type: 7, ip: n } : { type: 2, value: n })) },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: forge.pki.privateKeyToPem(keys.privateKey) };
}
