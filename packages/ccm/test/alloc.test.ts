// No allocation per call on the hot paths (seal and open, joined and detached, short and long messages,
// the same buffers call after call), on every kernel and on its block primitives alone (see @x/testkit's
// allocationReport). The views a call needs of caller buffers (the whole blocks the CBC-MAC reads where
// they lie, the ciphertext's chunks) are made when the buffer changes, not per call.
import { randomBytes } from 'node:crypto';
import { chooseKernel } from '@x/aes-kernels/hazmat';
import { type Ccm, kernels, newCcm } from '@x/ccm';
import { allocationReport, blocksOnly, testedKernels } from '@x/testkit';
import { describe, expect, it } from 'vitest';
import { newCcmOn } from '../src/ccm.js';

// Each kernel runs the short paths; the long ones (more blocks per call) on every kernel but the slow
// portable one, unless it is the only one. The block primitives alone (no cbcEncrypt, no ctr: the
// mode's generic code, the same whatever kernel is under it) run every path on the first kernel.
// 10 000 calls still show a 16-byte allocation per call (160 KB) on the portable kernel.
const usable = testedKernels(kernels());
const targets: { name: string; make: (key: Uint8Array) => Ccm; calls: number; long: boolean; chunks: boolean }[] =
  usable.flatMap((kernel, i) => {
    const all = [
      {
        name: kernel,
        make: (key: Uint8Array) => newCcm(key, { kernel }),
        calls: kernel === 'portable' ? 10_000 : 50_000,
        long: kernel !== 'portable' || usable.length === 1,
        chunks: i === 0,
      },
    ];
    if (i === 0) {
      const generic = blocksOnly(chooseKernel('@x/ccm', kernel));
      all.push({
        name: generic.name,
        make: (key: Uint8Array) => newCcmOn(generic, key),
        calls: 20_000,
        long: true,
        chunks: false,
      });
    }
    return all;
  });

for (const { name, make, calls, long, chunks } of targets) {
  describe(`no allocation per call on ${name}`, () => {
    const g = make(randomBytes(32));
    const nonce = randomBytes(12);
    const aad = randomBytes(13);
    const paths: Record<string, () => void> = {};
    let chunkPath = '';
    // 44 bytes, no AAD: BitLocker's key blobs, the short paths, joined and detached.
    {
      const plain = randomBytes(44);
      const sealed = new Uint8Array(60);
      const opened = new Uint8Array(44);
      const ct = new Uint8Array(44);
      const tag = new Uint8Array(16);
      g.seal(sealed, nonce, plain);
      paths['seal 44 bytes'] = () => g.seal(sealed, nonce, plain);
      paths['open 44 bytes'] = () => g.open(opened, nonce, sealed);
      paths['sealDetached and openDetached 44 bytes in turn, with AAD'] = () => {
        g.sealDetached(ct, tag, nonce, plain, aad);
        g.openDetached(opened, nonce, ct, tag, aad);
      };
    }
    // The long paths with AAD: the CBC-MAC where the plaintext lies, open's two passes; in place.
    if (long) {
      const plain = randomBytes(600);
      const sealed = new Uint8Array(616);
      const opened = new Uint8Array(600);
      paths['seal and open 600 bytes in turn'] = () => {
        g.seal(sealed, nonce, plain, aad);
        g.open(opened, nonce, sealed, aad);
      };
      const buf = randomBytes(616);
      const inPlace = buf.subarray(0, 600);
      paths['seal 600 bytes in place'] = () => g.seal(buf, nonce, inPlace, aad);
    }
    // Two chunks: open's view of each chunk of the ciphertext.
    if (chunks) {
      const plain = randomBytes(4500);
      const sealed = new Uint8Array(4516);
      const opened = new Uint8Array(4500);
      chunkPath = 'seal and open 4500 bytes in turn';
      paths[chunkPath] = () => {
        g.seal(sealed, nonce, plain, aad);
        g.open(opened, nonce, sealed, aad);
      };
    }
    for (const [path, call] of Object.entries(paths)) {
      // 20 000 calls of 9 KB in and out: enough to show 16 bytes a call (320 KB).
      const n = path === chunkPath ? 20_000 : calls;
      it(path, async () => expect(await allocationReport(call, n)).toBeUndefined());
    }
  });
}
