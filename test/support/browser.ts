// Debian's chromium driven by playwright-core (no browser download; every launch gets a fresh temporary profile).
// The flags keep it quiet on a machine with a closed network.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { waitLimitMs } from './wait.js';

const executablePath = '/usr/bin/chromium';

/** The tap option that skips a browser test where chromium is missing (.ci/run installs it). */
export const needsChromium = {
  skip: existsSync(executablePath) ? false : 'chromium is not installed (.ci/run installs it)',
};

/** A headless chromium, closed when the test ends. */
export async function launchBrowser(t: { teardown: (fn: () => unknown) => void }): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    timeout: waitLimitMs,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  t.teardown(() => browser.close());
  return browser;
}

/**
 * One headless chromium for the tests of a file, launched on first use and closed after the file's last test: each
 * test opens its pages in contexts of its own (newPage, newContext), which share no cookies or storage, and a
 * launch is the costliest step of a browser test.
 * @example const oneBrowser = sharedBrowser(t); t.test('x', async (t) => { const browser = await oneBrowser(); })
 */
export function sharedBrowser(file: { teardown: (fn: () => unknown) => void }): () => Promise<Browser> {
  let browser: Promise<Browser> | undefined;
  return () => {
    browser ??= launchBrowser(file);
    return browser;
  };
}

/**
 * A browser context whose waits (selectors, functions, navigations) may last as long as a loaded machine needs:
 * playwright's default of 30 s is a speed check there.
 */
export async function newContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  context.setDefaultTimeout(waitLimitMs);
  return context;
}

/** A page in a context of its own (as browser.newPage makes it), with the waits of newContext. */
export async function newPage(browser: Browser, options: BrowserContextOptions = {}): Promise<Page> {
  return (await newContext(browser, options)).newPage();
}
