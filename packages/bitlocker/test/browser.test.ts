// @x/bitlocker in real browsers: the package (bundled from its TypeScript sources with esbuild, so the
// test needs no build) is served from 127.0.0.1 to Debian's Chromium and Firefox ESR, headless, each driven
// by puppeteer-core; the page fetches a BitLocker image made by Windows, wraps it in a Blob and opens it
// with its password and with its recovery password — key stretching, AES-CCM and the data on the page's
// own kernels, no node: module involved. The same tests run in each browser. Without a browser its tests
// are skipped with a notice, except under CI=true, where they fail.
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BROWSER_TIMEOUT, browserBundle, describeWithBrowsers, launchBrowser } from '@x/testkit';
import { bitlockerImages } from '@x/testkit/disk-images';

const { images } = bitlockerImages();
const image = images.find((i) => i.name === 'bitlk-aes-cbc-128')!;

/** The bundle and the image on a server, made once for the browsers that run (the first asks for it). */
let served: Promise<{ server: Server; origin: string }> | undefined;

function serveImage() {
  served ??= (async () => {
    const js = await browserBundle('@x/bitlocker', import.meta.dirname);
    expect(js).not.toMatch(/from\s*["']node:/);
    const bytes = await readFile(image.path);
    const server = createServer((req, res) => {
      if (req.url === '/') {
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            '<!doctype html><title>@x/bitlocker</title><script type="module">import * as bde from "/bitlocker.js"; window.bde = bde;</script>',
          );
      } else if (req.url === '/bitlocker.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' }).end(js);
      } else if (req.url === '/image') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes);
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, origin: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
  })();
  return served;
}

afterAll(async () => {
  const s = await served?.catch(() => undefined);
  await new Promise((r) => (s ? s.server.close(r) : r(undefined)));
}, BROWSER_TIMEOUT);

describeWithBrowsers('@x/bitlocker', (browserName) => {
  let browser: Browser | undefined;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    const { origin } = await serveImage();
    browser = await launchBrowser(browserName);
    page = await browser.newPage();
    page.on('pageerror', (e) => problems.push(String(e)));
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => 'bde' in window, { timeout: 300_000, polling: 100 });
  }, BROWSER_TIMEOUT);

  afterAll(async () => {
    await browser?.close();
  }, BROWSER_TIMEOUT);

  function openInPage(secret: { passphrase?: string; recoveryPassword?: string }) {
    return page.evaluate(async (secret) => {
      const bde = (window as unknown as { bde: typeof import('../src/index.js') }).bde;
      const blob = await (await fetch('/image')).blob();
      try {
        const v = await bde.openBitlocker(blob, secret);
        const plain = new Uint8Array(v.payloadSize);
        await v.read(plain, 0);
        v.close();
        const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', plain));
        return {
          ok: true as const,
          cipher: v.cipher,
          protector: v.protector,
          kernel: v.kernel,
          sha256: Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join(''),
          isBlob: blob instanceof Blob,
          hasProcess: typeof (globalThis as { process?: unknown }).process !== 'undefined',
        };
      } catch (e) {
        return { ok: false as const, name: (e as Error).name, message: (e as Error).message };
      }
    }, secret);
  }

  it('opens a Windows 10 AES-CBC volume from a Blob with its password and with its recovery password', async () => {
    for (const [secret, protector] of [
      [{ passphrase: image.password }, 'password'],
      [{ recoveryPassword: image.recoveryPassword }, 'recovery password'],
    ] as const) {
      const r = await openInPage(secret);
      expect(r, JSON.stringify(r)).toMatchObject({
        ok: true,
        cipher: 'aes-cbc-eboiv',
        protector,
        kernel: 'wasm-simd128',
        isBlob: true,
        hasProcess: false,
        sha256: image.sha256,
      });
    }
    expect(problems).toEqual([]);
  });

  it('says WrongPassphraseError for a wrong password', async () => {
    expect(await openInPage({ passphrase: 'wrong' })).toMatchObject({ ok: false, name: 'WrongPassphraseError' });
  });
});
