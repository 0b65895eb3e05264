// `npm run screenshot -w @x/web`: apps/web/screenshot.png, the page at the end of a run on the sample
// volume of `npm start` (built, served and driven as the end-to-end test does, on the download path), in
// headless Chromium.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ElementHandle } from 'puppeteer-core';
import { launchBrowser } from '@x/testkit';
import { APP_DIR, buildPage, SAMPLE, serve } from '../test/harness.ts';

const out = join(APP_DIR, 'screenshot.png');
const dist = await buildPage();
const server = await serve(dist.dir);
const downloads = await mkdtemp(join(tmpdir(), 'x-web-screenshot-'));
const browser = await launchBrowser('chromium');
try {
  const context = await browser.createBrowserContext({
    downloadBehavior: { policy: 'allow', downloadPath: downloads },
  });
  const page = await context.newPage();
  page.setDefaultTimeout(300_000);
  await page.setViewport({ width: 900, height: 900 });
  await page.evaluateOnNewDocument(() => {
    delete (window as { showSaveFilePicker?: unknown }).showSaveFilePicker;
  });
  await page.goto(`${server.origin}/`);
  await ((await page.$('#image')) as ElementHandle<HTMLInputElement>).uploadFile(SAMPLE.path);
  await page.waitForSelector('#unlock:not([hidden])');
  await page.keyboard.type(SAMPLE.passphrase);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#save:not([hidden])');
  await page.click('#save');
  await page.waitForFunction(() => document.querySelector('#status')?.textContent?.startsWith('Done'), {
    polling: 100,
  });
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.screenshot({ path: out, fullPage: true });
  console.log(`x-web: wrote ${out}`);
} finally {
  await browser.close();
  await server.close();
  await dist.remove();
  await rm(downloads, { recursive: true, force: true });
}
