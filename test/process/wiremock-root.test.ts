// --wiremock DIR as a user meets it: the built CLI in its own process. A bad mapping file stops the start (exit 2,
// one line naming the flag, the file and the JSON pointer); a good root gives every new sandbox its mappings, followed
// by those of the sandbox's scenario (seen in what --data writes); and, in the app itself, `app.wiremockRoot`.
import t from 'tap';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from '../../src/app.js';
import { start, startFails } from '../support/process.js';
import { tempDir } from '../support/temp-dir.js';

t.setTimeout(10 * 60_000);

const put = (root: string, path: string, value: unknown) => {
  const file = join(root, path);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return file;
};
const helloId = '0b8d2a4e-6f3c-4c1a-9e55-2f0e6d9b7a11';

/** A root as WireMock's --root-dir reads it: two mapping files (both shapes), and a body file. */
function wiremockRoot(t: Parameters<typeof tempDir>[0]): string {
  const root = tempDir(t, 'pm-wm-root-');
  put(root, 'mappings/hello.json', {
    id: helloId,
    request: { method: 'GET', url: '/hello' },
    response: { status: 200, bodyFileName: 'hello.json', headers: { 'Content-Type': 'application/json' } },
  });
  put(root, 'mappings/more/set.json', {
    mappings: [
      { request: { method: 'GET', urlPath: '/ping' }, response: { status: 200, body: 'pong' } },
      { request: { method: 'POST', url: '/orders' }, response: { status: 201, jsonBody: { id: 7 } } },
    ],
  });
  put(root, '__files/hello.json', '{"hello":"from __files"}');
  return root;
}

/** A scenario directory with one scenario that carries a WireMock mapping. */
function scenarioDir(t: Parameters<typeof tempDir>[0]): string {
  const dir = tempDir(t, 'pm-wm-scenarios-');
  put(dir, 'with-stubs.json', {
    name: 'with-stubs',
    description: 'a scenario with a WireMock mapping of its own',
    wiremock: {
      mappings: [{ request: { method: 'GET', url: '/from-scenario' }, response: { status: 418, body: 'teapot' } }],
    },
  });
  return dir;
}

t.test('a bad mapping file: exit 2, one line naming --wiremock, the file and the JSON pointer', async (t) => {
  const root = wiremockRoot(t);
  const bad = put(root, 'mappings/more/z-bad.json', {
    mappings: [
      { request: { url: '/fine' }, response: { status: 200 } },
      { request: { url: '/x', bodyPatterns: [{ matchesXPath: '/a' }] }, response: { status: 200 } },
    ],
  });
  const failed = await startFails(['--wiremock', root]);
  t.equal(failed.code, 2, 'exit 2');
  const lines = failed.out.trim().split('\n');
  t.equal(lines.length, 1, `one line: ${failed.out}`);
  t.match(lines[0], `portal-mock: --wiremock ${root}: ${bad}: at /mappings/1/request/bodyPatterns/0/matchesXPath: `);
  t.match(lines[0], /Unsupported by portal-mock/);
  t.notMatch(failed.out, /\n\s+at /, 'no stack');

  const notJson = tempDir(t, 'pm-wm-root-');
  const file = put(notJson, 'mappings/a.json', '{"request": {');
  const syntax = await startFails(['--wiremock', notJson]);
  t.equal(syntax.code, 2);
  t.match(syntax.out, `--wiremock ${notJson}: ${file}: not valid JSON`);

  const missing = await startFails(['--wiremock', join(notJson, 'nope')]);
  t.equal(missing.code, 2);
  t.match(missing.out, `--wiremock ${join(notJson, 'nope')}: does not exist`);

  const few = await startFails(['--wiremock', wiremockRoot(t), '--wiremock-max-mappings', '2']);
  t.equal(few.code, 2, 'more mappings than a sandbox holds: exit 2');
  t.match(few.out, /set\.json: with this file, a sandbox holds at most 2 stub mappings \(--wiremock-max-mappings\)/);
});

