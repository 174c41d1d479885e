// Three real instances behind the shipped deploy/haproxy.cfg on loopback: every sandbox always reaches the same
// instance and sees only its own data, any instance lists all of them with their owner, a killed instance's
// sandboxes get a clear error at once while the others keep working, and a restart with the same --data brings
// back every acknowledged write.
import t from 'tap';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { start, httpSignIn, type Child } from './support/process.js';
import { accounts } from './helper.js';
import { adminClient } from '../src/client/admin.js';

const haproxy = '/usr/sbin/haproxy';
const config = fileURLToPath(new URL('../deploy/haproxy.cfg', import.meta.url));

/** A free loopback port: instances must keep theirs across a restart, and each needs the others' as --peers. */
const freePort = () => new Promise<number>((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address() as { port: number }; s.close(() => resolve(port)); });
});

const until = async <T>(what: string, f: () => Promise<T | undefined>, ms = 30_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

t.test('3 instances behind deploy/haproxy.cfg', { skip: existsSync(haproxy) ? false : `${haproxy} is not installed (.ci/run installs Debian's haproxy)` }, async (t) => {
  const names = ['m1', 'm2', 'm3'];
  const ports = await Promise.all(names.map(freePort));
  const balancerPort = await freePort();
  const dirs = names.map((n) => mkdtempSync(join(tmpdir(), `pm-cluster-${n}-`)));
  const url = (i: number) => `http://127.0.0.1:${ports[i]}`;
  const args = (i: number) => ['--port', String(ports[i]), '--instance-name', names[i]!, '--data', dirs[i]!,
    '--peers', names.map((_, j) => url(j)).filter((_, j) => j !== i).join(',')];
  const children: (Child | null)[] = await Promise.all(names.map((_, i) => start(args(i))));
  const lb = spawn(haproxy, ['-f', config], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PM_BIND: `127.0.0.1:${balancerPort}`, ...Object.fromEntries(names.map((n, i) => [`PM_${n.toUpperCase()}`, `127.0.0.1:${ports[i]}`])) },
  });
  let lbOut = '';
  lb.stderr.on('data', (d: Buffer) => { lbOut += d.toString(); });
  t.teardown(() => {
    lb.kill('SIGKILL');
    for (const c of children) c?.proc.kill('SIGKILL');
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const balancer = `http://127.0.0.1:${balancerPort}`;
  await until('the balancer', async () => ((await fetch(`${balancer}/__admin/health`)).ok ? true : undefined));

  // 60 sandboxes, 10 at a time: sign in, write (a personal token), read back; by header, path prefix and admin query
  const sandboxes = Array.from({ length: 60 }, (_, i) => `pipeline-${String(i).padStart(2, '0')}`);
  const owner = new Map<string, string>();
  const session = new Map<string, Record<string, string>>();
  const seen = (name: string, res: Response) => {
    const instance = res.headers.get('x-mock-instance') ?? '(none)';
    if (!owner.has(name)) owner.set(name, instance);
    if (owner.get(name) !== instance) throw new Error(`${name} reached ${instance} after ${owner.get(name)}`);
    return res;
  };
  const tokensOf = async (name: string) => {
    const res = seen(name, await fetch(`${balancer}/user-api-token`, { headers: session.get(name)! }));
    if (!res.ok) throw new Error(`${name}: ${res.status} ${await res.text()}`);
    return JSON.stringify(await res.json()).match(/ci-pipeline-\d+/g) ?? [];
  };
  let next = 0;
  await Promise.all(Array.from({ length: 10 }, async () => {
    for (let i = next++; i < sandboxes.length; i = next++) {
      const name = sandboxes[i]!;
      const headers = await httpSignIn(balancer, accounts.admin.email, `device-${name}`, name);
      session.set(name, headers);
      const created = seen(name, await fetch(`${balancer}/user-api-token/create`, {
        method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ name: `ci-${name}`, expiresAt: '2099-01-01T00:00:00Z' }),
      }));
      if (!created.ok) throw new Error(`${name}: create ${created.status} ${await created.text()}`);
      const { 'x-mock-sandbox': _, ...viaPrefix } = headers;
      seen(name, await fetch(`${balancer}/sandbox/${name}/user-api-token`, { headers: viaPrefix }));
      seen(name, await fetch(`${balancer}/__admin/requests/count?sandbox=${name}`));
    }
  }));
  const mine = await Promise.all(sandboxes.map(tokensOf));
  t.ok(sandboxes.every((name, i) => mine[i]!.length === 1 && mine[i]![0] === `ci-${name}`), 'each sandbox sees its own token and no other');
  const spread = names.map((n) => [...owner.values()].filter((o) => o === n).length);
  t.comment(`sandboxes per instance: ${names.map((n, i) => `${n} ${spread[i]}`).join(', ')}`);
  t.ok(spread.every((n) => n > 0), 'every instance holds some sandboxes');
  t.ok([...owner.values()].every((o) => names.includes(o)), 'every answer names its instance; each sandbox reached one instance by header, path prefix and admin query alike');

  // one view: any instance lists all 60 with their owner
  for (let i = 0; i < names.length; i++) {
    const listed = (await (await fetch(`${url(i)}/__admin/sandboxes`)).json()) as { name: string; instance: string }[];
    const ours = listed.filter((s) => s.name.startsWith('pipeline-'));
    t.equal(ours.length, 60, `${names[i]} lists all 60`);
    t.ok(ours.every((s) => owner.get(s.name) === s.instance), `${names[i]} names each one's owner`);
  }
  const health = await (await fetch(`${balancer}/__admin/health?sandbox=${sandboxes[0]}`)).json() as { instance: string };
  t.equal(health.instance, owner.get(sandboxes[0]!), 'admin calls for a sandbox go through the balancer to its instance');

  // reset and delete from an instance that does not hold the sandbox: forwarded to the owner
  const [victim, bystander] = [names[1]!, names[0]!];
  const other = sandboxes.filter((s) => owner.get(s) !== victim && owner.get(s) !== bystander);
  const [resetOne, deleteOne] = [other[0]!, other[1]!];
  const reset = await fetch(`${url(0)}/__admin/reset?sandbox=${resetOne}`, { method: 'POST' });
  t.equal(reset.status, 200);
  t.equal(reset.headers.get('x-mock-instance'), owner.get(resetOne), 'a reset arriving at another instance is done by the owner');
  const deleted = await fetch(`${url(1)}/__admin/sandboxes/${deleteOne}`, { method: 'DELETE' });
  t.same([deleted.status, await deleted.json()], [200, { deleted: deleteOne }], 'a delete arriving at another instance is done by the owner');
  const afterDelete = (await (await fetch(`${url(1)}/__admin/sandboxes`)).json()) as { name: string }[];
  t.notOk(afterDelete.some((s) => s.name === deleteOne || false), 'the deleted sandbox is gone from the listing');
  const live = sandboxes.filter((s) => s !== resetOne && s !== deleteOne);

  // SIGKILL one instance: its sandboxes get the balancer's error naming it, at once; the others keep working
  children[1]!.proc.kill('SIGKILL');
  await children[1]!.exited;
  children[1] = null;
  const victims = live.filter((s) => owner.get(s) === victim);
  const survivors = live.filter((s) => owner.get(s) !== victim);
  for (const name of victims) {
    const began = performance.now();
    const res = await fetch(`${balancer}/user-api-token`, { headers: session.get(name)!, signal: AbortSignal.timeout(10_000) });
    const ms = performance.now() - began;
    const body = await res.json() as { statusCode: number; code: string; message: string };
    if (res.status !== 503 || body.code !== 'INSTANCE_DOWN' || !body.message.includes(`instance ${victim} `) || !body.message.includes(name) || ms > 1000) {
      t.fail(`${name} after the kill: ${res.status} in ${Math.round(ms)} ms: ${JSON.stringify(body)}`);
    }
  }
  t.pass(`${victims.length} sandboxes of the killed ${victim}: 503 INSTANCE_DOWN naming ${victim} and the sandbox, each within a second`);
  const survived = await Promise.all(survivors.map(tokensOf));
  t.ok(survivors.every((name, i) => survived[i]![0] === `ci-${name}`), `the other ${survivors.length} sandboxes keep working`);
  const partial = await fetch(`${url(0)}/__admin/sandboxes`, { signal: AbortSignal.timeout(10_000) });
  t.match(partial.headers.get('x-mock-unreachable-peers'), url(1), 'the listing names the peer that does not answer');
  t.equal(((await partial.json()) as unknown[]).length, 2 + 1 + survivors.length, 'and lists everything else: two default sandboxes, the reset one, the survivors');
  const viaClient = await adminClient({ baseUrl: url(2) }).sandboxes.listAll();
  t.same([viaClient.sandboxes.length, viaClient.unreachable.length], [2 + 1 + survivors.length, 1], 'the admin client lists them and names the peer that did not answer');
  t.match(viaClient.unreachable[0], url(1));

  // restart with the same --data: every acknowledged write is back, sessions included
  children[1] = await start(args(1));
  await until('the restarted instance behind the balancer', async () => ((await fetch(`${balancer}/user-api-token`, { headers: session.get(victims[0]!)! })).ok ? true : undefined));
  const back = await Promise.all(victims.map(tokensOf));
  t.ok(victims.every((name, i) => back[i]![0] === `ci-${name}`), `the ${victims.length} sandboxes of ${victim} have their token after the restart`);
  t.notMatch(lbOut, /ALERT.*(parsing|config)/, 'haproxy ran the shipped config as it is');
});

