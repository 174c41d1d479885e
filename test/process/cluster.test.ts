// Three real instances behind the shipped deploy/haproxy.cfg on loopback: every sandbox always reaches the same
// instance and sees only its own data, any instance lists all of them with their owner, a killed instance's
// sandboxes get a clear error at once while the others keep working, an admin call for a sandbox of a killed or
// frozen instance sent to another one is a 503 that creates nothing, and a restart with the same --data brings
// back every acknowledged write.
import t from 'tap';
import { spawn } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { balancerConfig, haproxy, shippedConfig } from '../support/haproxy.js';
import { freePort, start, httpSignIn, type Child, withoutTapHooks } from '../support/process.js';
import { accounts, build, json } from '../helper.js';
import { adminClient } from '../../src/client/control.js';
import { operations, type OpenApiDoc, type Operation } from '../support/openapi.js';

// three instances, 60 sandboxes, a kill, a restart and a frozen peer on a machine that may be busy: be patient
t.setTimeout(600_000);

/** How long one request may take on a busy machine (the peer timeout, 1.5 s, is far below it). */
const patience = () => AbortSignal.timeout(60_000);

const until = async <T>(what: string | (() => string), f: () => Promise<T | undefined>, ms = 300_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

t.test(
  '3 instances behind deploy/haproxy.cfg',
  { skip: existsSync(haproxy) ? false : `${haproxy} is not installed (.ci/run installs Debian's haproxy)` },
  async (t) => {
    const names = ['m1', 'm2', 'm3'];
    const ports = await Promise.all(names.map(freePort));
    const balancerPort = await freePort();
    const dirs = names.map((n) => mkdtempSync(join(tmpdir(), `pm-cluster-${n}-`)));
    const url = (i: number) => `http://127.0.0.1:${ports[i]}`;
    const args = (i: number) => [
      '--port',
      String(ports[i]),
      '--instance-name',
      names[i]!,
      '--data',
      dirs[i]!,
      '--peers',
      names
        .map((_, j) => url(j))
        .filter((_, j) => j !== i)
        .join(','),
    ];
    const children: (Child | null)[] = await Promise.all(names.map((_, i) => start(args(i), 120_000)));
    // the shipped config as it is: its health check may take 10 s (timeout check), so an instance busy with other work
    // is not taken for down, while a killed one is seen at once (its connection is refused)
    t.match(readFileSync(shippedConfig, 'utf8'), /^\s+timeout check 10s/m, 'the health check is patient');
    const config = balancerConfig(); // the shipped file, its abstract socket names this test's own
    t.teardown(config.remove);
    const lb = spawn(haproxy, ['-f', config.file], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        PM_BIND: `127.0.0.1:${balancerPort}`,
        ...Object.fromEntries(names.map((n, i) => [`PM_${n.toUpperCase()}`, `127.0.0.1:${ports[i]}`])),
      },
    });
    let lbOut = '';
    lb.stderr.on('data', (d: Buffer) => {
      lbOut += d.toString();
    });
    t.teardown(() => {
      // an instance the guards took for down while it ran (a check slower than its timeout) explains a stray 502 or 503
      const changes = lbOut.split('\n').filter((l) => / is (DOWN|UP),/.test(l));
      if (!t.passing() && changes.length > 0) console.error(`haproxy's view of the instances:\n${changes.join('\n')}`);
      lb.kill('SIGKILL');
      for (const c of children) c?.proc.kill('SIGCONT'); // one may be frozen (SIGSTOP) below
      for (const c of children) c?.proc.kill('SIGKILL');
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });
    const balancer = `http://127.0.0.1:${balancerPort}`;

    // Ready when every instance answers through its guard: a key per instance, found by asking the balancer for the
    // health of sandboxes that do not exist (that creates nothing; the instance's 404 or its guard's 503 names it).
    // Twenty keys at a time: one at a time, a round of 200 took minutes on a busy machine. What the balancer answered
    // is kept for the failure message (an instance its guard holds for down answers 503, naming none).
    const probeKeys = new Map<string, string>();
    const answered = new Map<string, number>();
    await until(
      () => `a key leading to each instance (answers: ${JSON.stringify([...answered])})`,
      async () => {
        for (let i = 0; i < 200 && probeKeys.size < names.length; i += 20) {
          const keys = Array.from({ length: 20 }, (_, j) => `probe-${i + j}`);
          const answers = await Promise.all(
            keys.map(async (key) => {
              const res = await fetch(`${balancer}/__admin/health?sandbox=${key}`, { signal: patience() });
              await res.arrayBuffer();
              return { key, status: res.status, instance: res.headers.get('x-mock-instance') };
            }),
          );
          for (const { key, status, instance } of answers) {
            const seen = `${status} ${instance ?? '-'}`;
            answered.set(seen, (answered.get(seen) ?? 0) + 1);
            if (instance && !probeKeys.has(instance)) probeKeys.set(instance, key);
          }
        }
        return probeKeys.size === names.length ? true : undefined;
      },
    );
    const upBehindBalancer = (instance: string, key: string) =>
      until(`${instance} behind the balancer`, async () => {
        const res = await fetch(`${balancer}/__admin/health?sandbox=${key}`);
        return res.status === 404 && res.headers.get('x-mock-instance') === instance ? true : undefined;
      });
    const allUp = () => Promise.all([...probeKeys].map(([instance, key]) => upBehindBalancer(instance, key)));
    await allUp();

    type Listed = { name: string; instance: string };
    const localNames = async (i: number) =>
      ((await (await fetch(`${url(i)}/__admin/sandboxes?scope=local`, { signal: patience() })).json()) as Listed[])
        .map((s) => s.name)
        .sort();

    // Every operation of the app, portal and control plane, from the two API documents of a running instance: a route
    // added later is in one, and so in the checks below. The routes that answer for the instance reached and are
    // never sent on are named: health (scripts/move-sandboxes.mjs asks the balancer with it who would own a name) and
    // the MCP endpoint (its tools send each admin call they make on by itself, docs/mcp.md).
    const documentOf = async (path: string) =>
      (await (await fetch(`${url(0)}${path}`, { signal: patience() })).json()) as OpenApiDoc;
    const ops = [
      ...operations(await documentOf('/docs/json')),
      ...operations(await documentOf('/__admin/openapi.json')),
    ];
    const answersHere = (op: Operation) => op.operationId === 'mockHealth' || op.operationId === 'mockMcp';
    const controlOps = ops.filter((op) => op.path.startsWith('/__admin'));
    t.comment(`${ops.length} operations: ${controlOps.length} of the control plane, the rest the portal's`);
    t.ok(controlOps.length > 100 && ops.length - controlOps.length > 100, 'the document lists the operations of both');
    /**
     * The call of `op` about sandbox `name` sent to `base`: the name as its key (x-mock-sandbox; ?sandbox= too on the
     * control plane) and in a path parameter called `name` (the sandbox or scenario routes), a sample for any other
     * parameter, and {} for a method with a body. What the input is does not matter: which instance answers does.
     */
    const callOf = (base: string, op: Operation, name: string) => {
      const path = op.path.replace(/\{(\w+)\}/g, (_, p: string) => (p === 'name' ? name : 'x1'));
      const query = path.startsWith('/__admin') ? `?sandbox=${name}` : '';
      const hasBody = op.method !== 'GET' && op.method !== 'DELETE';
      return fetch(`${base}${path}${query}`, {
        method: op.method,
        headers: { 'x-mock-sandbox': name, ...(hasBody ? { 'content-type': 'application/json' } : {}) },
        ...(hasBody ? { body: '{}' } : {}),
        signal: patience(),
      });
    };
    /** `f` over `items`, `n` at a time. */
    const inPool = async <T>(items: T[], n: number, f: (item: T) => Promise<void>) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: n }, async () => {
          for (let i = next++; i < items.length; i = next++) await f(items[i]!);
        }),
      );
    };
    /**
     * Every operation about `name` sent straight to instance `i` while the instance that holds it cannot be asked
     * (killed, frozen): each the one error body, a 503 INSTANCE_DOWN from `i` naming the sandbox and `unreachable`
     * ("peer (instance): why"), also in x-mock-unreachable-peers; never a 2xx, and afterwards instance `i` holds
     * exactly the sandboxes it held before (no copy of `name`, nor of anything else).
     */
    const refusedWhile = async (i: number, name: string, unreachable: string) => {
      const before = await localNames(i);
      const wrong: string[] = [];
      await inPool(ops, 32, async (op) => {
        const res = await callOf(url(i), op, name);
        const text = await res.text();
        const from = res.headers.get('x-mock-instance');
        const got = `${op.method} ${op.path} (${op.operationId}): ${res.status} from ${from} ${text.slice(0, 300)}`;
        if (answersHere(op)) {
          // health: no such sandbox here; the MCP endpoint: {} is no JSON-RPC message, whichever sandbox is named
          const expected = op.operationId === 'mockMcp' ? 'VALIDATION_FAILED' : 'SANDBOX_NOT_FOUND';
          if (res.status !== (expected === 'VALIDATION_FAILED' ? 400 : 404) || !text.includes(expected))
            wrong.push(got);
          if (from !== names[i]) wrong.push(got);
          return;
        }
        // a page (/pages/…) answers its errors as an HTML page that shows the message, the rest the one error body
        const page = res.headers.get('content-type')?.startsWith('text/html') === true;
        let body: Record<string, unknown> = {};
        try {
          body = page ? { code: 'INSTANCE_DOWN', message: text } : (JSON.parse(text) as Record<string, unknown>);
        } catch {}
        const message = String(body.message ?? '').replaceAll('&quot;', '"');
        const refused =
          res.status === 503 &&
          (page || Object.keys(body).sort().join() === 'code,error,message,statusCode') &&
          body.code === 'INSTANCE_DOWN' &&
          message.includes(`sandbox "${name}" is not on instance ${names[i]} `) &&
          message.includes(unreachable) &&
          res.headers.get('x-mock-instance') === names[i] &&
          res.headers.get('x-mock-unreachable-peers') === unreachable;
        if (!refused) wrong.push(got);
      });
      t.same(
        wrong,
        [],
        `${ops.length} operations about ${name} sent to ${names[i]}: 503 INSTANCE_DOWN naming ${unreachable} (health: 404)`,
      );
      t.same(await localNames(i), before, `${names[i]} holds what it held before: no copy of ${name} was made`);
    };
    /** Every instance answers the listing, and it names each sandbox once. */
    const listedOnce = async (when: string) => {
      const res = await fetch(`${url(0)}/__admin/sandboxes`, { signal: patience() });
      const listed = (await res.json()) as Listed[];
      const twice = listed.filter((s, i) => s.name !== 'default' && listed.findIndex((o) => o.name === s.name) !== i);
      t.same(
        [res.headers.get('x-mock-unreachable-peers'), res.headers.get('x-mock-sandbox-copies'), twice],
        [null, null, []],
        `${when}: every peer answers, no instance holds a copy of another's sandbox, and none is listed twice`,
      );
    };

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
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        for (let i = next++; i < sandboxes.length; i = next++) {
          const name = sandboxes[i]!;
          const headers = await httpSignIn(balancer, accounts.admin.email, `device-${name}`, name);
          session.set(name, headers);
          const created = seen(
            name,
            await fetch(`${balancer}/user-api-token/create`, {
              method: 'POST',
              headers: { ...headers, 'content-type': 'application/json' },
              body: JSON.stringify({ name: `ci-${name}`, expiresAt: '2099-01-01T00:00:00Z' }),
            }),
          );
          if (!created.ok) throw new Error(`${name}: create ${created.status} ${await created.text()}`);
          const { 'x-mock-sandbox': _, ...viaPrefix } = headers;
          seen(name, await fetch(`${balancer}/sandbox/${name}/user-api-token`, { headers: viaPrefix }));
          seen(name, await fetch(`${balancer}/__admin/requests/count?sandbox=${name}`));
        }
      }),
    );
    const mine = await Promise.all(sandboxes.map(tokensOf));
    t.ok(
      sandboxes.every((name, i) => mine[i]!.length === 1 && mine[i]![0] === `ci-${name}`),
      'each sandbox sees its own token and no other',
    );
    const spread = names.map((n) => [...owner.values()].filter((o) => o === n).length);
    t.comment(`sandboxes per instance: ${names.map((n, i) => `${n} ${spread[i]}`).join(', ')}`);
    t.ok(
      spread.every((n) => n > 0),
      'every instance holds some sandboxes',
    );
    t.ok(
      [...owner.values()].every((o) => names.includes(o)),
      'every answer names its instance; each sandbox reached one instance by header, path prefix and admin query alike',
    );

    // one view: any instance lists all 60 with their owner
    for (let i = 0; i < names.length; i++) {
      // a peer slower than 1.5 s (a busy machine) is left out of a listing and named in x-mock-unreachable-peers:
      // ask again until every peer answered
      let res = await fetch(`${url(i)}/__admin/sandboxes`);
      for (let tries = 1; tries < 20 && res.headers.has('x-mock-unreachable-peers'); tries++) {
        await res.body?.cancel();
        res = await fetch(`${url(i)}/__admin/sandboxes`);
      }
      const listed = (await res.json()) as {
        name: string;
        instance: string;
      }[];
      const ours = listed.filter((s) => s.name.startsWith('pipeline-'));
      t.equal(ours.length, 60, `${names[i]} lists all 60`);
      t.ok(
        ours.every((s) => owner.get(s.name) === s.instance),
        `${names[i]} names each one's owner`,
      );
    }
    const health = (await (await fetch(`${balancer}/__admin/health?sandbox=${sandboxes[0]}`)).json()) as {
      instance: string;
    };
    t.equal(
      health.instance,
      owner.get(sandboxes[0]!),
      'admin calls for a sandbox go through the balancer to its instance',
    );

    // reset and delete from an instance that does not hold the sandbox: forwarded to the owner
    const [victim, bystander] = [names[1]!, names[0]!];
    const other = sandboxes.filter((s) => owner.get(s) !== victim && owner.get(s) !== bystander);
    const [resetOne, deleteOne] = [other[0]!, other[1]!];
    const reset = await fetch(`${url(0)}/__admin/reset?sandbox=${resetOne}`, { method: 'POST' });
    t.equal(reset.status, 200);
    t.equal(
      reset.headers.get('x-mock-instance'),
      owner.get(resetOne),
      'a reset arriving at another instance is done by the owner',
    );
    const deleted = await fetch(`${url(1)}/__admin/sandboxes/${deleteOne}`, { method: 'DELETE' });
    t.same(
      [deleted.status, await deleted.json()],
      [200, { deleted: deleteOne }],
      'a delete arriving at another instance is done by the owner',
    );
    const afterDelete = (await (await fetch(`${url(1)}/__admin/sandboxes`)).json()) as { name: string }[];
    t.notOk(
      afterDelete.some((s) => s.name === deleteOne || false),
      'the deleted sandbox is gone from the listing',
    );
    const live = sandboxes.filter((s) => s !== resetOne && s !== deleteOne);

    // what an admin call told the instance about to be killed must come back with it: its sandboxes' scenario
    const told = live.filter((s) => owner.get(s) === victim);
    for (const name of told) {
      const set = await fetch(`${balancer}/__admin/scenario`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'x-mock-sandbox': name },
        body: JSON.stringify({ name: 'wallet-disabled' }),
        signal: patience(),
      });
      if (set.status !== 200) throw new Error(`${name}: scenario ${set.status} ${await set.text()}`);
      await set.body?.cancel();
    }

    // SIGKILL one instance: its sandboxes get the balancer's error naming it, at once; the others keep working
    children[1]!.proc.kill('SIGKILL');
    await children[1]!.exited;
    children[1] = null;
    const victims = live.filter((s) => owner.get(s) === victim);
    const survivors = live.filter((s) => owner.get(s) !== victim);
    if (!t.ok(victims.length > 0 && survivors.length > 0, `the killed ${victim} held sandboxes, others the rest`))
      return;
    const wrong: string[] = [];
    for (const name of victims) {
      const res = await fetch(`${balancer}/user-api-token`, { headers: session.get(name)!, signal: patience() });
      const body = (await res.json()) as { statusCode: number; code: string; message: string };
      const named = body.message?.includes(`instance ${victim} `) && body.message.includes(name);
      if (res.status !== 503 || body.code !== 'INSTANCE_DOWN' || !named) {
        wrong.push(`${name} after the kill: ${res.status} ${JSON.stringify(body)}`);
      }
    }
    t.same(
      wrong,
      [],
      `${victims.length} sandboxes of the killed ${victim}: 503 INSTANCE_DOWN naming it and the sandbox`,
    );
    const survived = await Promise.all(survivors.map(tokensOf));
    t.ok(
      survivors.every((name, i) => survived[i]![0] === `ci-${name}`),
      `the other ${survivors.length} sandboxes keep working`,
    );
    const partial = await fetch(`${url(0)}/__admin/sandboxes`, { signal: patience() });
    t.match(partial.headers.get('x-mock-unreachable-peers'), url(1), 'the listing names the peer that does not answer');
    t.equal(
      ((await partial.json()) as unknown[]).length,
      2 + 1 + survivors.length,
      'and lists everything else: two default sandboxes, the reset one, the survivors',
    );
    const viaClient = await adminClient({ baseUrl: url(2) }).sandboxes.listAll();
    t.same(
      [viaClient.sandboxes.length, viaClient.unreachable.length],
      [2 + 1 + survivors.length, 1],
      'the admin client lists them and names the peer that did not answer',
    );
    t.match(viaClient.unreachable[0], url(1));

    // every call about a sandbox of the killed instance, sent to another: 503 naming it, nothing created
    const [gone] = victims as [string];
    await refusedWhile(0, gone, `${url(1)} (${victim}): ECONNREFUSED`);
    // the balancer routes a reset by its key to the name's instance: there a brand-new sandbox is made as by any
    // request, the killed instance does not stop it (a name whose instance is the killed one gets the balancer's 503)
    const resetVia = (base: string, name: string) =>
      fetch(`${base}/__admin/reset`, { method: 'POST', headers: { 'x-mock-sandbox': name }, signal: patience() });
    let fresh: Response | undefined;
    for (let i = 0; i < 40 && !fresh; i++) {
      const res = await resetVia(balancer, `fresh-${i}`);
      if (res.status === 503 && res.headers.get('x-mock-instance') === victim) await res.body?.cancel();
      else fresh = res;
    }
    const routedTo = fresh?.headers.get('x-mock-instance');
    t.not(routedTo, victim, 'a new name that the ring gives to a live instance');
    t.match(
      [fresh?.status, await fresh?.json()],
      [200, { name: /^fresh-/, instance: routedTo }],
      `a reset through the balancer makes that new sandbox on ${routedTo} while ${victim} is down`,
    );

    // restart with the same --data: every acknowledged write is back, sessions included
    children[1] = await start(args(1), 120_000);
    await allUp();
    const back = await Promise.all(victims.map(tokensOf));
    t.ok(
      victims.every((name, i) => back[i]![0] === `ci-${name}`),
      `the ${victims.length} sandboxes of ${victim} have their token after the restart`,
    );
    await listedOnce(`after ${victim}'s restart`);
    // GET /__admin/sandboxes/NAME carries the key "default" through the balancer: whichever instance that reaches
    // answers with the owner's sandbox, as no other instance made a copy of it
    const read = await fetch(`${balancer}/__admin/sandboxes/${gone}`, { signal: patience() });
    t.match(
      [read.status, read.headers.get('x-mock-instance'), await read.json()],
      [200, victim, { name: gone, instance: victim }],
      `${gone} read through the balancer: ${victim}'s own`,
    );
    const scenarios = await Promise.all(
      told.map(async (name) => {
        const res = await fetch(`${url(1)}/__admin/sandboxes/${name}?scope=local`, { signal: patience() });
        return ((await res.json()) as { scenario?: string }).scenario;
      }),
    );
    t.ok(
      told.length > 0 && scenarios.every((s) => s === 'wallet-disabled'),
      `the ${told.length} sandboxes of ${victim} have their scenario after the kill and restart`,
    );

    // SIGSTOP another instance: asked about its sandboxes, an instance waits the peer timeout (1.5 s), then 503
    const frozen = names[2]!;
    const iced = live.filter((s) => owner.get(s) === frozen);
    if (!t.ok(iced.length > 0, `the frozen ${frozen} holds sandboxes`)) return;
    children[2]!.proc.kill('SIGSTOP');
    await refusedWhile(0, iced[0]!, `${url(2)} (${frozen}): no answer within 1500 ms`);
    const forwarded = await resetVia(url(0), gone);
    t.same(
      [forwarded.status, forwarded.headers.get('x-mock-instance')],
      [200, victim],
      `a sandbox whose owner answers is still reset there while ${frozen} is frozen`,
    );
    await forwarded.body?.cancel();
    children[2]!.proc.kill('SIGCONT');
    await allUp();
    const thawed = await fetch(`${url(0)}/__admin/sandboxes/${iced[0]}`, { signal: patience() });
    t.same(
      [thawed.status, thawed.headers.get('x-mock-instance')],
      [200, frozen],
      `${iced[0]} is found on ${frozen} once it runs again`,
    );
    await thawed.body?.cancel();
    t.same(await tokensOf(iced[0]!), [`ci-${iced[0]}`], `${iced[0]} was neither reset nor deleted`);
    await listedOnce(`after ${frozen} ran again`);

    // every instance up: every call about a sandbox, sent to an instance that does not hold it, is answered by the
    // one that does (health aside), a portal call relayed as it came with the owner's answer. One call at a time, the
    // sandbox made again on its owner before each: some of the calls delete it
    const elsewhere = iced[0]!;
    const relayed = await fetch(`${url(0)}/user-api-token`, { headers: session.get(elsewhere)!, signal: patience() });
    t.match(
      [relayed.status, relayed.headers.get('x-mock-instance'), await relayed.text()],
      [200, frozen, `ci-${elsewhere}`],
      `a portal call about ${elsewhere} sent to ${names[0]} is answered by ${frozen}, with its data`,
    );
    const held = await localNames(0);
    const notForwarded: string[] = [];
    for (const op of ops) {
      const made = await fetch(`${url(2)}/__admin/sandboxes/${elsewhere}`, {
        method: 'PUT',
        headers: { 'x-mock-sandbox': elsewhere },
        signal: patience(),
      });
      if (made.status !== 200 && made.status !== 201)
        throw new Error(`${elsewhere}: ${made.status} ${await made.text()}`);
      await made.body?.cancel();
      const res = await callOf(url(0), op, elsewhere);
      const text = await res.text();
      const by = res.headers.get('x-mock-instance');
      if (by !== (answersHere(op) ? names[0] : frozen))
        notForwarded.push(
          `${op.method} ${op.path} (${op.operationId}): ${res.status} from ${by} ${text.slice(0, 200)}`,
        );
    }
    t.same(notForwarded, [], `${ops.length} operations about ${elsewhere} sent to ${names[0]}: answered by ${frozen}`);
    t.same(await localNames(0), held, `${names[0]} made no copy of ${elsewhere} meanwhile`);
    t.notMatch(lbOut, /ALERT.*(parsing|config)/, 'haproxy ran the shipped config');
  },
);

