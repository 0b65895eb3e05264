// The page end to end, in real browsers: built by Vite (the app's own config), served from 127.0.0.1 by a
// plain static server, opened in Debian's Chromium and Firefox ESR (headless, each driven by puppeteer-core),
// the same tests in each. An image goes in through the file input and the secret through the keyboard, as
// a person gives them; the plaintext is checked by its SHA-256 where the page writes it: the download (a
// browser without showSaveFilePicker, as Firefox is) in a folder of its own, or a stand-in for
// showSaveFilePicker's file that hashes what the page streams into it.
// Without a browser its tests are skipped with a notice, except under CI=true, where that fails; the tests
// on cryptsetup-made volumes follow the same rule for cryptsetup.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Browser, ElementHandle, Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Container, cryptsetupRequirement, makeLuks2Container, removeAllContainers } from '@x/containers';
import { describeBitlocker, readBitlockerHeader } from '@x/bitlocker';
import { openFileSource } from '@x/byte-source/file';
import { describeFileVault2, readFileVault2Header } from '@x/filevault2';
import { DEFAULT_MAX_ITERATIONS } from '@x/disk-format';
import { createLuks, describeHeader, readHeader } from '@x/luks';
import { describeTcrypt, openTcrypt, type TcryptOpenOptions, type TcryptPrf } from '@x/tcrypt';
import { BROWSER_TIMEOUT, describeWithBrowsers, launchBrowser } from '@x/testkit';
import { bitlockerImages, FILEVAULT2_FACTS, fileVault2Image, startupKeyFiles } from '@x/testkit/disk-images';
import { buildPage, SAMPLE, serve } from './harness.ts';

const cs = cryptsetupRequirement();
if (cs.failure)
  it('cryptsetup is installed (required under CI)', () => {
    throw new Error(cs.failure);
  });
if (cs.skipNotice) it.skip(cs.skipNotice, () => {});

// Made by Windows and macOS (cryptsetup's test images), unpacked for this file's tests.
const bitlk = bitlockerImages();
const startupKeyImage = bitlk.images.find((i) => i.name === 'bitlk-aes-xts-128-startup-key')!;
const fvault2 = fileVault2Image();

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const MiB = 1024 * 1024;

/** What the stand-in for showSaveFilePicker saw (window.__picker). */
interface PickerState {
  calls: number;
  name: string;
  writes: number;
  bytes: number;
  /** The write with this index (0-based) waits until the file is aborted; -1: none waits. */
  holdAt: number;
  held: boolean;
  closed: boolean;
  aborted: boolean;
  sha256: string;
}

/**
 * Replaces showSaveFilePicker with a file that keeps what is written (as Blobs, as a browser would) and
 * hashes it on close(); abort() discards it and fails a held write, as a real stream's abort does.
 * Runs in the page before its scripts.
 */
function installPicker(): void {
  const state = {
    calls: 0,
    name: '',
    writes: 0,
    bytes: 0,
    holdAt: -1,
    held: false,
    closed: false,
    aborted: false,
    sha256: '',
  };
  let release: ((e: Error) => void) | undefined;
  Object.assign(window, {
    __picker: state,
    showSaveFilePicker: async (options: { suggestedName: string }) => {
      state.calls++;
      state.name = options.suggestedName;
      let parts: Blob[] = [];
      return {
        name: options.suggestedName,
        createWritable: async () => ({
          async write(chunk: Uint8Array) {
            if (state.writes === state.holdAt) {
              state.held = true;
              await new Promise((_, reject) => {
                release = reject;
              });
            }
            parts.push(new Blob([chunk as Uint8Array<ArrayBuffer>]));
            state.writes++;
            state.bytes += chunk.length;
          },
          async close() {
            const digest = await crypto.subtle.digest('SHA-256', await new Blob(parts).arrayBuffer());
            state.sha256 = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
            state.closed = true;
          },
          async abort() {
            state.aborted = true;
            parts = [];
            release?.(new DOMException('The write was aborted', 'AbortError'));
          },
        }),
      };
    },
  });
}

/** What the stand-in for the page's Worker counted (window.__workers). */
interface WorkerCount {
  /** Workers made. */
  created: number;
  /** Made and not yet terminated. */
  live: number;
  /** While true, what the workers send is held back from the page (as a slow worker would). */
  hold: boolean;
  /** Messages held back. */
  held: number;
}

/**
 * Replaces Worker with one that counts the workers made and terminated, and can hold back what they send
 * until `__release()` (the page's state stays where the message would have moved it on, for as long as the
 * test needs). Runs in the page before its scripts.
 */
function installWorkerCounter(): void {
  const state = { created: 0, live: 0, hold: false, held: 0 };
  const queue: (() => void)[] = [];
  let passing = false;
  class CountedWorker extends Worker {
    #ended = false;
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options);
      state.created++;
      state.live++;
      // Added before the page's own handler, so it can stop the message reaching it.
      this.addEventListener('message', (e) => {
        if (!state.hold || passing) return;
        e.stopImmediatePropagation();
        state.held++;
        queue.push(() => this.dispatchEvent(new MessageEvent('message', { data: e.data })));
      });
    }
    override terminate(): void {
      if (!this.#ended) state.live--;
      this.#ended = true;
      super.terminate();
    }
  }
  Object.assign(window, {
    Worker: CountedWorker,
    __workers: state,
    __release() {
      state.hold = false;
      passing = true;
      for (const deliver of queue.splice(0)) deliver();
      passing = false;
    },
  });
}

/** Runs fetch(url) in a new blob: worker of the page; gives 'fetched', or the name of the error. */
function fetchFromBlobWorker(url: string): Promise<string> {
  const source = `fetch(${JSON.stringify(url)}).then(() => postMessage('fetched'), (e) => postMessage(e.name));`;
  const worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
  return new Promise((resolve) => {
    worker.onmessage = (e: MessageEvent<string>) => {
      worker.terminate();
      resolve(e.data);
    };
    worker.onerror = (e) => {
      worker.terminate();
      resolve(`worker error: ${e.message}`);
    };
  });
}

/** Chromium has showSaveFilePicker; without it the page takes its download path, as in Firefox and Safari. */
function removePicker(): void {
  delete (window as { showSaveFilePicker?: unknown }).showSaveFilePicker;
}