t.test('scripts/move-sandboxes.mjs moves each sandbox to the instance the balancer now picks, with its data', async (t) => {
  // B stands in for a balancer that now sends every key to B (as after adding B to the ring)
  const [a, b] = await Promise.all([start(['--instance-name', 'a']), start(['--instance-name', 'b'])]);
  t.teardown(() => { a.proc.kill('SIGKILL'); b.proc.kill('SIGKILL'); });
  const moving = ['move-1', 'move-2'];
  for (const name of moving) {
    const headers = await httpSignIn(a.base, accounts.admin.email, `device-${name}`, name);
    const res = await fetch(`${a.base}/user-api-token/create`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ name: `ci-${name}`, expiresAt: '2099-01-01T00:00:00Z' }) });
    t.equal(res.status, 200);
  }
  const script = fileURLToPath(new URL('../scripts/move-sandboxes.mjs', import.meta.url));
  const run = spawn(process.execPath, [script, '--balancer', b.base, a.base, b.base], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  run.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  run.stderr.on('data', (d: Buffer) => { out += d.toString(); });
  const code = await new Promise((resolve) => run.on('exit', resolve));
  t.equal(code, 0, out);
  t.match(out, /move-1: a -> b/);
  t.match(out, /2 sandbox\(es\) moved/);
  const onA = (await (await fetch(`${a.base}/__admin/sandboxes`)).json()) as { name: string }[];
  t.same(onA.map((s) => s.name), ['default'], 'gone from the old instance');
  for (const name of moving) {
    const state = await (await fetch(`${b.base}/__admin/state?sandbox=${name}`)).json() as { data: unknown };
    t.match(JSON.stringify(state.data), `ci-${name}`, `${name} arrived at b with its token`);
  }
});
