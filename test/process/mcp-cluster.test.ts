// MCP through the balancer: two real instances (peers of each other) behind the shipped deploy/haproxy.cfg (its two
// first instances). A sandbox is made on one instance; tool calls sent through the balancer, which routes the one
// endpoint by whatever key the client's request carries and so may pick either instance, see and change that
// sandbox on its owner, and no copy of it appears on the other instance. The endpoint is stateless: no affinity.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import t from 'tap';
import { structuredOf } from '../support/mcp-client.js';
import { balancerConfig, haproxy, shippedConfig } from '../support/haproxy.js';
import { freePort, start, type Child } from '../support/process.js';

t.setTimeout(600_000); // two instances and a balancer on a machine that may be busy

/** The shipped configuration with its first two instances only: the m3 ring server and guard left out. */
const twoInstances = (config: string) =>
  config
    .split('\n')
    .filter((line) => !/^\s+server m3 abns@/.test(line))
    .join('\n')
    .replace(/\nlisten m3\n[\s\S]*$/, '\n');

const until = async <T>(what: string, f: () => Promise<T | undefined>, ms = 120_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

t.test(
  'tool calls through the balancer act on the sandbox where it lives',
  { skip: existsSync(haproxy) ? false : `${haproxy} is not installed (.ci/run installs Debian's haproxy)` },
  async (t) => {
    const names = ['m1', 'm2'];
    const ports = await Promise.all(names.map(freePort));
    const balancerPort = await freePort();
    const url = (i: number) => `http://127.0.0.1:${ports[i]}`;
    const children: Child[] = await Promise.all(
      names.map((name, i) =>
        start(['--port', String(ports[i]), '--instance-name', name, '--peers', url(1 - i)], 120_000),
      ),
    );
    const config = balancerConfig(twoInstances(readFileSync(shippedConfig, 'utf8')));
    const lb = spawn(haproxy, ['-f', config.file], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...process.env,
        PM_BIND: `127.0.0.1:${balancerPort}`,
        PM_M1: `127.0.0.1:${ports[0]}`,
        PM_M2: `127.0.0.1:${ports[1]}`,
      },
    });
    t.teardown(() => {
      lb.kill('SIGKILL');
      for (const c of children) c.proc.kill('SIGKILL');
      config.remove();
    });
    const balancer = `http://127.0.0.1:${balancerPort}`;

    // A routing key the balancer sends to each instance, found by asking it for the health of sandboxes that do not
    // exist (that creates nothing; the instance's 404 names it).
    const keyTo = new Map<string, string>();
    await until('a routing key leading to each instance', async () => {
      for (let i = 0; i < 40 && keyTo.size < names.length; i++) {
        const res = await fetch(`${balancer}/__admin/health?sandbox=probe-${i}`);
        await res.arrayBuffer();
        const instance = res.headers.get('x-mock-instance');
        if (res.status === 404 && instance && !keyTo.has(instance)) keyTo.set(instance, `probe-${i}`);
      }
      return keyTo.size === names.length ? true : undefined;
    });

    /** An SDK client through the balancer whose requests carry `key`; the instances that answered it. */
    const clientVia = async (key: string) => {
      const answeredBy = new Set<string>();
      const transport = new StreamableHTTPClientTransport(new URL(`${balancer}/__admin/mcp`), {
        requestInit: { headers: { 'x-mock-sandbox': key } },
        fetch: async (input, init) => {
          const res = await fetch(input, init);
          const instance = res.headers.get('x-mock-instance');
          if (instance) answeredBy.add(instance);
          return res;
        },
      });
      const client = new Client({ name: 'portal-mock-cluster-test', version: '1.0.0' });
      await client.connect(transport);
      t.teardown(() => client.close());
      return { client, answeredBy };
    };

    // the sandbox lives on m1: made there directly
    const made = await fetch(`${url(0)}/__admin/sandboxes/mcp-shared`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    t.equal(made.status, 201, 'made on m1');

    const viaM1 = await clientVia(keyTo.get('m1')!);
    const viaM2 = await clientVia(keyTo.get('m2')!);

    const freeze = '2026-04-01T08:00:00.000Z';
    const clock = structuredOf<{ now: string }>(
      await viaM2.client.callTool({ name: 'set_clock', arguments: { sandbox: 'mcp-shared', freeze } }),
    );
    t.equal(clock.now, freeze, 'the clock set through m2');
    t.same([...viaM2.answeredBy], ['m2'], 'that client was answered by m2 only');

    const scenario = structuredOf<{ name: string }>(
      await viaM1.client.callTool({ name: 'set_scenario', arguments: { sandbox: 'mcp-shared', name: 'default' } }),
    );
    t.equal(scenario.name, 'default', 'a scenario set through m1');
    t.same([...viaM1.answeredBy], ['m1'], 'that client was answered by m1 only');

    const seen = (await (await fetch(`${url(0)}/__admin/sandboxes/mcp-shared`)).json()) as { now: string };
    t.equal(seen.now, freeze, 'the change made through m2 is on the owner, m1');
    const listed = structuredOf<{ sandboxes: { name: string; instance: string }[] }>(
      await viaM2.client.callTool({ name: 'list_sandboxes', arguments: {} }),
    );
    t.match(
      listed.sandboxes.filter((s) => s.name === 'mcp-shared'),
      [{ instance: 'm1' }],
      'listed once, on m1, from m2',
    );
    const m2Local = (await (await fetch(`${url(1)}/__admin/sandboxes?scope=local`)).json()) as { name: string }[];
    t.notOk(
      m2Local.some((s) => s.name === 'mcp-shared'),
      'no copy of it on m2',
    );
  },
);
