/**
 * What @x/ctr is to the stream conformance suite of @x/testkit (`streamConformance`): NIST SP 800-38A
 * F.5's known answers, node:crypto `aes-*-ctr` as the reference, and the counter block a 128-bit
 * big-endian integer (where a message goes on in the next call).
 */
import { createCipheriv } from 'node:crypto';
import { type Ctr, newCtr } from '@x/ctr';
import {
  SP800_38A_CTR,
  SP800_38A_CTR_IV,
  SP800_38A_PLAINTEXT,
  type StreamMode,
  type StreamTarget,
  streamConformance,
  type Suite,
} from '@x/testkit';

/** `iv` + `blocks`, modulo 2^128, every byte big-endian. */
function advance(iv: Uint8Array, blocks: number): Uint8Array {
  const next = new Uint8Array(16);
  let carry = blocks;
  for (let i = 15; i >= 0; i--) {
    carry += iv[i];
    next[i] = carry & 0xff;
    carry = Math.floor(carry / 256);
  }
  return next;
}

/** @x/ctr for `streamConformance`. @example `streamConformance(target, { describe, it }, CTR)` */
export const CTR: StreamMode<Ctr> = {
  prefix: '@x/ctr',
  newCipher: newCtr,
  ref: (key, iv, data) => new Uint8Array(createCipheriv(`aes-${key.length * 8}-ctr`, key, iv).update(data)),
  advance,
  knownAnswers: {
    title: 'NIST SP 800-38A F.5.1-F.5.6: CTR-AES128/192/256, both directions',
    plaintext: SP800_38A_PLAINTEXT,
    iv: SP800_38A_CTR_IV,
    vectors: SP800_38A_CTR,
  },
};

/**
 * The stream suite on one target with @x/ctr's description (what `test/ctr.test.ts` and the arm64 run of
 * @x/aes-native-arm64 call).
 *
 * @example
 * ```ts
 * ctrConformance({ name: 'portable', make: (key) => newCtr(key, { kernel: 'portable' }) }, { describe, it });
 * ```
 */
export function ctrConformance(target: StreamTarget<Ctr>, suite: Suite, options: { runs?: number } = {}): void {
  streamConformance(target, suite, CTR, options);
}
