// Issue 46, finding 13, the smaller items: GET / is a page of links (JSON when asked for JSON, below a forwarded
// prefix); --help says where the banner goes; docs/admin.md describes today's console create and DELETE
// /__admin/sandboxes?prefix=; users/block with one user's e-mail and another's id is refused naming both; an unknown
// --scenario among hundreds names the closest few and a count. (createdAt over a restart: store-truncation.test.ts.)
import t from 'tap';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.js';
import { usage } from '../../src/config.js';
import { startMock } from '../../src/start-mock.js';
import { accounts } from '../helper.js';

t.test('GET / links the API document, the console and the demo accounts', async (t) => {
  const mock = await startMock({ logger: false, now: '2026-03-02T09:00:00.000Z' });
  t.teardown(() => mock.close());
  const page = await fetch(`${mock.url}/`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
  t.equal(page.status, 200, 'not a 404');
  t.match(page.headers.get('content-type'), /^text\/html/);
  const html = await page.text();
  for (const href of ['/docs', '/__admin', '/__admin/fixtures']) t.match(html, `href="${href}"`, href);

  const json = await fetch(`${mock.url}/`, { headers: { accept: 'application/json' } });
  t.match(json.headers.get('content-type'), /^application\/json/);
  t.match(await json.json(), {
    name: 'portal-mock',
    links: { docs: '/docs', console: '/__admin', fixtures: '/__admin/fixtures' },
  });

  const behind = await fetch(`${mock.url}/`, { headers: { accept: 'application/json', 'x-forwarded-prefix': '/qa/' } });
  t.match(await behind.json(), {
    links: { docs: '/qa/docs', console: '/qa/__admin', fixtures: '/qa/__admin/fixtures' },
  });
  const behindPage = await (await fetch(`${mock.url}/`, { headers: { 'x-forwarded-prefix': '/qa' } })).text();
  t.match(behindPage, 'href="/qa/__admin/fixtures"', 'the page too');
});

t.test('--help says the banner goes to a redirected log too', async (t) => {
  const text = usage();
  t.notMatch(text, /only printed to a terminal/);
  t.match(text, /--no-banner.*a redirected log too/);
});

t.test('docs/admin.md: the console create fills fields; DELETE /__admin/sandboxes?prefix= is listed', async (t) => {
  const doc = readFileSync(new URL('../../docs/admin.md', import.meta.url), 'utf8');
  t.notMatch(doc, /a create needs a whole record/);
  t.match(doc, /\| DELETE \| \/__admin\/sandboxes \| `\?prefix=`/);
});

t.test("users/block with one user's e-mail and another's userId is a 400 naming both; nobody is blocked", async (t) => {
  const mock = await startMock({ logger: false, now: '2026-03-02T09:00:00.000Z' });
  t.teardown(() => mock.close());
  const block = (body: unknown) =>
    fetch(`${mock.url}/__admin/users/block`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const mixed = await block({ email: accounts.admin.email, userId: accounts.noRights.userId });
  t.equal(mixed.status, 400);
  const body = (await mixed.json()) as { code: string; message: string };
  t.equal(body.code, 'VALIDATION_FAILED');
  t.match(body.message, accounts.admin.email);
  t.match(body.message, accounts.noRights.userId);
  for (const id of [accounts.admin.userId, accounts.noRights.userId]) {
    const user = await mock.admin.data.users.get(id);
    t.not(user.state, 'blocked', `${id} is not blocked`);
  }
  const same = await block({ email: accounts.admin.email, userId: accounts.admin.userId });
  t.equal(same.status, 200, 'both naming one user: that user');
});

t.test('an unknown --scenario among 700 definitions names the closest few and a count', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pm-700-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (let i = 0; i < 700; i++) {
    const name = `team-scenario-${String(i).padStart(3, '0')}`;
    writeFileSync(join(dir, `${name}.json`), JSON.stringify({ name, description: `scenario ${i}` }));
  }
  const err = (await buildApp({ scenarios: [dir], scenario: 'team-scenario-42' }).catch((e: unknown) => e)) as Error;
  t.ok(err instanceof Error, 'the start fails');
  t.match(err.message, /unknown scenario "team-scenario-42"; closest: team-scenario-042, /);
  t.match(err.message, /\(715 known: GET \/__admin\/scenarios lists them\)/);
  t.ok(err.message.length < 400, `a short message: ${err.message.length} characters`);
  await t.rejects(buildApp({ scenario: 'nope' }), { message: /unknown scenario "nope"; known: .*two-factor-required/ });
});
