// XCTR, HCTR2's keystream (ePrint 2021/1441 §3: block i, from 1, is E_K(S ^ bin(i))), through the
// building block this package uses, `ctrXor(…, 'xctr')` of @x/ctr/hazmat: the HCTR2 authors' XCTR vectors
// and the Linux testmgr xctr(aes) vectors, all key sizes, on every kernel (its `ctr` fast path where it has
// one) and on its block primitives alone (@x/ctr's generic keystream).
import { readFileSync } from 'node:fs';
import { chooseKernel } from '@x/aes-kernels/hazmat';
import { expandKey } from '@x/aes-keyschedule';
import { CtrScratch, ctrXor } from '@x/ctr/hazmat';
import { kernels } from '@x/hctr2';
import { blocksOnly, hex, refXctr, testedKernels, toHex } from '@x/testkit';
import { describe, expect, it } from 'vitest';

interface Vector {
  key: string;
  iv: string;
  ptext: string;
  ctext: string;
}
const load = (name: string): Vector[] =>
  JSON.parse(readFileSync(new URL(`./vectors/${name}`, import.meta.url), 'utf8')).vectors;

const FILES: [string, number][] = [
  ['google_hctr2_XCTR_AES128.json', 50],
  ['google_hctr2_XCTR_AES192.json', 40],
  ['google_hctr2_XCTR_AES256.json', 90],
  ['linux_testmgr_xctr_aes.json', 18],
];

for (const name of testedKernels(kernels())) {
  for (const kernel of [chooseKernel('@x/hctr2', name), blocksOnly(chooseKernel('@x/hctr2', name))]) {
    describe(`XCTR through ctrXor on ${kernel.name}`, () => {
      for (const [file, count] of FILES) {
        it(`${file}: ${count} vectors, both ways, in place`, () => {
          const vectors = load(file);
          expect(vectors).toHaveLength(count);
          const scratch = new CtrScratch(kernel.parallelBlocks);
          for (const [i, v] of vectors.entries()) {
            const schedule = expandKey(hex(v.key));
            const k = kernel.load(schedule);
            schedule.wipe();
            const out = new Uint8Array(v.ptext.length / 2);
            ctrXor(k, scratch, out, hex(v.ptext), hex(v.iv), 'xctr');
            expect(toHex(out), `#${i}`).toBe(v.ctext);
            ctrXor(k, scratch, out, out, hex(v.iv), 'xctr');
            expect(toHex(out), `#${i} back`).toBe(v.ptext);
            k.dispose();
          }
        });
      }

      it('the test model of XCTR (refXctr of @x/testkit) gives the vectors too', () => {
        for (const [file] of FILES) {
          for (const v of load(file)) {
            const pt = hex(v.ptext);
            const ks = refXctr(hex(v.key), hex(v.iv), pt.length);
            expect(toHex(pt.map((b, j) => b ^ ks[j]))).toBe(v.ctext);
          }
        }
      });
    });
  }
}