/** What every browser's tests use, made once, by the first browser that runs. */
interface Shared {
  /** The built page. */
  dist: Awaited<ReturnType<typeof buildPage>>;
  server: Awaited<ReturnType<typeof serve>>;
  /** A temporary folder: the damaged image, the download folders. */
  dir: string;
  /** The sample with its JSON area damaged in both header copies: readHeader must refuse it. */
  damaged: string;
  /** A cryptsetup-made aes-xts-plain64 volume with 4096-byte sectors (when cryptsetup runs). */
  xts4k?: Container;
  /** A LUKS1 volume whose second keyslot takes the most PBKDF2 iterations any format accepts. */
  slow: SlowVolume;
  /** The folder of the TrueCrypt/VeraCrypt images extracted from @x/tcrypt's fixtures ({@link TCRYPT_IMAGES}). */
  tcrypt: string;
}

/** {@link slowVolume}'s image: where it is, the passphrase of keyslot 0, the plaintext. */
interface SlowVolume {
  path: string;
  passphrase: string;
  plaintext: Uint8Array;
}

/**
 * A LUKS1 volume made by @x/luks's createLuks (1 MiB of random plaintext, keyslot 0 with 1000 PBKDF2
 * iterations), whose keyslot 1 is then enabled over the random bytes of its key material area with
 * DEFAULT_MAX_ITERATIONS (2^26) iterations and a salt of its own: the slowest derivation the shared KDF limits
 * let a header ask for. The passphrase opens keyslot 0 at once; any other passphrase fails keyslot 0 at once
 * and then derives keyslot 1's key, which no passphrase opens (the hostile image of issue 25, made slow
 * within the limits). LUKS1 has no header checksum to remake.
 */
async function slowVolume(dir: string): Promise<SlowVolume> {
  const passphrase = 'fast slot';
  const plaintext = new Uint8Array(randomBytes(1024 * 1024));
  const parts: [number, Uint8Array][] = [];
  await createLuks(
    plaintext,
    { write: async (offset, bytes) => void parts.push([offset, bytes.slice()]) },
    { type: 'luks1', passphrase, pbkdf: 'pbkdf2', iterations: 1000 },
  );
  const image = new Uint8Array(Math.max(...parts.map(([o, b]) => o + b.length)));
  for (const [o, b] of parts) image.set(b, o);
  // Keyslot 1 of the phdr (LUKS1 spec §4.1: 48-byte keyslots from offset 208): active, iterations, salt.
  const slot1 = 208 + 48;
  const view = new DataView(image.buffer);
  view.setUint32(slot1, 0x00ac71f3); // LUKS_KEY_ENABLED
  view.setUint32(slot1 + 4, DEFAULT_MAX_ITERATIONS);
  image.set(randomBytes(32), slot1 + 8);
  const path = join(dir, 'slow-luks1.img');
  await writeFile(path, image);
  return { path, passphrase, plaintext };
}

/**
 * The cryptsetup-made VeraCrypt images these tests open (the system partition's is 18 MiB), two TrueCrypt
 * images of the older modes (LRW: TrueCrypt 4.1–4.3; CBC: before 4.1), and the two keyfiles (packages/tcrypt/test/fixtures,
 * its README says what each name asks for): passwords 12 × a, the hidden volume's 12 × b. The answer is the
 * FAT serial in the decrypted boot sector: DEAD-BABE in an outer volume, CAFE-BABE in a hidden one.
 */
const TCRYPT_IMAGES = [
  'vc_1-sha512-xts-aes',
  'vc_1-sha512-xts-aes-hidden',
  'vck_1-sha512-xts-aes',
  'vcpim_1_1234-sha256-xts-aes',
  'sys_vc_1_mbr_part-sha256-xts-aes',
  'tc_2-ripemd160-lrw-aes',
  'tc_1-sha1-cbc-aes',
  'keyfile1',
  'keyfile2',
] as const;
const TC_PASSWORD = 'aaaaaaaaaaaa';
const TC_HIDDEN_PASSWORD = 'bbbbbbbbbbbb';
/** The password of the `vcpim_1_<PIM>` images (20 × c). */
const TC_PIM_PASSWORD = 'cccccccccccccccccccc';

/** Extracts {@link TCRYPT_IMAGES} from @x/tcrypt's copy of cryptsetup's archive into `dir`; returns their folder. */
function extractTcrypt(dir: string): string {
  const archive = join(
    dirname(createRequire(import.meta.url).resolve('@x/tcrypt/package.json')),
    'test',
    'fixtures',
    'tcrypt-images.tar.xz',
  );
  execFileSync('tar', ['-xJf', archive, '-C', dir, ...TCRYPT_IMAGES.map((m) => `tcrypt-images/${m}`)]);
  return join(dir, 'tcrypt-images');
}

/** The FAT volume serial of a boot sector, as blkid prints it: FAT32's at 67, FAT12/16's at 39. */
function fatSerial(boot: Uint8Array): string {
  const at = new TextDecoder().decode(boot.subarray(82, 87)) === 'FAT32' ? 67 : 39;
  const hex = Array.from(boot.subarray(at, at + 4), (b) => b.toString(16).padStart(2, '0'))
    .reverse()
    .join('');
  return `${hex.slice(0, 4)}-${hex.slice(4)}`.toUpperCase();
}

/** What @x/tcrypt opens in Node: the header's dump as x-disk dump prints it, and the plaintext's SHA-256. */
async function tcryptReference(
  path: string,
  options: TcryptOpenOptions,
): Promise<{ dump: string; sha256: string; size: number }> {
  const v = await openTcrypt(new Uint8Array(await readFile(path)), options);
  const out = new Uint8Array(v.payloadSize);
  await v.read(out, 0);
  v.close();
  return { dump: `${describeTcrypt(v.header!)}\n`, sha256: sha256(out), size: out.length };
}

let shared: Promise<Shared> | undefined;

function prepare(): Promise<Shared> {
  shared ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'x-web-e2e-'));
    const bytes = new Uint8Array(await readFile(SAMPLE.path));
    for (const at of [4096 + 64, 16384 + 4096 + 64]) bytes[at] ^= 0x20;
    const damaged = join(dir, 'damaged.img');
    await writeFile(damaged, bytes);
    const [dist, xts4k] = await Promise.all([
      buildPage(),
      cs.run
        ? makeLuks2Container({
            cipher: 'aes-xts-plain64',
            keySize: 512,
            sectorSize: 4096,
            dataSize: 20 * MiB, // five 4 MiB chunks: the page's buffers go round more than once
            passphrases: [randomBytes(8).toString('hex')],
          })
        : undefined,
    ]);
    return {
      dist,
      server: await serve(dist.dir),
      dir,
      damaged,
      xts4k,
      slow: await slowVolume(dir),
      tcrypt: extractTcrypt(dir),
    };
  })();
  return shared;
}