t.test(
  'a sandbox a peer holds: its SVG, a HEAD and a portal call with a body are relayed as the owner answers',
  async (t) => {
    const owner = await build(t, { instanceName: 'owner' });
    const ownerUrl = await owner.listen({ port: 0, host: '127.0.0.1' });
    const asked = await build(t, { instanceName: 'asked', peers: [ownerUrl] });
    const askedUrl = await asked.listen({ port: 0, host: '127.0.0.1' });
    const made = await fetch(`${ownerUrl}/__admin/sandboxes/far`, { method: 'PUT' });
    t.equal(made.status, 201, 'far is made on owner');
    const key = { 'x-mock-sandbox': 'far' };
    const bytes = async (res: Response) => [res.status, res.headers.get('content-type'), await res.text()];

    const fixtures = await fetch(`${askedUrl}/__admin/fixtures?sandbox=far`);
    t.equal(fixtures.headers.get('x-mock-instance'), 'owner', 'the fixtures of far come from owner');
    const { bindLinks, tenants } = (await fixtures.json()) as {
      bindLinks: { id: string }[];
      tenants: { id: string }[];
    };
    const qr = `/__admin/bind-links/${bindLinks[0]!.id}/qr.svg?sandbox=far`;
    const relayedQr = await fetch(askedUrl + qr);
    t.equal(relayedQr.headers.get('x-mock-instance'), 'owner');
    t.same(await bytes(relayedQr), await bytes(await fetch(ownerUrl + qr)), 'the QR code: the SVG of owner, as it is');

    const head = await fetch(`${askedUrl}/__admin/clock?sandbox=far`, { method: 'HEAD' });
    t.same([head.status, head.headers.get('x-mock-instance')], [200, 'owner'], 'a HEAD is answered by owner');

    const image = `/images/tenant/${tenants[0]!.id}.svg`;
    const relayedImage = await fetch(askedUrl + image, { headers: key });
    t.equal(relayedImage.headers.get('x-mock-instance'), 'owner');
    t.same(await bytes(relayedImage), await bytes(await fetch(ownerUrl + image, { headers: key })), 'a portal image');
    const signIn = await fetch(`${askedUrl}/sandbox/far/mobile/manual-bind`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: accounts.admin.email, password: 'demo1234', device: { id: 'relayed-device' } }),
    });
    t.same([signIn.status, signIn.headers.get('x-mock-instance')], [200, 'owner'], 'a portal POST: done by owner');
    const journal = await (await fetch(`${ownerUrl}/__admin/requests?sandbox=far`)).json();
    t.match(journal, [{ operationId: 'mobileManualBind', status: 200 }], "in owner's journal of far");
    // an admin DELETE that names its sandbox in the header only: the name goes with it
    await fetch(`${ownerUrl}/mobile/auth`, { method: 'POST' }); // a request in owner's default journal
    const cleared = await fetch(`${askedUrl}/__admin/requests`, { method: 'DELETE', headers: key });
    t.equal(cleared.headers.get('x-mock-instance'), 'owner');
    const count = async (sandbox: string) =>
      ((await (await fetch(`${ownerUrl}/__admin/requests/count?sandbox=${sandbox}`)).json()) as { count: number })
        .count;
    t.same([await count('far'), await count('default')], [0, 1], "far's journal cleared on owner, default's kept");
    const local = (await (await fetch(`${askedUrl}/__admin/sandboxes?scope=local`)).json()) as { name: string }[];
    t.same(
      local.map((s) => s.name),
      ['default'],
      'asked made no copy of far',
    );
  },
);

