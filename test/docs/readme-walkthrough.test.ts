// The README's sign-in walkthrough, run as written: its shell block under bash (errexit, pipefail) against a real
// server on port 0, with only MOCK set to that server's address, as a reader would paste it.
import t from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { build, tenants } from '../helper.js';
import { withoutTapHooks } from '../support/process.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const block = /<!-- walkthrough[^\n]*\n```sh\n([\s\S]*?)```/.exec(readme)?.[1];
const hasCurl = spawnSync('curl', ['--version']).status === 0;

t.test(
  'the curl walkthrough signs in with a two-factor code and gets the dashboard',
  { skip: hasCurl ? false : 'curl is not installed' },
  async (t) => {
    t.ok(block, 'README.md has the walkthrough block');
    if (!block) return;
    for (const step of [
      '/mobile/request-two-factor',
      '/__admin/outbox',
      '/mobile/manual-bind',
      '/mobile/auth',
      '/dashboard?widgets=',
    ])
      t.match(block, step, `it shows ${step}`);
    for (const header of [
      'x-service-tenant-id',
      'x-service-device-id',
      'x-service-session-id',
      'x-service-session-code',
    ])
      t.match(block, header);
    const app = await build(t);
    const mock = await app.listen({ port: 0, host: '127.0.0.1' });
    // spawnSync would block the event loop this server answers on: run bash asynchronously
    const run = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const bash = spawn(...withoutTapHooks('bash', ['-eo', 'pipefail', '-c', block]), {
        env: { ...process.env, MOCK: mock },
      });
      let out = '';
      let err = '';
      bash.stdout.on('data', (d: Buffer) => {
        out += d.toString();
      });
      bash.stderr.on('data', (d: Buffer) => {
        err += d.toString();
      });
      bash.on('close', (code) => resolve({ code, out, err }));
    });
    t.equal(run.code, 0, `the block runs without an error: ${run.err.slice(-800)}`);
    const [codeRequired, dashboard] = run.out.trim().split('\n');
    t.equal(codeRequired, 'true', 'step 1 says a code is required');
    const answer = JSON.parse(dashboard ?? 'null') as { widgets: Record<string, unknown>; notificationsBadge: number };
    t.same(
      Object.keys(answer.widgets).sort(),
      ['myTeam', 'updBirthday', 'updNews'],
      'the dashboard answers the asked widgets (curl -f: status 200)',
    );
    t.type(answer.notificationsBadge, 'number', 'and the badge');
    const journal = app.sandboxes
      .get('default')
      .journal.list({})
      .map((e) => `${e.operationId}:${e.status}`);
    t.ok(journal.includes('dashboard:200'), `the mock saw the dashboard call answered 200: ${journal.join(', ')}`);

    const noCode = await fetch(`${mock}/dashboard?widgets=myTeam`, {
      headers: {
        'x-service-tenant-id': tenants.romashka,
        'x-service-device-id': 'my-test-device-1',
        'x-service-session-id': 'x',
      },
    });
    t.equal(noCode.status, 401, 'a missing header answers 401');
    t.match(
      await noCode.json(),
      { statusCode: 401, code: String, message: /x-service-session-code|session/i },
      'naming what is wrong',
    );
  },
);
