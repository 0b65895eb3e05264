// "No allocation per call" (see @x/testkit's allocationReport): once the IV scratch has grown to a call's
// size, more calls of the same size allocate nothing and start no GC (IV generation, tweak encryption and
// the kernel included), in both directions.
import { randomBytes } from 'node:crypto';
import { allocationReport } from '@x/testkit';
import { expect, it } from 'vitest';
import { newSectorCipher } from '../src/index.js';

it.each([
  ['aes-cbc-essiv:sha256', 32, 512],
  ['aes-cbc-plain64', 32, 4096],
  ['aes-xts-plain64', 64, 512],
  ['aes-hctr2-plain64', 32, 4096],
  ['xchacha12,aes-adiantum-plain64', 32, 4096],
  ['aes-ecb', 16, 512],
  ['aes-cbc-elephant', 32, 512],
  ['aes-cbc-elephant', 64, 4096],
])('%s: allocates nothing per call', async (spec, keyLength, sectorSize) => {
  const c = newSectorCipher(spec, randomBytes(keyLength), { sectorSize });
  const buf = new Uint8Array(Math.max(sectorSize, 2048)); // a few sectors: the question is per call
  let sector = 0;
  expect(await allocationReport(() => c.decrypt(buf, buf, sector++), 20_000)).toBeUndefined();
  expect(await allocationReport(() => c.encrypt(buf, buf, sector++), 20_000)).toBeUndefined();
  c.dispose();
});

// aes-cbc-elephant on a buffer that is not 4-byte aligned: the diffusers' byte-by-byte path, and the
// exact-length view of a dst longer than src that the CBC call gets.
it('aes-cbc-elephant, unaligned and longer dst: allocates nothing per call', async () => {
  const c = newSectorCipher('aes-cbc-elephant', randomBytes(64), { sectorSize: 512 });
  const backing = new Uint8Array(2048 + 8);
  const dst = backing.subarray(1, 2048 + 5);
  const src = backing.subarray(1, 2048 + 1);
  let sector = 0;
  expect(await allocationReport(() => c.decrypt(dst, src, sector++), 20_000)).toBeUndefined();
  expect(await allocationReport(() => c.encrypt(dst, src, sector++), 20_000)).toBeUndefined();
  c.dispose();
});