t.test(
  'a name two instances hold (files from before, a ring change not moved yet): listed once, copies named',
  async (t) => {
    const other = await build(t, { instanceName: 'other' });
    const otherUrl = await other.listen({ port: 0, host: '127.0.0.1' });
    const here = await build(t, { instanceName: 'here', peers: [otherUrl] });
    const onOther = await fetch(`${otherUrl}/__admin/sandboxes/twin`, { method: 'PUT' });
    t.equal(onOther.status, 201, 'twin is on other');
    // as a call another instance sent on would make it (x-mock-forwarded: answered where it arrives)
    const headers = { 'x-mock-forwarded': 'test' };
    const onHere = await here.inject({ method: 'PUT', url: '/__admin/sandboxes/twin', headers });
    t.equal(onHere.statusCode, 201, 'and on here');
    const listing = await here.inject({ url: '/__admin/sandboxes' });
    const listed = json(listing).map((s: { name: string; instance: string }) => `${s.name}@${s.instance}`);
    t.same(listed.sort(), ['default@here', 'default@other', 'twin@here'], 'each name once (each default is its own)');
    t.equal(listing.headers['x-mock-sandbox-copies'], 'twin: here, other', 'the copies named with their instances');
  },
);

t.test('a peer name that does not resolve: reset and GET of a sandbox not held here are a 503 naming it', async (t) => {
  const app = await build(t, { instanceName: 'alone', peers: ['dns:no-such-peer.invalid:8080'] });
  const message = /dns:no-such-peer\.invalid:8080: does not resolve/;
  const calls = [
    ['POST', '/__admin/reset?sandbox=elsewhere'],
    ['GET', '/__admin/sandboxes/elsewhere'],
  ] as const;
  for (const [method, url] of calls) {
    const res = await app.inject({ method, url });
    t.match([res.statusCode, json(res)], [503, { code: 'INSTANCE_DOWN', message }], `${method} ${url}`);
  }
  const local = json(await app.inject({ url: '/__admin/sandboxes?scope=local' })).map((s: { name: string }) => s.name);
  t.same(local, ['default'], 'nothing was created');
});