t.test('a scenario file with a bad mapping: exit 2 naming --scenarios, the file and the pointer', async (t) => {
  const dir = tempDir(t, 'pm-wm-scenarios-');
  const file = put(dir, 'bad-stubs.json', {
    name: 'bad-stubs',
    description: 'x',
    wiremock: { mappings: [{ request: { url: '/a' }, response: { status: 200, transformers: ['other'] } }] },
  });
  const failed = await startFails(['--scenarios', dir]);
  t.equal(failed.code, 2);
  t.match(failed.out, `portal-mock: --scenarios ${dir}: ${file}: at /wiremock/mappings/0/response/transformers/0: `);
});

t.test("every new sandbox starts with the root mappings, then its scenario's (as --data writes them)", async (t) => {
  const root = wiremockRoot(t);
  const data = tempDir(t, 'pm-wm-data-');
  const args = ['--wiremock', root, '--scenarios', scenarioDir(t), '--scenario', 'with-stubs', '--data', data];
  const child = await start(args);
  try {
    const made = await fetch(`${child.base}/__admin/sandboxes/alice`, { method: 'PUT' });
    t.equal(made.status, 201);
    for (const name of ['default', 'alice']) {
      // the sandbox's own mappings are in its settings, the last ones its log wrote
      const lines = readFileSync(join(data, `${name}.log`), 'utf8')
        .trim()
        .split('\n');
      const settings = lines
        .map((l) => JSON.parse(l) as { settings?: { wiremock?: { mappings: Array<{ request: { url?: string } }> } } })
        .findLast((l) => l.settings?.wiremock)?.settings?.wiremock;
      t.same(
        settings?.mappings.map((m) => m.request.url ?? 'urlPath'),
        ['/hello', 'urlPath', '/orders', '/from-scenario'],
        `${name}: --wiremock's in file order, then the scenario's`,
      );
    }
  } finally {
    child.proc.kill('SIGTERM');
    await child.exited;
  }
});

t.test('a sandbox answers the root mappings and serves __files', async (t) => {
  const child = await start(['--wiremock', wiremockRoot(t)]);
  try {
    const listed = await fetch(`${child.base}/sandbox/bob/wiremock/__admin/mappings`);
    t.equal(listed.status, 200);
    const body = (await listed.json()) as { mappings?: Array<{ id: string }>; meta?: { total: number } };
    t.equal(body.meta?.total, 3);
    t.ok(body.mappings?.some((m) => m.id === helloId));
    const hello = await fetch(`${child.base}/sandbox/bob/wiremock/hello`);
    t.equal(hello.status, 200);
    t.equal(await hello.text(), '{"hello":"from __files"}');
    const ping = await fetch(`${child.base}/sandbox/bob/wiremock/ping?x=1`);
    t.equal(await ping.text(), 'pong');
  } finally {
    child.proc.kill('SIGTERM');
    await child.exited;
  }
});

t.test("in the app: app.wiremockRoot, a new sandbox's mappings, a reset back to them", async (t) => {
  const root = wiremockRoot(t);
  const app = await buildApp({ wiremock: root, scenarios: [scenarioDir(t)] });
  t.teardown(() => app.close());
  const { stubs, readFile } = app.wiremockRoot;
  t.same(
    stubs.mappings.map((m) => m.request.url ?? m.request.urlPath),
    ['/hello', '/ping', '/orders'],
    'hello.json, then more/set.json in its order',
  );
  t.equal(stubs.mappings[0]!.id, helloId);
  t.equal(readFile('hello.json')?.toString(), '{"hello":"from __files"}');
  t.equal(readFile('../mappings/hello.json'), undefined, 'never outside __files');
  t.equal(app.sandboxes.get('carol').wiremock, stubs, 'a new sandbox starts with them');

  const set = await app.inject({
    method: 'PUT',
    url: '/__admin/scenario?sandbox=carol',
    payload: { name: 'with-stubs' },
  });
  t.equal(set.statusCode, 200);
  const carol = app.sandboxes.get('carol');
  t.same(
    carol.wiremock.mappings.map((m) => m.request.url ?? m.request.urlPath),
    ['/hello', '/ping', '/orders', '/from-scenario'],
    "set to a scenario: --wiremock's, then the scenario's",
  );
  const reset = await app.inject({ method: 'POST', url: '/__admin/reset?sandbox=carol' });
  t.equal(reset.statusCode, 200);
  t.equal(app.sandboxes.get('carol').wiremock, stubs, "a reset: back to the start scenario, so --wiremock's alone");
});
