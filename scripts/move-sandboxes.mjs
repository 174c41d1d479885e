#!/usr/bin/env node
// Moves sandboxes to the instance the balancer now sends them to, after instances were added or removed:
//   node scripts/move-sandboxes.mjs --balancer URL [--token T] [--dry-run] INSTANCE_URL...
// For each sandbox of each instance (not default), the balancer's x-mock-instance for the sandbox's key names its
// new owner; when that is another instance, the sandbox is exported from the old one (GET /__admin/state), imported
// through the balancer (PUT /__admin/state with the key) and deleted from the old one. Moves data, scenario and
// clock; the journal and outbox stay behind. Run it while no pipeline uses the sandboxes being moved.
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { balancer: { type: 'string' }, token: { type: 'string' }, 'dry-run': { type: 'boolean' } },
});
if (!values.balancer || positionals.length === 0) {
  process.stderr.write(
    'usage: node scripts/move-sandboxes.mjs --balancer URL [--token T] [--dry-run] INSTANCE_URL...\n',
  );
  process.exit(2);
}
const headers = {
  accept: 'application/json',
  'x-mock-forwarded': 'move-sandboxes',
  ...(values.token ? { authorization: `Bearer ${values.token}` } : {}),
};
const call = async (url, init = {}) => {
  const res = await fetch(url, { ...init, headers: { ...headers, ...init.headers } });
  if (!res.ok && res.status !== 404)
    throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return res;
};
const balancer = values.balancer.replace(/\/+$/, '');
let moved = 0;
for (const base of positionals.map((u) => u.replace(/\/+$/, ''))) {
  const listed = await call(`${base}/__admin/sandboxes?scope=local`);
  const from = listed.headers.get('x-mock-instance');
  for (const { name } of await listed.json()) {
    if (name === 'default') continue;
    const key = `sandbox=${encodeURIComponent(name)}`;
    const to = (await call(`${balancer}/__admin/health?${key}`)).headers.get('x-mock-instance');
    if (!to || to === from) continue;
    process.stdout.write(`${name}: ${from} -> ${to}${values['dry-run'] ? ' (dry run)' : ''}\n`);
    if (values['dry-run']) continue;
    const snapshot = await (await call(`${base}/__admin/state?${key}`)).text();
    await call(`${balancer}/__admin/state?${key}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-mock-sandbox': name },
      body: snapshot,
    });
    await call(`${base}/__admin/sandboxes/${encodeURIComponent(name)}`, { method: 'DELETE' });
    moved++;
  }
}
process.stdout.write(`${moved} sandbox(es) moved\n`);
