/**
 * Headless Chromium for the browser tests (Debian's `chromium`, which `.ci/run` installs), driven by
 * playwright-core: one launch, the same flags everywhere, a throwaway profile removed on close.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';

/** Where Debian's chromium package puts the browser. */
export const CHROMIUM = '/usr/bin/chromium';

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
