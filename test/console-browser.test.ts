// The console in a real browser: Debian's chromium driven by playwright-core (no browser download;
// playwright gives every launch a fresh temporary profile).
import t from 'tap';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser, needsChromium, newPage } from './support/browser.js';
import { accounts, build, signIn } from './helper.js';

t.test('switch a scenario by clicking; the API answers accordingly', needsChromium, async (t) => {
  const app = await build(t);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const session = await signIn(app, accounts.admin);
  await app.inject({
    method: 'POST',
    url: '/mobile/request-two-factor',
    payload: { email: accounts.twoFactor.email, password: 'demo1234' },
  });

  const browser = await launchBrowser(t);
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
