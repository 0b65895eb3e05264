/**
 * The kernel suite's section for the optional fast paths (`AesFastPaths`, hctr2 aside): known answers
 * through each CBC and XTS path the kernel has (SP 800-38A F.2, IEEE 1619 Annex B vector 1), every fast
 * path at every length and sector layout against node:crypto, or a test saying the kernel lacks it, and
 * identical sectors giving identical output in every lane.
 */
import { assertBytes, hex } from './bytes.js';
import { input, type KernelContext, load, METHODS, methodTests, op } from './kernel-operations.js';
import { keyPair, refEcb } from './reference.js';
import { IEEE1619_VECTOR1, SP800_38A_CBC, SP800_38A_IV, SP800_38A_PLAINTEXT } from './vectors.js';

/** The fast paths' known answers, their tests at every input, and identical sectors. */
export function fastPathTests(ctx: KernelContext): void {
  const { kernel, p, present } = ctx;
  const { it } = ctx.suite;
  const cbcPaths = present.filter((m) => m.startsWith('cbc'));
  if (cbcPaths.length > 0) {
    it(`NIST SP 800-38A F.2.1-F.2.6 (CBC-AES128/192/256) through ${cbcPaths.join(', ')}`, () => {
      const pt = hex(SP800_38A_PLAINTEXT),
        iv = hex(SP800_38A_IV);
      for (const v of SP800_38A_CBC) {
        const k = load(kernel, hex(v.key));
        const out = new Uint8Array(64);
        if (k.cbcEncrypt) {
          k.cbcEncrypt(out, pt, iv);
          assertBytes(out, hex(v.ciphertext), 'cbcEncrypt');
        }
        if (k.cbcEncryptSectors) {
          k.cbcEncryptSectors(out, pt, 64, iv);
          assertBytes(out, hex(v.ciphertext), 'cbcEncryptSectors, one sector');
        }
        if (k.cbcDecryptSectors) {
          k.cbcDecryptSectors(out, hex(v.ciphertext), 64, iv);
          assertBytes(out, pt, 'cbcDecryptSectors, one chain');
        }
        k.dispose();
      }
    });
  }

  const xtsPaths = present.filter((m) => m.startsWith('xts'));
  if (xtsPaths.length > 0) {
    it(`IEEE 1619 Annex B vector 1 (XTS-AES-128, key1 = key2 = 0) through ${xtsPaths.join(', ')}`, () => {
      const v = IEEE1619_VECTOR1;
      const t = refEcb(true, hex(v.key2), hex(v.sequence)); // T = E_K2(i), IEEE 1619 §5.3.1
      const k = load(kernel, hex(v.key1));
      const out = new Uint8Array(32);
      if (k.xtsEncrypt) {
        k.xtsEncrypt(out, hex(v.plaintext), 32, t);
        assertBytes(out, hex(v.ciphertext), 'xtsEncrypt');
      }
      if (k.xtsDecrypt) {
        k.xtsDecrypt(out, hex(v.ciphertext), 32, t);
        assertBytes(out, hex(v.plaintext), 'xtsDecrypt');
      }
      k.dispose();
    });
  }

  for (const m of METHODS) if (m !== 'encryptBlocks' && m !== 'decryptBlocks') methodTests(ctx, m);

  const unitPaths = present.filter((m) => op(m).kind === 'units');
  if (unitPaths.length > 0) {
    it(`identical sectors with identical IVs or tweaks come out identical in every lane and the remainder (${unitPaths.join(', ')})`, () => {
      const sectors = 2 * p + 3,
        size = 16 * (p + 1);
      for (const m of unitPaths) {
        const o = op(m);
        const [key1, key2] = keyPair(32);
        const one = input(o, p + 1);
        const src = new Uint8Array(size * sectors),
          ivs = new Uint8Array(16 * sectors);
        for (let s = 0; s < sectors; s++) {
          src.set(one.src, s * size);
          ivs.set(one.side, 16 * s);
        }
        const want = o.want({ key1, key2 }, one);
        const k = load(kernel, key1);
        o.call(k, src, src, ivs, size);
        for (let s = 0; s < sectors; s++)
          assertBytes(src.subarray(s * size, (s + 1) * size), want, `${m}, sector ${s}`);
        k.dispose();
      }
    });
  }
}
