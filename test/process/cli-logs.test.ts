// What `npm start` prints, as a real process: by default the banner first (addresses, console, both API documents,
// the MCP endpoint, the demo accounts) and no line per request; with --log-format json, pino's JSON lines, two per
// request, for pipelines. Every wait is on output or the exit.
import t, { type Test } from 'tap';
import { accounts } from '../helper.js';
import { start } from '../support/process.js';

const requests = 9;

/** `requests` calls a QA walkthrough makes: admin reads and portal calls. */
async function walk(t: Test, base: string): Promise<void> {
  for (let i = 0; i < requests; i++) {
    const path = i % 2 === 0 ? '/__admin/health' : '/mobile/oauth-list';
    const res = await fetch(`${base}${path}`, { headers: { 'x-service-tenant-id': accounts.admin.tenantId } });
    await res.arrayBuffer();
    t.equal(res.status, 200, path);
  }
}

t.test('default: the banner is the first output, and no request adds a line', async (t) => {
  const child = await start(['--log-level', 'info']);
  t.teardown(() => child.proc.kill('SIGKILL'));
  const whole = /portal-mock is running\n[\s\S]*?\n\n/;
  await child.waitForOutput((out) => whole.test(out));
  const banner = whole.exec(child.out())![0];
  t.equal(child.out().indexOf(banner), 1, 'the banner is the first output (after its blank line)');
  for (const shown of [
    /console: +http:\/\/localhost:\d+\/__admin /,
    /http:\/\/localhost:\d+\/docs \(portal\)/,
    /http:\/\/localhost:\d+\/__admin\/docs \(control plane\)/,
    /MCP endpoint: +http:\/\/localhost:\d+\/__admin\/mcp/,
    new RegExp(`${accounts.admin.email.replace('.', '\\.')} / demo1234`),
  ])
    t.match(banner, shown);
  await walk(t, child.base);
  // the stop is logged after every request was answered: the lines before it are all there is
  child.proc.kill('SIGTERM');
  t.match(await child.exited, { code: 0 });
  const after = child.out().slice(child.out().indexOf(banner) + banner.length);
  const lines = after.split('\n').filter((line) => line.trim() !== '');
  t.equal(lines.length, 1, `one line after the banner for ${requests} requests: ${JSON.stringify(lines)}`);
  t.match(lines[0], /INFO.*stopping/, 'the stop, as a readable line');
  t.notMatch(child.out(), /^\{/m, 'no JSON line');
  t.notMatch(child.out(), /Server listening|incoming request|request completed/);
});

t.test('--log-format json: JSON lines, two per request', async (t) => {
  const child = await start(['--log-level', 'info', '--log-format', 'json']);
  t.teardown(() => child.proc.kill('SIGKILL'));
  await walk(t, child.base);
  const completed = () => (child.out().match(/"msg":"request completed"/g) ?? []).length;
  await child.waitForOutput(() => completed() >= requests);
  const json = child
    .out()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string });
  t.equal(json.filter((l) => l.msg === 'incoming request').length, requests, 'incoming request per request');
  t.equal(json.filter((l) => l.msg === 'request completed').length, requests, 'request completed per request');
  t.ok(
    json.some((l) => l.msg.startsWith('Server listening at')),
    'the listen line, as before',
  );
});