t.test('an owner that breaks off its answer to a forwarded reset: 502, not 500', async (t) => {
  // a stand-in peer: holds "elsewhere", and cuts the connection halfway through the reset's answer
  const peer = createHttpServer((req, res) => {
    const jsonType = { 'content-type': 'application/json' };
    if (req.method === 'GET') return res.writeHead(200, { ...jsonType, 'x-mock-instance': 'owner' }).end('{}');
    res.writeHead(200, { ...jsonType, 'content-length': '100' }).write('{"name":"else');
    setImmediate(() => res.destroy());
  });
  await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    peer.closeAllConnections();
    peer.close();
  });
  const { port } = peer.address() as { port: number };
  const app = await build(t, { instanceName: 'asked', peers: [`http://127.0.0.1:${port}`] });
  const res = await app.inject({ method: 'POST', url: '/__admin/reset?sandbox=elsewhere' });
  const message = /lives on instance owner, which did not answer/;
  t.match([res.statusCode, json(res)], [502, { code: 'BAD_GATEWAY', message }], 'the one error body, naming the owner');
});

t.test('a peer that answers text/html: 502 or 503 naming the peer, never a 500', async (t) => {
  // a stand-in peer behind a broken proxy: says it holds "elsewhere" in JSON, then answers admin calls with HTML;
  // "html-only" it never answers in JSON at all
  const html = { 'content-type': 'text/html; charset=utf-8' };
  const peer = createHttpServer((req, res) => {
    if (req.method === 'GET' && req.url?.startsWith('/__admin/sandboxes/elsewhere'))
      return res.writeHead(200, { 'content-type': 'application/json', 'x-mock-instance': 'owner' }).end('{}');
    res.writeHead(200, html).end('<html><body>502 Bad Gateway</body></html>');
  });
  await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    peer.closeAllConnections();
    peer.close();
  });
  const { port } = peer.address() as { port: number };
  const address = `http://127.0.0.1:${port}`;
  const app = await build(t, { instanceName: 'asked', peers: [address] });

  const forwarded = await app.inject({ method: 'POST', url: '/__admin/reset?sandbox=elsewhere' });
  t.match(
    [forwarded.statusCode, json(forwarded)],
    [
      502,
      {
        code: 'BAD_GATEWAY',
        message: /lives on instance owner, which did not answer: answered 200 text\/html, not JSON/,
      },
    ],
    'the owner answered HTML: 502, the one error body',
  );
  t.match(json(forwarded).message, `(peer ${address})`, 'naming the peer');

  const asked = await app.inject({ method: 'POST', url: '/__admin/reset?sandbox=html-only' });
  t.match(
    [asked.statusCode, json(asked)],
    // named with the instance the address last answered as ("owner", when it still said it held "elsewhere")
    [503, { code: 'INSTANCE_DOWN', message: `${address} (owner): answered 200 text/html, not JSON` }],
    'a peer that cannot say whether it holds the sandbox: 503 naming it, as for a peer that is down',
  );
  const listing = await app.inject({ url: '/__admin/sandboxes' });
  t.equal(listing.statusCode, 200, 'the listing still answers');
  t.equal(listing.headers['x-mock-unreachable-peers'], `${address} (owner): answered 200 text/html, not JSON`);
  const local = json(await app.inject({ url: '/__admin/sandboxes?scope=local' })).map((s: { name: string }) => s.name);
  t.same(local, ['default'], 'nothing was created here');
});

