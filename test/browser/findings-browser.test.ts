// The console's Findings panel in a real browser (Debian's chromium driven by playwright-core, as
// test/browser/console-browser.test.ts): a finding happens, the panel shows it, its link opens the operation in /docs.
import t from 'tap';
import { launchBrowser, needsChromium } from '../support/browser.js';
import { build, signIn } from '../helper.js';

t.test('a finding shows in the console and links to its operation', needsChromium, async (t) => {
  const app = await build(t);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const s = await signIn(app, undefined, { sandbox: 'app' });

  const browser = await launchBrowser(t);
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  await page.goto(`${address}/__admin?sandbox=app`);
  await page.waitForFunction(() => /none/.test(document.getElementById('findings')?.textContent ?? ''));
  t.equal(await page.locator('#findings a').count(), 0, 'control: no finding yet');

  // the app sends its selection as a form: the real portal would store an empty one
  const res = await fetch(`${address}/sandbox/app/user-list-cache/set-user-list`, {
    method: 'POST',
    headers: { ...s.headers, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'key=team&usersId=1',
  });
  t.equal(res.headers.get('x-mock-finding'), 'set-user-list-not-json');

  const row = page.locator('#findings tr', { hasText: 'set-user-list-not-json' });
  await row.waitFor({ timeout: 15_000 });
  const text = await row.innerText();
  t.match(text, /error/);
  t.match(text, /POST \/user-list-cache\/set-user-list/);
  t.match(text, /EMPTY selection/);
  const link = row.locator('a');
  t.equal(await link.getAttribute('href'), '/docs#/user-list-cache/userListCacheSet');

  // Swagger UI's deep link: the operation opens expanded
  await page.goto(`${address}${await link.getAttribute('href')}`);
  const op = page.locator('#operations-user-list-cache-userListCacheSet');
  await op.waitFor({ timeout: 30_000 });
  await page.waitForFunction(
    () => document.querySelector('#operations-user-list-cache-userListCacheSet')?.classList.contains('is-open'),
    undefined,
    { timeout: 30_000 },
  );
  t.pass('the docs link opens the operation');

  await page.goto(`${address}/__admin?sandbox=default`);
  await page.waitForFunction(() => /none/.test(document.getElementById('findings')?.textContent ?? ''));
  t.pass("another sandbox's panel does not show it");
});
