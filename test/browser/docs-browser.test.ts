// Swagger UI in a real browser (Debian's chromium driven by playwright-core, as in
// test/browser/console-browser.test.ts): Authorize once with the session of a real sign-in, then "Try it out" on GET
// /dashboard answers 200, because every operation declares the security schemes it accepts.
import t from 'tap';
import { needsChromium, newPage, sharedBrowser } from '../support/browser.js';
import { accounts, build, signIn } from '../helper.js';

// one chromium for the file's tests, each in browser contexts of its own
const oneBrowser = sharedBrowser(t);

t.test('Swagger UI: Authorize with a session, Try it out on /dashboard answers 200', needsChromium, async (t) => {
  const app = await build(t);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const session = await signIn(app, accounts.admin);
  const browser = await oneBrowser();
  const page = await newPage(browser, { viewport: { width: 1280, height: 900 } });
  // the operation's deep link: Swagger UI expands it and scrolls to it
  await page.goto(`${address}/docs/#/dashboard/dashboard`);
  await page.waitForSelector('#operations-dashboard-dashboard .try-out__btn');

  const op = page.locator('#operations-dashboard-dashboard');
  // one Authorize dialog (the operation's lock opens it with the schemes the operation accepts): the four session
  // headers, each in its scheme's form
  await op.locator('.authorization__btn').first().click();
  for (const name of ['x-service-tenant-id', 'x-service-device-id', 'x-service-session-id', 'x-service-session-code']) {
    const form = page.locator('.modal-ux .auth-container').filter({ hasText: `Name: ${name}` });
    await form.locator('input[type=text], input[type=password]').fill(session.headers[name]!);
    await form.locator('button.authorize').click();
  }
  await page.click('.modal-ux .close-modal');
  await op.locator('.try-out__btn').click();
  await op.locator('tr[data-param-name="widgets"] input').fill('myTeam,updNews');
  await op.locator('button.execute').click();
  const status = op.locator('.live-responses-table .response .response-col_status');
  await status.first().waitFor();
  t.equal((await status.first().innerText()).trim(), '200', 'the response shown is 200');
  t.match(await op.locator('.live-responses-table').innerText(), /"myTeam"/, 'with the widgets asked for');
  const journal = app.sandboxes.get('default').journal.list({ path: '/dashboard', limit: 1 })[0];
  t.equal(journal?.status, 200, "the mock answered the browser's request 200");
});

t.test(
  "the console links the control plane's own Swagger UI page, which lists its routes alone",
  needsChromium,
  async (t) => {
    const app = await build(t);
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const browser = await oneBrowser();
    const page = await newPage(browser, { viewport: { width: 1280, height: 900 } });
    await page.goto(`${address}/__admin`);
    const [docs] = await Promise.all([
      page.context().waitForEvent('page'),
      page.click('#api-docs a[href="/__admin/docs"]'),
    ]);
    // the page shows the document it loaded, and that is the control plane's, all of it tagged mock
    await docs.waitForSelector('.info .title');
    t.match(await docs.locator('.info').innerText(), /\/__admin\/docs\/json/, 'the page loads /__admin/docs/json');
    const doc = (await (await fetch(`${address}/__admin/docs/json`)).json()) as {
      paths: Record<string, Record<string, { tags?: string[] }>>;
    };
    const tags = new Set(
      Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((op) => op.tags ?? [])),
    );
    t.same([...tags].sort(), ['mock', 'wiremock'], "the page shows the control plane alone (WireMock's API with it)");
    t.match(
      await docs.locator('.info .title').innerText(),
      /portal-mock control plane/,
      "the control plane's document",
    );
    // Swagger UI renders a long list as it is scrolled: the operation's deep link scrolls to it
    await docs.goto(`${address}/__admin/docs/#/mock/mockSandboxCreate`);
    await docs.waitForSelector('#operations-mock-mockSandboxCreate');
    const portal = await newPage(browser);
    await portal.goto(`${address}/docs`);
    const portalDoc = (await (await fetch(`${address}/docs/json`)).json()) as { paths: object };
    t.same(
      Object.keys(portalDoc.paths).filter((p) => p.startsWith('/__admin')),
      [],
      "no control plane operation in the portal's page",
    );
    await portal.waitForSelector('#operations-mobile-mobileAuth');
  },
);
