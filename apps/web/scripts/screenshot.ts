// `npm run screenshot -w @x/web`: apps/web/screenshot.png, the page at the end of a run on the sample
// volume of `npm start` (built, served and driven as the end-to-end test does, on the download path).
import { join } from 'node:path';
import { launchChromium } from '@x/testkit';
import { APP_DIR, buildPage, SAMPLE, serve } from '../test/harness.ts';

const out = join(APP_DIR, 'screenshot.png');
const dist = await buildPage();
const server = await serve(dist.dir);
const browser = await launchChromium('x-web-screenshot');
try {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 900, height: 900 });
  await page.addInitScript(() => {
    delete (window as { showSaveFilePicker?: unknown }).showSaveFilePicker;
  });
  await page.goto(`${server.origin}/`);
  await page.setInputFiles('#image', SAMPLE.path);
  await page.waitForSelector('#unlock:not([hidden])');
  await page.keyboard.type(SAMPLE.passphrase);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#save:not([hidden])');
  await Promise.all([page.waitForEvent('download'), page.click('#save')]);
  await page.waitForFunction(() => document.querySelector('#status')?.textContent?.startsWith('Done'));
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.screenshot({ path: out, fullPage: true });
  console.log(`x-web: wrote ${out}`);
} finally {
  await browser.close();
  await server.close();
  await dist.remove();
}
