// A ticket page in a real browser at a phone's width: Debian's chromium driven by playwright-core.
import t from 'tap';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { launchBrowser, needsChromium, newContext } from '../support/browser.js';
import { accounts, build, json, signIn } from '../helper.js';

const artifacts = resolve(import.meta.dirname, '..', '..', 'test-artifacts');

t.test('a ticket page renders at 375 px without horizontal scroll', needsChromium, async (t) => {
  const app = await build(t);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const s = await signIn(app, accounts.admin);
  const tenant = app.sandboxes.get('default').store.tenant(s.tenantId)!;
  const process = tenant.wfProcesses.find(
    (p) =>
      !p.isHidden &&
      p.visibleGroupIds.length === 0 &&
      p.fields.some((f) => f.type === 'text' || f.type === 'textarea') &&
      !p.fields.some((f) => f.type === 'file' && f.required),
  )!;
  const fieldValues: Record<string, string> = {};
  const long = `Очень-длинное-значение-без-пробелов-${'x'.repeat(120)} <script>alert(1)</script>`;
  for (const f of process.fields) {
    const v =
      f.type === 'text' || f.type === 'textarea'
        ? long
        : f.type === 'select'
          ? f.values[0]
          : f.type === 'date'
            ? '2026-04-01'
            : f.type === 'number'
              ? '1'
              : f.type === 'checkbox'
                ? 'true'
                : undefined;
    if (v !== undefined) fieldValues[f.id] = v;
  }
  const started = await app.inject({
    method: 'POST',
    url: `/workflow/start/${process.id}`,
    headers: s.headers,
    payload: { fieldValues },
  });
  t.equal(started.statusCode, 201);
  // let it move to its second stage so the page shows done, current and pending stages
  app.sandboxes.get('default').clock.state = {
    mode: 'frozen',
    at: new Date(Date.parse('2026-03-02T09:00:00Z') + process.stageMinutes * 60_000 + 1000).toISOString(),
  };
  const list = json(await app.inject({ url: '/workflow-ticket/', headers: s.headers }));
  const url = new URL(list.data.find((x: { id: string }) => x.id === json(started).id).url as string);

  const browser = await launchBrowser(t);
  const context = await newContext(browser, {
    viewport: { width: 375, height: 812 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  });
  // the session headers go with the page request (a web view adds them); images are public
  await context.setExtraHTTPHeaders(s.headers);
  const page = await context.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const res = await page.goto(`${address}${url.pathname}`, { waitUntil: 'load' });
  t.equal(res?.status(), 200);
  t.equal(await page.title(), process.name);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  t.ok(width <= 375, `no horizontal scroll: scrollWidth ${width} <= 375`);
  t.equal(await page.locator('.stage').count(), process.stages.length, 'every stage shows');
  t.match(await page.locator('main').innerText(), '<script>alert(1)</script>', 'the field value shows as text');
  t.same(dialogs, [], 'no script ran');
  const broken = await page.evaluate(() =>
    Array.from(document.images)
      .filter((i) => !i.complete || i.naturalWidth === 0)
      .map((i) => i.src),
  );
  t.same(broken, [], 'every image loads');
  mkdirSync(artifacts, { recursive: true });
  const shot = resolve(artifacts, 'ticket-375.png');
  await page.screenshot({ path: shot, fullPage: true });
  t.comment(`screenshot: ${shot}`);
  console.log(`screenshot: ${shot}`);
});
