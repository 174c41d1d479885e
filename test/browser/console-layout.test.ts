// The console as a newcomer sees it at 1280 px: the scenario picker shows the active scenario (so Apply does not
// silently switch back), the outbox's code column is not clipped, and the first paint shows loading states rather
// than empty cards. Debian's chromium driven by playwright-core; the screenshot is kept in the temporary directory.
import t from 'tap';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser, needsChromium, newPage } from '../support/browser.js';
import { accounts, build, signIn } from '../helper.js';

t.test('the first paint has loading states in every card that fills later', async (t) => {
  const app = await build(t);
  const html = (await app.inject({ url: '/__admin' })).body;
  for (const id of ['qr-list', 'outbox', 'requests', 'scenario-select']) {
    t.match(
      html,
      new RegExp(`id="${id}"[^>]*>(\\s*<[^>]*>)*[^<]*loading`),
      `#${id} shows loading… until the data arrives`,
    );
  }
});

t.test('at 1280 px: the picker shows the active scenario; the outbox code is not clipped', needsChromium, async (t) => {
  const app = await build(t, { scenario: 'wallet-disabled' });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  await app.inject({
    method: 'POST',
    url: '/mobile/request-two-factor',
    payload: { email: accounts.twoFactor.email, password: 'demo1234' },
  });
  const s = await signIn(app, accounts.admin);
  await app.inject({
    method: 'POST',
    url: '/mobile/save-push-token',
    headers: s.headers,
    payload: { token: 'fcm:a-push-token-long-enough-to-matter-0123456789', deviceId: s.deviceId },
  });
  await app.inject({
    method: 'POST',
    url: '/__admin/notifications',
    payload: {
      email: accounts.admin.email,
      title: 'A push with a long title that makes the payload column wide',
      body: 'and a body that is longer still, as real pushes are',
      url: 'https://portal.example/some/long/path/to/an/article?id=1234567890',
    },
  });

  const browser = await launchBrowser(t);
  const page = await newPage(browser, { viewport: { width: 1280, height: 900 } });
  await page.goto(`${address}/__admin`);
  await page.waitForFunction(() => document.getElementById('active-scenario')?.textContent === 'wallet-disabled');
  t.equal(
    await page.locator('#scenario-select').inputValue(),
    'wallet-disabled',
    'the picker shows the scenario the server started with',
  );

  await page.waitForSelector('#outbox .code');
  t.match(await page.locator('#outbox').innerText(), /push/, 'a push with its payload is listed too');
  const clip = await page.evaluate(() => {
    const cell = document.querySelector('#outbox .code')!.closest('td')!;
    const section = cell.closest('section')!;
    const [c, s] = [cell.getBoundingClientRect(), section.getBoundingClientRect()];
    return {
      cell: [cell.scrollWidth, cell.clientWidth],
      section: [section.scrollWidth, section.clientWidth],
      right: [c.right, s.right],
    };
  });
  t.ok(clip.cell[0]! <= clip.cell[1]!, `the code cell shows all of its content: ${JSON.stringify(clip)}`);
  t.ok(clip.section[0]! <= clip.section[1]!, 'the outbox card does not scroll sideways');
  t.ok(clip.right[0]! <= clip.right[1]!, 'the code cell ends inside its card');
  await page.screenshot({ path: join(tmpdir(), 'portal-mock-console-1280.png'), fullPage: true });

  t.equal(
    (await app.inject({ method: 'PUT', url: '/__admin/scenario', payload: { name: 'hold-tickets' } })).statusCode,
    200,
  );
  await page.waitForFunction(() => document.getElementById('active-scenario')?.textContent === 'hold-tickets');
  t.equal(
    await page.locator('#scenario-select').inputValue(),
    'hold-tickets',
    'after PUT /__admin/scenario the picker follows',
  );
  await page.selectOption('#scenario-select', 'flaky');
  // a refresh passes: it writes #active-scenario, then (in the same task) would reset the picker; the observer
  // hears of that write only after the task, so the choice below has met a whole refresh
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        new MutationObserver((_records, observer) => {
          observer.disconnect();
          resolve();
        }).observe(document.getElementById('active-scenario')!, {
          childList: true,
          characterData: true,
          subtree: true,
        });
      }),
  );
  t.equal(await page.locator('#scenario-select').inputValue(), 'flaky', 'a choice not yet applied stays');
});
