/**
 * A real npm registry on 127.0.0.1 for the length of a test: Verdaccio, its storage and configuration in a
 * folder of the caller's. `@x/*` is served only from what is published to it; every other package is
 * fetched through it from the registry npm is set up with on this machine (`npm config get registry`).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';

export interface Registry {
  /** `http://127.0.0.1:PORT/` */
  readonly url: string;
  /** A token that may publish, as npm's `_authToken` takes it. */
  readonly token: string;
  /** The folder of the stored packages: `<storage>/@x/cbc/cbc-0.1.0.tgz`. */
  readonly storage: string;
  /** The lines an `.npmrc` needs to install from this registry (`publish`: and to publish to it). */
  npmrc(publish?: boolean): string;
  stop(): Promise<void>;
}

/** A port nobody listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for the registry to answer its ping; a hang guard only (minutes), never a speed check. */
async function waitUp(url: string, child: ChildProcess, log: string): Promise<void> {
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited with ${child.exitCode}; see ${log}`);
    try {
      if ((await fetch(`${url}-/ping`)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  throw new Error(`verdaccio did not answer on ${url} within 5 minutes; see ${log}`);
}

export async function startRegistry(dir: string): Promise<Registry> {
  mkdirSync(dir, { recursive: true });
  // The registry npm would use here, asked from outside the repository: inside a workspace folder npm
  // turns on its workspace mode, where `npm config` refuses to run (ENOWORKSPACES).
  const upstream = execFileSync('npm', ['config', 'get', 'registry'], { cwd: dir, encoding: 'utf8' }).trim();
  const storage = path.join(dir, 'storage');
  const config = path.join(dir, 'config.yaml');
  const log = path.join(dir, 'verdaccio.log');
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(storage)}`,
      'auth:',
      '  htpasswd:',
      `    file: ${JSON.stringify(path.join(dir, 'htpasswd'))}`,
      '    max_users: 1',
      'uplinks:',
      '  upstream:',
      `    url: ${JSON.stringify(upstream)}`,
      '    timeout: 120s',
      'packages:',
      "  '@x/*':",
      '    access: $all',
      '    publish: $authenticated',
      "  '**':",
      '    access: $all',
      '    proxy: upstream',
      'web:',
      '  enable: false',
      'middlewares:',
      '  audit:',
      '    enabled: true',
      'log: { type: stdout, format: json, level: warn }',
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const bin = createRequire(import.meta.url).resolve('verdaccio/bin/verdaccio');
  const child = spawn(process.execPath, [bin, '--config', config, '--listen', `127.0.0.1:${port}`], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = createWriteStream(log);
  child.stdout?.pipe(out);
  child.stderr?.pipe(out);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(10_000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  };
  try {
    await waitUp(url, child, log);
    const user = 'release';
    const response = await fetch(`${url}-/user/org.couchdb.user:${user}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: user, password: `x-${port}-${Date.now()}` }),
    });
    const { token } = (await response.json()) as { token?: string };
    if (!response.ok || !token) throw new Error(`verdaccio refused the user: HTTP ${response.status}`);
    const host = url.replace(/^http:/, '');
    return {
      url,
      token,
      storage,
      npmrc: (publish = false) => `registry=${url}\n${publish ? `${host}:_authToken=${token}\n` : ''}`,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
