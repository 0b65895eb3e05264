import type { AesKernel, AesKeyedKernel } from '@x/aes-kernels/hazmat';
import { chooseKernel } from '@x/aes-kernels/hazmat';
import { kernels, newCcm } from '@x/ccm';
import type { KeySchedule } from '@x/aes-keyschedule';
import { blocksOnly, random, testedKernels, toHex } from '@x/testkit';
import { describe, expect, it } from 'vitest';
import { newCcmOn } from '../src/ccm.js';
import { ccmConformance, knownAnswers } from './conformance.js';
import { refOpen, refSeal } from './reference.js';

// Every conformance test, once per kernel this runtime can run (its `cbcEncrypt` and `ctr` fast paths
// where it has them); then again on each kernel's block primitives alone, where the keystream is
// @x/ctr's generic one and the CBC-MAC one `encryptBlocks` call per block (the input rules, the mode's
// own code whichever path runs, once per kernel). The suite is @x/testkit's AEAD suite, shared with @x/gcm.
const vectorsDir = new URL('./vectors/', import.meta.url);
for (const kernel of testedKernels(kernels())) {
  const parallelBlocks = chooseKernel('@x/ccm', kernel).parallelBlocks;
  ccmConformance(
    { name: kernel, parallelBlocks, make: (key, options) => newCcm(key, { ...options, kernel }) },
    { describe, it },
  );
  const generic = blocksOnly(chooseKernel('@x/ccm', kernel));
  ccmConformance(
    { name: generic.name, parallelBlocks, make: (key, options) => newCcmOn(generic, key, options) },
    { describe, it },
    // One block per kernel call on the portable kernel is slow: 256 KiB is its longest message.
    { inputRules: false, runs: 50, largeMessage: kernel === 'portable' ? (1 << 18) + 5 : undefined },
  );
}

describe('the test vectors and the reference', () => {
  it('every known-answer vector is also what node:crypto computes (the transcription is checked)', () => {
    const vectors = knownAnswers(vectorsDir);
    expect(vectors.length).toBe(37);
    for (const v of vectors) {
      const key = Buffer.from(v.key, 'hex'),
        nonce = Buffer.from(v.nonce, 'hex'),
        plain = Buffer.from(v.plaintext, 'hex');
      const t = v.tag.length / 2;
      const sealed = refSeal(key, nonce, plain, v.aadBytes, t);
      expect(toHex(sealed), `${v.source} ${v.name}`).toBe(v.ciphertext + v.tag);
      expect(toHex(refOpen(key, nonce, sealed, v.aadBytes, t)!)).toBe(v.plaintext);
    }
  });
});

describe('dispose', () => {
  it('disposes the keyed kernel (its round keys) once, on every kernel', () => {
    for (const name of testedKernels(kernels())) {
      const base = chooseKernel('@x/ccm', name);
      let disposed = 0;
      const counting: AesKernel = {
        name: base.name,
        parallelBlocks: base.parallelBlocks,
        isAvailable: () => true,
        load(schedule: KeySchedule) {
          const k = base.load(schedule);
          const counted: AesKeyedKernel = {
            rounds: k.rounds,
            encryptBlocks: (d, s) => k.encryptBlocks(d, s),
            decryptBlocks: (d, s) => k.decryptBlocks(d, s),
            dispose: () => {
              disposed++;
              k.dispose();
            },
          };
          if (k.cbcEncrypt) counted.cbcEncrypt = (d, s, iv) => k.cbcEncrypt!(d, s, iv);
          if (k.ctr) counted.ctr = (d, s, iv, c) => k.ctr!(d, s, iv, c);
          return counted;
        },
      };
      const key = random(32);
      const g = newCcmOn(counting, key);
      const nonce = random(12);
      const plain = random(600);
      const sealed = new Uint8Array(616);
      g.seal(sealed, nonce, plain);
      expect(toHex(sealed)).toBe(toHex(refSeal(key, nonce, plain, new Uint8Array(0))));
      expect(disposed).toBe(0);
      g.dispose();
      g.dispose();
      expect(disposed, name).toBe(1);
    }
  });
});
