// The Argon2id images of VeraCrypt 1.26.27: the default cost (PIM 12: 6 passes over 416 MiB) and PIM 8
// (5 passes, 288 MiB), and PIM 33 (15 passes over 1 GiB) on the machine's Argon2 (hash-wasm on Node 20,
// tens of seconds), opened with the PRF hint; a memory bound below the cost refuses it at once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { argon2Cost, HeaderError, openTcrypt } from '../src/index.js';
import { casesOf, extractImages, fatSerial } from './images.js';

const { dir, remove } = extractImages();
afterAll(remove);

describe('Argon2id', () => {
  it('costs by PIM as VeraCrypt computes them', () => {
    expect(argon2Cost(12)).toEqual({ time: 6, memory: 425_984 });
    expect(argon2Cost(8)).toEqual({ time: 5, memory: 294_912 });
    expect(argon2Cost(33)).toEqual({ time: 15, memory: 1_048_576 });
  });
  it.each(['vc_1-argon2id-xts-aes', 'vcpim_1_8-argon2id-xts-aes', 'vcpim_1_33-argon2id-xts-aes'])(
    '%s',
    async (name) => {
      const [c] = casesOf(name);
      const v = await openTcrypt(new Uint8Array(readFileSync(join(dir, name))), { ...c.options(dir), prf: 'argon2id' });
      try {
        expect(v.header?.kdf).toMatchObject({ prf: 'argon2id', parallelism: 1 });
        const boot = new Uint8Array(512);
        await v.read(boot, 0);
        expect(fatSerial(boot)).toBe('DEAD-BABE');
      } finally {
        v.close();
      }
    },
  );
  it('a cost above maxMemory is refused before any work, naming the bound', async () => {
    const img = new Uint8Array(readFileSync(join(dir, 'vc_1-argon2id-xts-aes')));
    const e = await openTcrypt(img, { passphrase: 'aaaaaaaaaaaa', prf: 'argon2id', maxMemory: 65_536 }).catch((x) => x);
    expect(e).toBeInstanceOf(HeaderError);
    expect(e.message).toMatch(/memory 425984 KiB is above maxMemory, 65536 KiB \(raise options\.maxMemory/);
  });
});
