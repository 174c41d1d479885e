// The console in a real browser: Debian's chromium driven by playwright-core (no browser download;
// playwright gives every launch a fresh temporary profile).
import t from 'tap';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { needsChromium, newPage, sharedBrowser } from '../support/browser.js';
import { accounts, build, signIn } from '../helper.js';

// one chromium for the file's tests, each in browser contexts of its own
const oneBrowser = sharedBrowser(t);

t.test('switch a scenario by clicking; the API answers accordingly', needsChromium, async (t) => {
  const app = await build(t);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const session = await signIn(app, accounts.admin);
  await app.inject({
    method: 'POST',
    url: '/mobile/request-two-factor',
    payload: { email: accounts.twoFactor.email, password: 'demo1234' },
  });

  const browser = await oneBrowser();
  const page = await newPage(browser, { viewport: { width: 1200, height: 900 } });
  await page.goto(`${address}/__admin`);
  await page.waitForFunction(() => document.getElementById('active-scenario')?.textContent === 'default');
  t.equal(await page.locator('#qr-list img').count(), 6, 'a bind QR code for each demo account');
  await page.waitForSelector('#outbox .code');
  t.match(
    await page.locator('#outbox').innerText(),
    /olga\.smirnova@romashka\.test/,
    'the two-factor code shows in the outbox',
  );
  await page.waitForSelector('#requests tr');

  t.equal((await app.inject({ url: '/mobile/tenant-info', headers: session.headers })).statusCode, 200);
  await page.selectOption('#scenario-select', 'expired-session');
  await page.click('#apply-scenario');
  await page.waitForFunction(() => document.getElementById('active-scenario')?.textContent === 'expired-session');
  t.equal(app.sandboxes.get('default').scenario, 'expired-session');
  t.equal(
    (await app.inject({ url: '/mobile/tenant-info', headers: session.headers })).statusCode,
    401,
    "the app's next call is answered 401",
  );
  const again = await signIn(app, accounts.admin);
  t.equal(
    (await app.inject({ url: '/mobile/tenant-info', headers: again.headers })).statusCode,
    200,
    're-auth succeeds',
  );
  await page.screenshot({ path: join(tmpdir(), 'portal-mock-console.png') });
});

t.test(
  'a misspelt sandbox in the address is an error, not an empty sandbox; Open makes a new one',
  needsChromium,
  async (t) => {
    const app = await build(t);
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const browser = await oneBrowser();
    const page = await newPage(browser, { viewport: { width: 1200, height: 900 } });
    await page.goto(`${address}/__admin?sandbox=ghost2`);
    await page.waitForFunction(() => /does not exist/.test(document.getElementById('status')?.textContent ?? ''));
    t.match(await page.locator('#status').innerText(), /sandbox "ghost2" does not exist/, 'the console says so');
    t.equal(app.sandboxes.find('ghost2'), undefined, 'looking at it made nothing');

    await page.fill('#sandbox-new', 'tester-7');
    await page.click('#sandbox-open');
    await page.waitForFunction(() => document.getElementById('active-scenario')?.textContent === 'default');
    t.ok(app.sandboxes.find('tester-7'), 'Open made the sandbox');
    await page.waitForFunction(
      () => (document.getElementById('sandbox-select') as HTMLSelectElement | null)?.value === 'tester-7',
    );
    t.match(new URL(page.url()).search, '?sandbox=tester-7', 'and shows it');
  },
);

t.test(
  'with --admin-token the console asks for the token, says when it is wrong, then works',
  needsChromium,
  async (t) => {
    const app = await build(t, { adminToken: 'console-token' });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const browser = await oneBrowser();
    const page = await newPage(browser, { viewport: { width: 1200, height: 900 } });
    await page.goto(`${address}/__admin`);
    await page.waitForSelector('#token-form:not([hidden])');
    t.match(await page.locator('#token-message').innerText(), /--admin-token/, 'the page asks for the token');

    await page.fill('#token-input', 'not-the-token');
    await page.click('#token-submit');
    await page.waitForFunction(() => /wrong/.test(document.getElementById('token-message')?.textContent ?? ''));
    t.ok(await page.locator('#token-form').isVisible(), 'a wrong token: the page says so and asks again');

    await page.fill('#token-input', 'console-token');
    await page.click('#token-submit');
    await page.waitForFunction(() => document.getElementById('active-scenario')?.textContent === 'default');
    t.notOk(await page.locator('#token-form').isVisible(), 'the right token: the form goes away');
    t.match(await page.locator('#sandbox-select').innerText(), /default/, 'and the sandboxes show');
    // the QR images are fetched with the token header (no token in an address): each has a width once loaded
    await page.waitForFunction(() => {
      const imgs = Array.from(document.querySelectorAll<HTMLImageElement>('#qr-list img'));
      return imgs.length === 6 && imgs.every((i) => i.complete && i.naturalWidth > 0);
    });
    t.pass('the bind QR codes load');
    t.notOk(
      await page.evaluate(() => performance.getEntriesByType('resource').some((e) => e.name.includes('token='))),
      'no address the page loaded carries the token',
    );

    await page.reload();
    await page.waitForFunction(() => document.getElementById('active-scenario')?.textContent === 'default');
    t.notOk(await page.locator('#token-form').isVisible(), 'the tab keeps the token across a reload');
  },
);
