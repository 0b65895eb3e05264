/**
 * The real browsers of the browser tests: Debian's `chromium` and `firefox-esr` (which `.ci/run`
 * installs), both driven headless by puppeteer-core (Chromium over the DevTools protocol, Firefox over
 * WebDriver BiDi, no geckodriver), so one test body runs in each.
 */
import { existsSync } from 'node:fs';
import type { Browser } from 'puppeteer-core';
import { describe, it } from 'vitest';

/** The browsers, each where its Debian package puts it. */
export const BROWSERS = {
  chromium: '/usr/bin/chromium',
  firefox: '/usr/bin/firefox-esr',
} as const;

/** `chromium` or `firefox`. */
export type BrowserName = keyof typeof BROWSERS;

/** How the tests name each browser: `headless Chromium`, `headless Firefox ESR`. */
export const BROWSER_LABELS: Record<BrowserName, string> = {
  chromium: 'headless Chromium',
  firefox: 'headless Firefox ESR',
};

/** What to do about one browser: run; or skip, saying why; or (under `CI=true`, which installs it) fail. */
export interface BrowserRequirement {
  run: boolean;
  /** Without the browser on a developer machine: the one line that says the tests are skipped and why. */
  skipNotice?: string;
  /** Without the browser under `CI=true`: why that is a failure. */
  failure?: string;
}

/**
 * The house rule for a browser: installed, its tests run; missing, they are skipped with a notice, except
 * under `CI=true` (`1` also counts), where a missing browser is a failure.
 *
 * @example
 * ```ts
 * const need = browserRequirement('firefox');
 * if (need.failure) throw new Error(need.failure);
 * if (need.skipNotice) console.log(need.skipNotice);
 * ```
 */
export function browserRequirement(
  name: BrowserName,
  env: Record<string, string | undefined> = process.env,
): BrowserRequirement {
  const path = BROWSERS[name];
  if (existsSync(path)) return { run: true };
  if (['true', '1'].includes((env.CI ?? '').toLowerCase()))
    return { run: false, failure: `${path} is missing; CI=true requires the ${BROWSER_LABELS[name]} tests` };
  return { run: false, skipNotice: `skipped: ${path} is not installed` };
}

/**
 * A vitest `describe` per browser: `fn` declares the same tests for each, and gets the browser's name to
 * launch it with {@link launchBrowser}. Each suite is named `<name> in headless Chromium` (or `… Firefox
 * ESR`) and follows {@link browserRequirement}: without the browser, a skipped test says why, or under
 * `CI=true` a failing test says the browser is missing. Its tests are bounded by {@link BROWSER_TIMEOUT}.
 *
 * @example
 * ```ts
 * describeWithBrowsers('@x/luks', (name) => {
 *   let browser: Browser;
 *   beforeAll(async () => { browser = await launchBrowser(name); }, BROWSER_TIMEOUT);
 *   afterAll(() => browser?.close());
 *   it('opens a Blob', async () => { … });
 * });
 * ```
 */
export function describeWithBrowsers(name: string, fn: (browser: BrowserName) => void): void {
  for (const browser of Object.keys(BROWSERS) as BrowserName[]) {
    const suite = `${name} in ${BROWSER_LABELS[browser]}`;
    const need = browserRequirement(browser);
    if (need.failure)
      it(`${suite}: the browser is installed (required under CI)`, () => {
        throw new Error(need.failure);
      });
    if (need.skipNotice) it.skip(`${suite}: ${need.skipNotice}`, () => {});
    describe.runIf(need.run)(suite, { timeout: BROWSER_TIMEOUT }, () => fn(browser));
  }
}

/**
 * The bound of a browser test and of a `beforeAll` that launches a browser (and builds what it serves): a
 * guard against a hang, never a speed goal. Ten minutes, as vitest.shared.ts bounds every test, where a
 * browser suite takes about a minute on a busy 2-core machine (Firefox alone can take 10 s to start).
 */
export const BROWSER_TIMEOUT = 600_000;

/**
 * Launches `name` headless with a fresh profile, which `close()` deletes. Chromium runs without its
 * sandbox (CI runs as root), without GPU, QUIC or component updates, on top of puppeteer's defaults
 * (no background networking, sync or first-run pages); Firefox with puppeteer's profile for automation
 * (updates, telemetry and background requests off). Pages open at puppeteer's default 800 × 600.
 *
 * @example
 * ```ts
 * const browser = await launchBrowser('firefox');
 * const page = await browser.newPage();
 * await browser.close();
 * ```
 */
export async function launchBrowser(name: BrowserName): Promise<Browser> {
  const { default: puppeteer } = await import('puppeteer-core');
  const common = {
    executablePath: BROWSERS[name],
    headless: true,
    // Starting and every protocol call may be slow on a loaded machine: bounds well past what they need.
    timeout: 180_000,
    protocolTimeout: 600_000,
  } as const;
  if (name === 'firefox') return puppeteer.launch({ ...common, browser: 'firefox' });
  return puppeteer.launch({
    ...common,
    browser: 'chrome',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-component-update'],
  });
}