afterAll(async () => {
  const s = await shared?.catch(() => undefined);
  await s?.server.close();
  await s?.dist.remove();
  if (s) await rm(s.dir, { recursive: true, force: true });
  await removeAllContainers();
}, BROWSER_TIMEOUT);

/**
 * The bound of every wait on a page (a guard against a hang, never a speed goal): half the test's bound,
 * so that a wait that never ends says which one it was.
 */
const WAIT_MS = 300_000;

describeWithBrowsers('the page', (browserName) => {
  let dist: Shared['dist'];
  let server: Shared['server'];
  let dir: string;
  let damaged: string;
  let xts4k: Container | undefined;
  let slow: SlowVolume;
  let tcrypt: string;
  let browser: Browser | undefined;
  /** Each page's download folder (one page per test). */
  const downloadDirs = new Map<Page, string>();
  /**
   * The URLs of every worker the browser reported for each page (its `workercreated` events): the page's
   * own worker and the key derivation workers that worker makes, which the page's Worker counter
   * (installWorkerCounter) does not see, as they are made inside the worker.
   */
  const workerTargets = new Map<Page, string[]>();
  let problems: string[] = [];

  beforeAll(async () => {
    ({ dist, server, dir, damaged, xts4k, slow, tcrypt } = await prepare());
    browser = await launchBrowser(browserName);
  }, BROWSER_TIMEOUT);

  afterAll(async () => {
    await browser?.close();
  }, BROWSER_TIMEOUT);

  /**
   * A fresh tab on the page, in a browser context of its own whose downloads go to a new folder;
   * `picker`: the stand-in file of installPicker, else the download path. `problems` starts empty and
   * collects the page's uncaught errors.
   */
  async function openPage(picker: boolean, viewport = { width: 1000, height: 900 }): Promise<Page> {
    const downloads = await mkdtemp(join(dir, 'downloads-'));
    const context = await browser!.createBrowserContext({
      downloadBehavior: { policy: 'allow', downloadPath: downloads },
    });
    const page = await context.newPage();
    downloadDirs.set(page, downloads);
    const targets: string[] = [];
    workerTargets.set(page, targets);
    page.on('workercreated', (w) => targets.push(w.url()));
    page.setDefaultTimeout(WAIT_MS);
    await page.setViewport(viewport);
    const mine: string[] = [];
    problems = mine;
    page.on('pageerror', (e) => mine.push(String(e)));
    await page.evaluateOnNewDocument(picker ? installPicker : removePicker);
    await page.evaluateOnNewDocument(installWorkerCounter);
    await page.goto(`${server.origin}/`);
    return page;
  }

  /** Closes the page with its browser context. */
  const close = (page: Page) => page.browserContext().close();

  /** Waits until `predicate(arg)` is true in the page, checking every 100 ms (for up to WAIT_MS). */
  const until = (page: Page, predicate: (arg: string) => unknown, arg = '') =>
    page.waitForFunction(predicate, { polling: 100 }, arg);

  /** Gives the file input `selector` the file at `path`, as a person picking it does. */
  async function chooseFile(page: Page, selector: string, path: string): Promise<void> {
    const input = (await page.$(selector)) as ElementHandle<HTMLInputElement>;
    await input.uploadFile(path);
  }

  /** Picks `path` in the file input and waits for the header (or an error). */
  async function pick(page: Page, path: string): Promise<void> {
    await chooseFile(page, '#image', path);
    await until(
      page,
      () => !document.querySelector<HTMLElement>('#unlock')!.hidden || document.querySelector('#error')!.textContent,
    );
  }

  /** Types the secret where the page has put the focus, and presses Enter. */
  async function unlock(page: Page, secret: string): Promise<void> {
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('secret');
    await page.keyboard.type(secret);
    await page.keyboard.press('Enter');
    await until(
      page,
      () => !document.querySelector<HTMLElement>('#save')!.hidden || document.querySelector('#error')!.textContent,
    );
  }

  const text = (page: Page, selector: string) => page.$eval(selector, (e) => e.textContent ?? '');
  const picker = (page: Page) => page.evaluate(() => (window as unknown as { __picker: PickerState }).__picker);
  const waitStatus = (page: Page, start: string) =>
    until(page, (s) => document.querySelector('#status')!.textContent!.startsWith(s), start);

  /** What is in the page's download folder. */
  const downloadFolder = (page: Page) => readdir(downloadDirs.get(page)!);

  /**
   * The file the browser saved from the page's download, once it is whole: the one file in the page's
   * download folder, with no partial file beside it (Chromium's `.crdownload`, Firefox's `.part`; Firefox
   * also keeps an empty file under the final name while it writes).
   */
  async function downloaded(page: Page): Promise<{ name: string; bytes: Uint8Array }> {
    const folder = downloadDirs.get(page)!;
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const names = await readdir(folder);
      if (names.length === 1 && !/\.(part|crdownload)$/.test(names[0])) {
        const path = join(folder, names[0]);
        if ((await stat(path)).size > 0) return { name: names[0], bytes: new Uint8Array(await readFile(path)) };
      }
      if (Date.now() > deadline) throw new Error(`no whole download in ${folder}: ${names.join(', ') || 'empty'}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('is static files that import no node: module', async () => {
    const files = await readdir(dist.dir, { recursive: true });
    // The worker is inside the one script the page loads (a blob: URL), and the key derivation worker inside
    // it; the build also emits @x/tcrypt's kdf-worker file for its default URL, which the page never loads.
    expect(files.filter((f) => f.endsWith('.js') && !/kdf-worker-[\w-]+\.js$/.test(f)).length).toBe(1);
    // (Guarded globalThis.process?.getBuiltinModule('node:…') calls of the libraries are not imports.)
    const nodeImport = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)\\?["'`]node:[a-z_/]+/;
    for (const f of files.filter((f) => /\.(js|html)$/.test(f))) {
      const found = nodeImport.exec(await readFile(join(dist.dir, f), 'utf8'));
      expect(found?.[0], f).toBeUndefined();
    }
  });

  it('opens the sample LUKS2 image: the header as x-luks dump prints it, the plaintext downloaded', async () => {
    const page = await openPage(false);
    await pick(page, SAMPLE.path);
    expect(await text(page, '#error')).toBe('');
    expect(await text(page, '#format')).toBe('LUKS2');
    const expected = describeHeader(await readHeader(new Uint8Array(await readFile(SAMPLE.path))));
    expect(await text(page, '#dump')).toBe(`${expected}\n`);
    // The focus is visible where the page put it.
    expect(await page.$eval('#secret', (e) => getComputedStyle(e).outlineStyle)).toBe('solid');

    await unlock(page, SAMPLE.passphrase);
    expect(await text(page, '#summary')).toBe(
      'LUKS2 aes-xts-plain64, 4096-byte sectors, 64 KiB of payload at 524288, keyslot 0, kernel wasm-simd128',
    );
    expect(await page.$eval('#secret', (e) => (e as HTMLInputElement).value)).toBe('');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('save');
    await page.keyboard.press('Enter');
    await waitStatus(page, 'Done: 64 KiB of plaintext written to sample-luks2.plain (download)');
    const file = await downloaded(page);
    expect(file.name).toBe('sample-luks2.plain');
    expect(sha256(file.bytes)).toBe(sha256(SAMPLE.plaintext()));
    expect(
      await page.$eval('#progress', (e) => [(e as HTMLProgressElement).value, (e as HTMLProgressElement).max]),
    ).toEqual([65536, 65536]);
    expect(await text(page, '#stats')).toMatch(/^64 KiB of 64 KiB · [\d.]+ MB\/s · kernel wasm-simd128$/);
    expect(problems).toEqual([]);
    await close(page);
  });

  it('says a wrong passphrase plainly and writes nothing', async () => {
    const page = await openPage(true);
    await pick(page, SAMPLE.path);
    await unlock(page, 'not the passphrase');
    expect(await text(page, '#error')).toBe(
      'Wrong passphrase: no keyslot opens with this passphrase (tried 0). Nothing was written.',
    );
    expect(await page.$eval('#run', (e) => (e as HTMLElement).hidden)).toBe(true);
    // Ready for another try: the focus back on the passphrase, its text selected for retyping.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('secret');
    expect((await picker(page)).calls).toBe(0);
    expect(await downloadFolder(page)).toEqual([]);
    await unlock(page, SAMPLE.passphrase);
    expect(await text(page, '#error')).toBe('');
    expect(problems).toEqual([]);
    await close(page);
  });

  it('gives a damaged image the message x-disk gives', async () => {
    const page = await openPage(false);
    await pick(page, damaged);
    const why = await readHeader(new Uint8Array(await readFile(damaged))).then(
      () => 'opened',
      (e: Error) => `${e.name}: ${e.message}`,
    );
    expect(why).toMatch(/^HeaderError: @x\/luks: /);
    expect(await text(page, '#error')).toBe(`damaged.img: ${why.replace(/^HeaderError: @x\/luks: /, '')}`);
    expect(await page.$eval('#unlock', (e) => (e as HTMLElement).hidden)).toBe(true);
    await close(page);
  });

  it.runIf(cs.run)(
    'streams a cryptsetup-made aes-xts-plain64 volume with 4096-byte sectors into the picked file',
    async () => {
      const c = xts4k!;
      const page = await openPage(true);
      await pick(page, c.path);
      expect(await text(page, '#format')).toBe('LUKS2');
      await unlock(page, new TextDecoder().decode(c.passphrases[0]));
      expect(await text(page, '#summary')).toMatch(
        /^LUKS2 aes-xts-plain64, 4096-byte sectors, 20\.0 MiB of payload at \d+, keyslot 0, kernel wasm-simd128$/,
      );
      await page.click('#save');
      await waitStatus(page, 'Done: 20.0 MiB of plaintext written to');
      const p = await picker(page);
      expect(p).toMatchObject({ calls: 1, writes: 5, bytes: 20 * MiB, closed: true, aborted: false });
      expect(p.sha256).toBe(sha256(c.original));
      expect(problems).toEqual([]);
      await close(page);
    },
  );

  it.runIf(cs.run)('Cancel stops a run, discards the file and wipes the key; a new run then completes', async () => {
    const c = xts4k!;
    const passphrase = new TextDecoder().decode(c.passphrases[0]);
    const page = await openPage(true);
    await pick(page, c.path);
    await unlock(page, passphrase);
    await page.evaluate(() => {
      (window as unknown as { __picker: PickerState }).__picker.holdAt = 1; // the second chunk's write waits
    });
    await page.keyboard.press('Enter'); // on "Decrypt and save…"
    await until(page, () => (window as unknown as { __picker: PickerState }).__picker.held);
    expect(await page.$eval('#progress', (e) => (e as HTMLProgressElement).value)).toBe(4 * MiB);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('cancel');
    await page.keyboard.press('Enter');
    await waitStatus(page, 'Cancelled: nothing was saved. The key is wiped from memory.');
    expect(await picker(page)).toMatchObject({ writes: 1, closed: false, aborted: true });
    expect(await page.$eval('#save', (e) => (e as HTMLElement).hidden)).toBe(true);

    // The volume was closed: it takes the passphrase again, and then runs to the end.
    await page.evaluate(() => {
      Object.assign((window as unknown as { __picker: PickerState }).__picker, { holdAt: -1, writes: 0, bytes: 0 });
    });
    await unlock(page, passphrase);
    await page.click('#save');
    await waitStatus(page, 'Done: 20.0 MiB');
    const p = await picker(page);
    expect(p).toMatchObject({ calls: 2, writes: 5, bytes: 20 * MiB, closed: true });
    expect(p.sha256).toBe(sha256(c.original));
    expect(problems).toEqual([]);
    await close(page);
  });

  const workers = (page: Page) => page.evaluate(() => (window as unknown as { __workers: WorkerCount }).__workers);

  /**
   * Waits until the browser itself lists `n` workers of the page, none of them in `gone` (their URLs): the
   * page's worker and the key derivation workers made inside it. Only Chromium: there a terminated worker
   * leaves page.workers(); Firefox's WebDriver BiDi keeps listing it, so in Firefox the page's own count
   * (installWorkerCounter) stands alone.
   */
  async function browserWorkers(page: Page, n: number, gone: string[] = []): Promise<string[]> {
    if (browserName !== 'chromium') return [];
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const urls = page.workers().map((w) => w.url());
      if (urls.length === n && !urls.some((u) => gone.includes(u))) return urls;
      if (Date.now() > deadline) throw new Error(`the page has workers ${urls.join(', ')}; expected ${n}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * Waits until the browser lists at least `n` workers of the page at once (both browsers: a listing that
   * lags behind a terminated worker only makes this sooner true, never wrongly false for long); returns their URLs.
   */
  async function atLeastWorkers(page: Page, n: number): Promise<string[]> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const urls = page.workers().map((w) => w.url());
      if (urls.length >= n) return urls;
      if (Date.now() > deadline) throw new Error(`the page has workers ${urls.join(', ')}; expected ${n} or more`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Picks the slow volume and starts unlocking it with a wrong passphrase: its keyslot 1 is being derived. */
  async function startSlowUnlock(page: Page): Promise<void> {
    await pick(page, slow.path);
    expect(await text(page, '#format')).toBe('LUKS1');
    await page.keyboard.type('not the passphrase');
    await page.keyboard.press('Enter');
    await waitStatus(page, 'Unlocking…');
  }

  it('Cancel while reading the header ends the worker; what it sends after is ignored', async () => {
    const page = await openPage(false);
    await page.evaluate(() => {
      (window as unknown as { __workers: WorkerCount }).__workers.hold = true;
    });
    await chooseFile(page, '#image', SAMPLE.path);
    // The worker has read the header; the page, not told yet, is still reading it.
    await until(page, () => (window as unknown as { __workers: WorkerCount }).__workers.held > 0);
    expect(await text(page, '#status')).toBe('Reading the header of sample-luks2.img…');
    const [first] = await browserWorkers(page, 1);
    await page.click('#cancel');
    await waitStatus(page, 'Cancelled: no image is open.');
    expect(await workers(page)).toMatchObject({ created: 1, live: 0 });
    await browserWorkers(page, 0);
    await page.evaluate(() => (window as unknown as { __release(): void }).__release());
    expect(
      await page.$$eval('#header, #unlock, #cancel, #picked', (e) => e.map((x) => (x as HTMLElement).hidden)),
    ).toEqual([true, true, true, true]);
    expect(await text(page, '#status')).toBe('Cancelled: no image is open.');
    // The same file, picked again, opens (in a new worker).
    await pick(page, SAMPLE.path);
    expect(await text(page, '#format')).toBe('LUKS2');
    expect(await workers(page)).toMatchObject({ created: 2, live: 1 });
    await browserWorkers(page, 1, [first]);
    expect(problems).toEqual([]);
    await close(page);
  });

  it('Cancel during a long key derivation ends the worker at once; the next unlock starts a new one', async () => {
    const page = await openPage(true);
    await startSlowUnlock(page);
    const [first] = await browserWorkers(page, 1);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('cancel');
    await page.keyboard.press('Enter'); // on Cancel
    await waitStatus(page, 'Cancelled: the volume was not unlocked.');
    expect(await text(page, '#error')).toBe('');
    expect(await workers(page)).toMatchObject({ created: 1, live: 0 });
    await browserWorkers(page, 0);
    // Back to asking for the secret, the header still shown, nothing to cancel.
    expect(
      await page.$$eval('#header, #unlock, #cancel, #run', (e) => e.map((x) => (x as HTMLElement).hidden)),
    ).toEqual([false, false, true, true]);
    expect(await page.$eval('#unlock-fields', (e) => (e as HTMLFieldSetElement).disabled)).toBe(false);

    // The passphrase of keyslot 0 opens it in a new worker, which reads the header again first.
    await unlock(page, slow.passphrase);
    expect(await text(page, '#summary')).toMatch(/^LUKS1 aes-xts-plain64, 512-byte sectors, 1\.0 MiB .*keyslot 0, /);
    expect(await workers(page)).toMatchObject({ created: 2, live: 1 });
    await browserWorkers(page, 1, [first]);
    await page.click('#save');
    await waitStatus(page, 'Done: 1.0 MiB');
    expect((await picker(page)).sha256).toBe(sha256(slow.plaintext));
    expect(problems).toEqual([]);
    await close(page);
  });

  it('picking another image during a long key derivation ends the old worker', async () => {
    const page = await openPage(false);
    await startSlowUnlock(page);
    const [first] = await browserWorkers(page, 1);
    await chooseFile(page, '#image', SAMPLE.path);
    await waitStatus(page, 'LUKS2 image.');
    expect(await workers(page)).toMatchObject({ created: 2, live: 1 });
    await browserWorkers(page, 1, [first]);
    await unlock(page, SAMPLE.passphrase);
    expect(await text(page, '#summary')).toMatch(/^LUKS2 aes-xts-plain64, 4096-byte sectors, 64 KiB/);
    expect(problems).toEqual([]);
    await close(page);
  });

  it('opens the same file picked again after another was dropped', async () => {
    const page = await openPage(false);
    await pick(page, SAMPLE.path);
    expect(await text(page, '#format')).toBe('LUKS2');
    expect(await text(page, '#picked')).toBe('sample-luks2.img, 576 KiB');
    // Another image dropped on the page (made in the page: 4 KiB of zeros).
    await page.evaluate(() => {
      const data = new DataTransfer();
      data.items.add(new File([new Uint8Array(4096)], 'zeros.img'));
      document
        .querySelector('#drop')!
        .dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    });
    // Not recognized: said, and TrueCrypt/VeraCrypt offered (never guessed).
    await waitStatus(page, 'zeros.img is not a LUKS, BitLocker or FileVault 2 volume (no known signature).');
    expect(await page.$$eval('#named, #header', (e) => e.map((x) => (x as HTMLElement).hidden))).toEqual([false, true]);
    // The file input's own file again: a change, so it opens.
    await pick(page, SAMPLE.path);
    expect(await text(page, '#error')).toBe('');
    expect(await text(page, '#format')).toBe('LUKS2');
    expect(await text(page, '#picked')).toBe('sample-luks2.img, 576 KiB');
    expect(await page.$eval('#named', (e) => (e as HTMLElement).hidden)).toBe(true);
    expect(await workers(page)).toMatchObject({ created: 3, live: 1 });
    expect(problems).toEqual([]);
    await close(page);
  });

  /** The header as `x-disk dump` prints it, read in Node from the file. */
  async function nodeDump(path: string, describe: (source: import('@x/byte-source').ByteSource) => Promise<string>) {
    const source = await openFileSource(path);
    try {
      return `${await describe(source)}\n`;
    } finally {
      await source.close();
    }
  }

  /** Clicks "Decrypt and save…" on the download path; returns the SHA-256 of the downloaded file. */
  async function download(page: Page, done: string): Promise<string> {
    await page.click('#save');
    await waitStatus(page, done);
    return sha256((await downloaded(page)).bytes);
  }

  it('opens a BitLocker image made by Windows with its startup key (.BEK), then with its recovery password', async () => {
    const page = await openPage(false);
    await pick(page, startupKeyImage.path);
    expect(await text(page, '#format')).toBe('BitLocker');
    expect(await text(page, '#dump')).toBe(
      await nodeDump(startupKeyImage.path, async (s) => describeBitlocker(await readBitlockerHeader(s))),
    );
    expect(await page.$$eval('#kind option', (o) => o.map((e) => e.textContent))).toEqual([
      'Password',
      'Recovery password',
      'Startup key (.BEK file)',
      'No secret (clear key)',
    ]);
    await page.select('#kind', 'startupKey');
    await chooseFile(page, '#bek', startupKeyFiles(bitlk.dir).good);
    await page.click('#unlock-button');
    await page.waitForSelector('#save:not([hidden])');
    expect(await text(page, '#summary')).toMatch(
      /^BitLocker aes-xts-plain64, 512-byte sectors, [\d.]+ MiB, startup key.*, kernel wasm-simd128$/,
    );
    expect(await download(page, 'Done:')).toBe(startupKeyImage.sha256);

    // The key is gone after the run; the recovery password opens the volume again.
    await page.select('#kind', 'recoveryPassword');
    expect(await page.$eval('#secret', (e) => (e as HTMLInputElement).type)).toBe('text');
    await page.locator('#secret').fill(startupKeyImage.recoveryPassword);
    await page.click('#unlock-button');
    await page.waitForSelector('#save:not([hidden])');
    expect(await text(page, '#summary')).toMatch(/, recovery password.*, kernel wasm-simd128$/);
    expect(problems).toEqual([]);
    await close(page);
  });

  it('opens a FileVault 2 image made by macOS with its passphrase', async () => {
    const page = await openPage(false);
    await pick(page, fvault2);
    expect(await text(page, '#format')).toBe('FileVault 2');
    expect(await text(page, '#dump')).toBe(
      await nodeDump(fvault2, async (s) => describeFileVault2(await readFileVault2Header(s))),
    );
    await unlock(page, FILEVAULT2_FACTS.passphrase);
    expect(await text(page, '#summary')).toMatch(/^FileVault 2 .*160\.0 MiB, passphrase, kernel wasm-simd128$/);
    expect(await download(page, 'Done: 160.0 MiB')).toBe(FILEVAULT2_FACTS.sha256);
    expect(problems).toEqual([]);
    await close(page);
  });

  /**
   * Picks the TrueCrypt/VeraCrypt image `name`, which no format recognizes, and chooses to open it as
   * TrueCrypt/VeraCrypt with the keyboard (the offer has the focus).
   */
  async function pickTcrypt(page: Page, name: string): Promise<void> {
    await chooseFile(page, '#image', join(tcrypt, name));
    await page.waitForSelector('#named:not([hidden])');
    expect(await text(page, '#status')).toBe(
      `${name} is not a LUKS, BitLocker or FileVault 2 volume (no known signature).`,
    );
    expect(await text(page, '#error')).toBe('');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Open as TrueCrypt/VeraCrypt');
    await page.click('#named-buttons button');
    await waitStatus(page, 'Opening as TrueCrypt/VeraCrypt: type the password');
    expect(
      await page.$$eval('#header, #unlock, #tcrypt-fields', (e) => e.map((x) => (x as HTMLElement).hidden)),
    ).toEqual([true, false, false]);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('secret');
  }

  /** Fills in the password and presses Unlock; waits for the volume or an error. */
  async function unlockTcrypt(page: Page, password: string): Promise<void> {
    await page.locator('#secret').fill(password);
    await page.click('#unlock-button');
    await until(
      page,
      () => !document.querySelector<HTMLElement>('#save')!.hidden || document.querySelector('#error')!.textContent,
    );
  }

  /** The serial of the FAT file system in the downloaded plaintext, and the plaintext's SHA-256. */
  async function downloadedVolume(page: Page): Promise<{ serial: string; sha256: string; size: number }> {
    await page.click('#save');
    await waitStatus(page, 'Done:');
    const { bytes } = await downloaded(page);
    return { serial: fatSerial(bytes), sha256: sha256(bytes), size: bytes.length };
  }

  it('opens a VeraCrypt SHA-512 volume chosen as TrueCrypt/VeraCrypt: a wrong password says both possibilities; the header as tcryptDump; the FAT serial', async () => {
    const name = 'vc_1-sha512-xts-aes';
    const page = await openPage(false);
    await pickTcrypt(page, name);
    expect(await page.$$eval('#prf option', (o) => o.map((e) => (e as HTMLOptionElement).value))).toEqual([
      '',
      'ripemd160',
      'sha512',
      'whirlpool',
      'sha1',
      'sha256',
      'argon2id',
      'blake2s-256',
      'stribog512',
    ]);
    // A wrong password, with the PRF hint (one PRF, not a minute of them all).
    await page.select('#prf', 'sha512');
    await unlockTcrypt(page, 'not the password');
    expect(await text(page, '#error')).toMatch(
      /^Not unlocked: no primary header decrypts: either the passphrase, keyfiles or PIM are wrong, or the volume uses a cipher this package does not open \(Serpent, Twofish, .*\) \(tried pbkdf2-sha512 1000 iterations, pbkdf2-sha512 500000 iterations; aes-xts-plain64, aes-lrw-benbi, aes-cbc-tcw\)\. Nothing was written\.$/,
    );
    expect(await page.$$eval('#header, #run', (e) => e.map((x) => (x as HTMLElement).hidden))).toEqual([true, true]);
    expect(await downloadFolder(page)).toEqual([]);

    // The right one, every PRF tried: the search stops at SHA-512's.
    await page.select('#prf', '');
    await unlockTcrypt(page, TC_PASSWORD);
    expect(await text(page, '#error')).toBe('');
    const ref = await tcryptReference(join(tcrypt, name), { passphrase: TC_PASSWORD });
    expect(await text(page, '#format')).toBe('VeraCrypt');
    expect(await text(page, '#dump')).toBe(ref.dump);
    expect(ref.dump).toMatch(/^VERACRYPT header information\n[\s\S]*\nPBKDF2 hash:\tsha512\n/);
    expect(await text(page, '#summary')).toMatch(
      /^VeraCrypt aes-xts-plain64, 512-byte sectors, 36 KiB at 131072, primary header, pbkdf2-sha512 500000 iterations, kernel wasm-simd128$/,
    );
    expect(await downloadedVolume(page)).toEqual({ serial: 'DEAD-BABE', sha256: ref.sha256, size: ref.size });
    expect(problems).toEqual([]);
    await close(page);
  });

  it('opens a VeraCrypt volume with its password and two keyfiles, chosen one after the other (one alone does not open it)', async () => {
    const name = 'vck_1-sha512-xts-aes';
    const page = await openPage(false);
    await pickTcrypt(page, name);
    await page.select('#prf', 'sha512');
    await chooseFile(page, '#keyfiles', join(tcrypt, 'keyfile1'));
    const listed = () => page.$$eval('#keyfile-list li', (l) => l.map((e) => e.textContent));
    expect(await listed()).toEqual(['keyfile1']);
    await unlockTcrypt(page, TC_PASSWORD);
    expect(await text(page, '#error')).toMatch(
      /^Not unlocked: no primary header decrypts: either the passphrase, keyfiles or PIM are wrong/,
    );
    await chooseFile(page, '#keyfiles', join(tcrypt, 'keyfile2'));
    expect(await listed()).toEqual(['keyfile1', 'keyfile2']);
    await unlockTcrypt(page, TC_PASSWORD);
    expect(await text(page, '#error')).toBe('');
    // The keyfiles are forgotten with the password once unlocked.
    expect(await listed()).toEqual([]);
    const ref = await tcryptReference(join(tcrypt, name), {
      passphrase: TC_PASSWORD,
      keyfiles: [await readFile(join(tcrypt, 'keyfile1')), await readFile(join(tcrypt, 'keyfile2'))].map(
        (b) => new Uint8Array(b),
      ),
      prf: 'sha512',
    });
    expect(await text(page, '#dump')).toBe(ref.dump);
    expect(await downloadedVolume(page)).toEqual({ serial: 'DEAD-BABE', sha256: ref.sha256, size: ref.size });
    expect(problems).toEqual([]);
    await close(page);
  });

  it('opens the hidden volume inside a VeraCrypt volume with the hidden volume’s password', async () => {
    const name = 'vc_1-sha512-xts-aes-hidden';
    const page = await openPage(false);
    await pickTcrypt(page, name);
    await page.click('#tc-hidden');
    await page.select('#prf', 'sha512');
    await unlockTcrypt(page, TC_HIDDEN_PASSWORD);
    expect(await text(page, '#error')).toBe('');
    const ref = await tcryptReference(join(tcrypt, name), { passphrase: TC_HIDDEN_PASSWORD, hidden: true });
    expect(await text(page, '#dump')).toBe(ref.dump);
    expect(ref.dump).toMatch(/\nHeader: *\thidden at 65536 \[bytes\]\n/);
    expect(await text(page, '#summary')).toMatch(/^VeraCrypt aes-xts-plain64, .*, hidden header, pbkdf2-sha512 /);
    expect(await downloadedVolume(page)).toEqual({ serial: 'CAFE-BABE', sha256: ref.sha256, size: ref.size });
    expect(problems).toEqual([]);
    await close(page);
  });

  it('opens VeraCrypt volumes with a PIM, by the backup header, and a system partition (system encryption)', async () => {
    const cases: {
      name: string;
      set(page: Page): Promise<void>;
      password: string;
      options: TcryptOpenOptions;
      dump: RegExp;
    }[] = [
      {
        name: 'vcpim_1_1234-sha256-xts-aes',
        set: (page) => page.locator('#pim').fill('1234'),
        password: TC_PIM_PASSWORD,
        options: { pim: 1234 },
        dump: /\nIterations: *\t1249000 \(PIM 1234\)\n/,
      },
      {
        name: 'vc_1-sha512-xts-aes',
        set: (page) => page.click('#tc-backup'),
        password: TC_PASSWORD,
        options: { backup: true },
        dump: /\nHeader: *\tbackup at \d+ \[bytes\]\n/,
      },
      {
        name: 'sys_vc_1_mbr_part-sha256-xts-aes',
        set: (page) => page.click('#tc-system'),
        password: TC_PASSWORD,
        options: { system: true },
        dump: /\nHeader: *\tsystem at 31744 \[bytes\]\n/,
      },
    ];
    for (const c of cases) {
      const page = await openPage(false);
      await pickTcrypt(page, c.name);
      await c.set(page);
      await page.select('#prf', /sha512/.test(c.name) ? 'sha512' : 'sha256');
      await unlockTcrypt(page, c.password);
      expect(await text(page, '#error'), c.name).toBe('');
      const ref = await tcryptReference(join(tcrypt, c.name), { passphrase: c.password, ...c.options });
      expect(await text(page, '#dump'), c.name).toBe(ref.dump);
      expect(ref.dump, c.name).toMatch(c.dump);
      expect(await downloadedVolume(page), c.name).toEqual({ serial: 'DEAD-BABE', sha256: ref.sha256, size: ref.size });
      expect(problems, c.name).toEqual([]);
      await close(page);
    }
  });

  it('Cancel during the search of TrueCrypt/VeraCrypt derivations ends the worker; the next unlock opens in a new one', async () => {
    const name = 'vc_1-sha512-xts-aes';
    const page = await openPage(false);
    await pickTcrypt(page, name);
    // A wrong password and no hint: every derivation runs, the status line says which has started.
    await page.locator('#secret').fill('not the password');
    await page.click('#unlock-button');
    await waitStatus(page, 'Unlocking as TrueCrypt/VeraCrypt… trying ');
    // VeraCrypt's RIPEMD-160 count starts once WebCrypto's derivations are done: none left running to wait for.
    await until(page, () =>
      document.querySelector('#status')!.textContent!.includes('pbkdf2-ripemd160, 655331 iterations'),
    );
    expect(await text(page, '#status')).toMatch(
      /^Unlocking as TrueCrypt\/VeraCrypt… trying pbkdf2-ripemd160, 655331 iterations \(derivation \d+; Cancel stops the search\)$/,
    );
    // The costly derivations run side by side, one per core, each in a key derivation worker made by the
    // page's worker (its own counter still says one worker): the browser lists them beside it.
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    const during = await atLeastWorkers(page, 1 + Math.min(2, cores));
    expect(await workers(page)).toMatchObject({ created: 1, live: 1 });
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('cancel');
    await page.keyboard.press('Enter'); // on Cancel
    await waitStatus(page, 'Cancelled: the volume was not unlocked.');
    expect(await text(page, '#error')).toBe('');
    expect(await workers(page)).toMatchObject({ created: 1, live: 0 });
    // Terminating the page's worker ended its key derivation workers with it.
    await browserWorkers(page, 0);
    expect(
      await page.$$eval('#unlock, #tcrypt-fields, #cancel, #run', (e) => e.map((x) => (x as HTMLElement).hidden)),
    ).toEqual([false, false, true, true]);

    // A new worker reads the image again (still not detected: ignored, the page is past that) and opens it;
    // SHA-512 is WebCrypto's, so it makes no key derivation worker.
    await page.select('#prf', 'sha512');
    await unlockTcrypt(page, TC_PASSWORD);
    expect(await text(page, '#error')).toBe('');
    expect(await text(page, '#format')).toBe('VeraCrypt');
    expect(await workers(page)).toMatchObject({ created: 2, live: 1 });
    await browserWorkers(page, 1, during);
    expect((await downloadedVolume(page)).serial).toBe('DEAD-BABE');
    expect(problems).toEqual([]);
    await close(page);
  });

  it.each([
    // RIPEMD-160 is not WebCrypto's: derived in a worker of the page's worker, which the search ended
    { name: 'tc_2-ripemd160-lrw-aes', prf: 'ripemd160', mode: 'aes-lrw-benbi', kdfWorkers: true },
    // SHA-1 is WebCrypto's: no key derivation worker
    { name: 'tc_1-sha1-cbc-aes', prf: 'sha1', mode: 'aes-cbc-tcw', kdfWorkers: false },
  ])('opens a TrueCrypt 1.0–4.3 volume: $name as $mode (key derivation workers: $kdfWorkers)', async (c) => {
    const page = await openPage(false);
    await pickTcrypt(page, c.name);
    await page.select('#prf', c.prf);
    await unlockTcrypt(page, TC_PASSWORD);
    expect(await text(page, '#error')).toBe('');
    const ref = await tcryptReference(join(tcrypt, c.name), { passphrase: TC_PASSWORD, prf: c.prf as TcryptPrf });
    expect(await text(page, '#format')).toBe('TrueCrypt');
    expect(await text(page, '#dump')).toBe(ref.dump);
    expect(await text(page, '#summary')).toMatch(
      new RegExp(`^TrueCrypt ${c.mode}, 512-byte sectors, .*pbkdf2-${c.prf} `),
    );
    if (c.kdfWorkers) {
      expect(await workers(page)).toMatchObject({ created: 1, live: 1 });
      expect(workerTargets.get(page)!.length).toBeGreaterThan(1);
      await browserWorkers(page, 1);
    } else {
      expect(workerTargets.get(page)!.length).toBe(1);
    }
    expect(await downloadedVolume(page)).toEqual({ serial: 'DEAD-BABE', sha256: ref.sha256, size: ref.size });
    expect(problems).toEqual([]);
    await close(page);
  });

  it('runs a search with no PRF hint in key derivation workers: the LRW volume opens by its RIPEMD-160 count', async () => {
    const name = 'tc_2-ripemd160-lrw-aes';
    const page = await openPage(false);
    await pickTcrypt(page, name);
    await unlockTcrypt(page, TC_PASSWORD);
    expect(await text(page, '#error')).toBe('');
    expect(await text(page, '#summary')).toMatch(/^TrueCrypt aes-lrw-benbi, .*pbkdf2-ripemd160 /);
    // One worker made by the page; the others the browser reported were made inside it for the derivations.
    expect(await workers(page)).toMatchObject({ created: 1, live: 1 });
    const targets = workerTargets.get(page)!;
    expect(targets.length).toBeGreaterThan(1);
    expect(targets.every((u) => u.startsWith('blob:'))).toBe(true);
    // Made from the inline code, not from the file the build also emits for @x/tcrypt's default URL.
    expect(server.requests.filter((r) => r.includes('kdf-worker'))).toEqual([]);
    await browserWorkers(page, 1);
    expect((await downloadedVolume(page)).serial).toBe('DEAD-BABE');
    expect(problems).toEqual([]);
    await close(page);
  });

  it('keeps its word on privacy: no network from the page or its worker; fits a 375 px wide screen', async () => {
    const page = await openPage(false, { width: 375, height: 800 });
    await pick(page, SAMPLE.path);
    expect(await text(page, '.privacy')).toMatch(/never leave this machine/);
    const csp = await page.$eval('meta[http-equiv="Content-Security-Policy"]', (e) => e.getAttribute('content'));
    expect(csp).toContain("connect-src 'none'");
    const tryFetch = (url: string) =>
      fetch(url).then(
        () => 'fetched',
        (e: Error) => e.name,
      );
    const url = `${server.origin}/index.html?fetched`; // the page's own origin, which a server would log
    expect(await page.evaluate(tryFetch, url)).toBe('TypeError');
    // The page's one worker is a blob: worker, so it runs under the page's policy. A blob: worker made here
    // in the page runs under the same policy and cannot fetch either. (It stands in for the page's worker,
    // in which Firefox's WebDriver BiDi cannot run code.)
    const workers = page.workers();
    expect(workers.length).toBe(1);
    expect(workers[0].url()).toMatch(/^blob:/);
    expect(await page.evaluate(fetchFromBlobWorker, url)).toBe('TypeError');
    // Neither request reached the server.
    expect(server.requests.filter((r) => r.includes('fetched'))).toEqual([]);
    // No sideways scrolling on a phone-sized screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await close(page);
  });
});
