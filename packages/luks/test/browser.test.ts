// @x/luks in real browsers: the package (bundled from its TypeScript sources with esbuild, so the test
// needs no build) is served from 127.0.0.1 to Debian's Chromium and Firefox ESR, headless, each driven by
// puppeteer-core; the page fetches a container, wraps it in a Blob and opens it with openLuks — no node:
// module involved. The same tests run in each browser. Without a browser its tests are skipped with a
// notice, except under CI=true, where they fail.
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { convertToLuks1, cryptsetupRequirement, makeLuks2Container, removeAllContainers } from '@x/containers';
import { BROWSER_TIMEOUT, browserBundle, describeWithBrowsers, launchBrowser } from '@x/testkit';

const cs = cryptsetupRequirement();

interface Image {
  bytes: Uint8Array;
  passphrase: string;
  original: Uint8Array;
}

/** The images, the bundle and the server, made once for the browsers that run (the first asks for them). */
let served: Promise<{ server: Server; origin: string; images: Map<string, Image> }> | undefined;

function serveImages() {
  served ??= (async () => {
    const js = await browserBundle('@x/luks', import.meta.dirname);
    expect(js).not.toMatch(/from\s*["']node:/);

    const images = new Map<string, Image>();
    const text = await readFile(new URL('fixtures/sample.txt', import.meta.url));
    const sample = new Uint8Array(64 * 1024);
    sample.set(text);
    images.set('sample', {
      bytes: new Uint8Array(await readFile(new URL('fixtures/sample-luks2.img', import.meta.url))),
      passphrase: await readFile(new URL('fixtures/sample.passphrase', import.meta.url), 'utf8'),
      original: sample,
    });
    if (cs.run) {
      const passphrase = randomBytes(8).toString('hex');
      const c = await makeLuks2Container({
        cipher: 'aes-cbc-essiv:sha256',
        keySize: 256,
        dataSize: 256 * 1024,
        passphrases: [passphrase],
        pbkdf: { type: 'pbkdf2', hash: 'sha256' },
      });
      const v1 = await convertToLuks1(c);
      images.set('luks2-cbc', { bytes: new Uint8Array(await readFile(c.path)), passphrase, original: c.original });
      images.set('luks1-cbc', { bytes: new Uint8Array(await readFile(v1.path)), passphrase, original: c.original });
    }

    const server = createServer((req, res) => {
      const url = req.url ?? '/';
      if (url === '/') {
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            '<!doctype html><title>@x/luks</title><script type="module">import * as luks from "/luks.js"; window.luks = luks;</script>',
          );
      } else if (url === '/luks.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' }).end(js);
      } else if (url.startsWith('/image/') && images.has(url.slice(7))) {
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(images.get(url.slice(7))!.bytes);
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`, images };
  })();
  return served;
}

afterAll(async () => {
  const s = await served?.catch(() => undefined);
  await new Promise((r) => (s ? s.server.close(r) : r(undefined)));
  await removeAllContainers();
}, BROWSER_TIMEOUT);

describeWithBrowsers('@x/luks', (browserName) => {
  let images: Map<string, Image>;
  let browser: Browser | undefined;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    const s = await serveImages();
    images = s.images;
    browser = await launchBrowser(browserName);
    page = await browser.newPage();
    page.on('pageerror', (e) => problems.push(String(e)));
    await page.goto(`${s.origin}/`);
    await page.waitForFunction(() => 'luks' in window, { timeout: 300_000, polling: 100 });
  }, BROWSER_TIMEOUT);

  afterAll(async () => {
    await browser?.close();
  }, BROWSER_TIMEOUT);

  /** Opens image `name` from a Blob in the page; returns what the page saw and the plaintext's SHA-256. */
  function openInPage(name: string, passphrase: string) {
    return page.evaluate(
      async ({ name, passphrase }) => {
        // the module the page loaded (an import() here would be rewritten by vitest's transform)
        const luks = (window as unknown as { luks: typeof import('../src/index.js') }).luks;
        const blob = await (await fetch(`/image/${name}`)).blob();
        try {
          const header = await luks.readHeader(blob);
          const v = await luks.openLuks(blob, { passphrase });
          const plain = new Uint8Array(v.payloadSize);
          await v.read(plain, 0);
          v.close();
          const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', plain));
          return {
            ok: true as const,
            version: header.version as number,
            cipher: v.cipher as string,
            keyslot: v.keyslot as string,
            sha256: Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join(''),
            isBlob: blob instanceof Blob,
            hasProcess: typeof (globalThis as { process?: unknown }).process !== 'undefined',
          };
        } catch (e) {
          return { ok: false as const, name: (e as Error).name, message: (e as Error).message };
        }
      },
      { name, passphrase },
    );
  }

  const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

  it('opens the committed sample (LUKS2, argon2id, aes-xts-plain64) from a Blob', async () => {
    const img = images.get('sample')!;
    const r = await openInPage('sample', img.passphrase);
    expect(r, JSON.stringify(r)).toMatchObject({
      ok: true,
      version: 2,
      cipher: 'aes-xts-plain64',
      keyslot: '0',
      isBlob: true,
      hasProcess: false,
    });
    expect(r.ok && r.sha256).toBe(sha256(img.original));
    expect(problems).toEqual([]);
  });

  it.runIf(cs.run)('opens cryptsetup-made LUKS2 and LUKS1 aes-cbc-essiv:sha256 containers from a Blob', async () => {
    for (const [name, version] of [
      ['luks2-cbc', 2],
      ['luks1-cbc', 1],
    ] as const) {
      const img = images.get(name)!;
      const r = await openInPage(name, img.passphrase);
      expect(r, JSON.stringify(r)).toMatchObject({ ok: true, version, cipher: 'aes-cbc-essiv:sha256', keyslot: '0' });
      expect(r.ok && r.sha256).toBe(sha256(img.original));
    }
  });

  it('says WrongPassphraseError for a wrong passphrase', async () => {
    const r = await openInPage('sample', 'not the passphrase');
    expect(r).toMatchObject({ ok: false, name: 'WrongPassphraseError' });
  });
});
