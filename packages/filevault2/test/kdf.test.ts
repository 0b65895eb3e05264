// PBKDF2-HMAC-SHA256 on both of its paths (WebCrypto, and @noble/hashes when there is no WebCrypto or the
// passphrase is empty): RFC 7914 §11's PBKDF2-HMAC-SHA256 vectors, and node:crypto's pbkdf2Sync.
import { pbkdf2Sync } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pbkdf2Sha256 } from '../src/kdf.js';
import { toHex } from './helpers.js';

const enc = (s: string) => new TextEncoder().encode(s);

for (const path of ['WebCrypto', '@noble/hashes'] as const) {
  describe(`PBKDF2-HMAC-SHA256 through ${path}`, () => {
    if (path === '@noble/hashes') {
      afterEach(() => vi.unstubAllGlobals());
    }
    const setup = () => {
      if (path === '@noble/hashes') {
        vi.stubGlobal('crypto', undefined);
        expect(globalThis.crypto).toBeUndefined();
      } else expect(globalThis.crypto?.subtle).toBeDefined();
    };

    it('RFC 7914 §11 test vectors', async () => {
      setup();
      expect(toHex(await pbkdf2Sha256(enc('passwd'), enc('salt'), 1, 64))).toBe(
        '55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783',
      );
      expect(toHex(await pbkdf2Sha256(enc('Password'), enc('NaCl'), 80000, 64))).toBe(
        '4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d',
      );
    });

    it('equals node:crypto pbkdf2Sync, empty passphrases included', async () => {
      setup();
      await fc.assert(
        fc.asyncProperty(
          fc.uint8Array({ maxLength: 80 }),
          fc.uint8Array({ minLength: 16, maxLength: 16 }),
          fc.integer({ min: 1, max: 300 }),
          async (pass, salt, c) => {
            const want = pbkdf2Sync(pass, salt, c, 16, 'sha256').toString('hex');
            expect(toHex(await pbkdf2Sha256(pass, salt, c, 16))).toBe(want);
          },
        ),
        { numRuns: 40 },
      );
    });
  });
}
