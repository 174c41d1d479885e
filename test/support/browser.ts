// Debian's chromium driven by playwright-core (no browser download; every launch gets a fresh temporary profile).
// The flags keep it quiet on a machine with a closed network.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const executablePath = '/usr/bin/chromium';

/** The tap option that skips a browser test where chromium is missing (.ci/run installs it). */
export const needsChromium = { skip: existsSync(executablePath) ? false : 'chromium is not installed (.ci/run installs it)' };

/** A headless chromium, closed when the test ends. */
export async function launchBrowser(t: { teardown: (fn: () => unknown) => void }): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  t.teardown(() => browser.close());
  return browser;
}
