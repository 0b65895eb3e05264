// What the end-to-end test and the screenshot script share: the page built by Vite into a folder, that
// folder served by a plain static server (no headers beyond the content type, as any static host), and
// the sample volume that `npm start` opens.
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** apps/web. */
export const APP_DIR = fileURLToPath(new URL('..', import.meta.url));

/** Builds the page with the app's own Vite configuration into a new temporary folder; returns it. */
export async function buildPage(): Promise<{ dir: string; remove(): Promise<void> }> {
  const { build } = await import('vite');
  const dir = await mkdtemp(join(tmpdir(), 'x-web-dist-'));
  await build({
    root: APP_DIR,
    configFile: join(APP_DIR, 'vite.config.ts'),
    mode: 'production',
    logLevel: 'warn',
    build: { outDir: dir, emptyOutDir: true },
  });
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/** Serves the files of `dir` on 127.0.0.1 (a free port); `/` is index.html. `requests`: every URL asked for. */
export async function serve(dir: string): Promise<{ origin: string; requests: string[]; close(): Promise<void> }> {
  const root = normalize(dir) + sep;
  const requests: string[] = [];
  const server = createServer(async (req, res) => {
    requests.push(req.url ?? '/');
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = normalize(join(root, path === '/' ? 'index.html' : path));
    if (!file.startsWith(root)) return void res.writeHead(403).end();
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const fixtures = join(dirname(createRequire(import.meta.url).resolve('@x/luks/package.json')), 'test', 'fixtures');

/** The sample LUKS2 volume of `npm start` (packages/luks/test/fixtures): its path, passphrase, plaintext. */
export const SAMPLE = {
  path: join(fixtures, 'sample-luks2.img'),
  passphrase: readFileSync(join(fixtures, 'sample.passphrase'), 'utf8'),
  /** sample.txt, then zeros to the payload's 64 KiB. */
  plaintext(): Uint8Array {
    const text = readFileSync(join(fixtures, 'sample.txt'));
    const plain = new Uint8Array(64 * 1024);
    plain.set(text);
    return plain;
  },
};