t.test(
  'scripts/move-sandboxes.mjs moves each sandbox to the instance the balancer now picks, with its data',
  async (t) => {
    // B stands in for a balancer that now sends every key to B (as after adding B to the ring)
    const [a, b] = await Promise.all([start(['--instance-name', 'a']), start(['--instance-name', 'b'])]);
    t.teardown(() => {
      a.proc.kill('SIGKILL');
      b.proc.kill('SIGKILL');
    });
    const moving = ['move-1', 'move-2'];
    for (const name of moving) {
      const headers = await httpSignIn(a.base, accounts.admin.email, `device-${name}`, name);
      const res = await fetch(`${a.base}/user-api-token/create`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `ci-${name}`, expiresAt: '2099-01-01T00:00:00Z' }),
      });
      t.equal(res.status, 200);
    }
    const script = fileURLToPath(new URL('../../scripts/move-sandboxes.mjs', import.meta.url));
    const run = spawn(...withoutTapHooks(process.execPath, [script, '--balancer', b.base, a.base, b.base]), {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    run.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    run.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const code = await new Promise((resolve) => run.on('exit', resolve));
    t.equal(code, 0, out);
    t.match(out, /move-1: a -> b/);
    t.match(out, /2 sandbox\(es\) moved/);
    const onA = (await (await fetch(`${a.base}/__admin/sandboxes`)).json()) as { name: string }[];
    t.same(
      onA.map((s) => s.name),
      ['default'],
      'gone from the old instance',
    );
    for (const name of moving) {
      const state = (await (await fetch(`${b.base}/__admin/state?sandbox=${name}`)).json()) as { data: unknown };
      t.match(JSON.stringify(state.data), `ci-${name}`, `${name} arrived at b with its token`);
    }
  },
);
