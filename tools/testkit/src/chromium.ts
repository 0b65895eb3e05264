/**
 * Headless Chromium for the browser tests (Debian's `chromium`, which `.ci/run` installs), driven by
 * playwright-core: one launch, the same flags everywhere, a throwaway profile removed on close.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { describe, it } from 'vitest';

/** Where Debian's chromium package puts the browser. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * A vitest `describe` for tests in a real browser, with the house rule: with {@link CHROMIUM} the suite
 * runs; without it, it is skipped with a notice, except under `CI=true` (which installs it), where a
 * failing test says that Chromium is missing.
 *
 * @example
 * ```ts
 * describeWithChromium('@x/luks in headless Chromium', () => {
 *   it('opens a Blob', async () => { … });
 * });
 * ```
 */
export function describeWithChromium(name: string, fn: () => void): void {
  const ci = ['true', '1'].includes((process.env.CI ?? '').toLowerCase());
  const have = existsSync(CHROMIUM);
  if (!have && ci)
    it(`${name}: chromium is installed (required under CI)`, () => {
      throw new Error(`${CHROMIUM} is missing; CI=true requires the browser test`);
    });
  if (!have && !ci) it.skip(`${name}: skipped: ${CHROMIUM} is not installed`, () => {});
  describe.runIf(have)(name, fn);
}

/** A headless Chromium with a fresh profile; `close()` ends it and deletes the profile. */
export interface Chromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Launches headless Chromium with networking extras off (no sandbox: CI runs as root).
 *
 * @example
 * ```ts
 * const browser = await launchChromium('x-luks');
 * const page = await browser.context.newPage();
 * await browser.close();
 * ```
 */
export async function launchChromium(prefix: string): Promise<Chromium> {
  const { chromium } = await import('playwright-core');
  const userDataDir = mkdtempSync(join(tmpdir(), `${prefix}-chromium-`));
  try {
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    return {
      context,
      async close() {
        await context.close();
        rmSync(userDataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw error;
  }
}
