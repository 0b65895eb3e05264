// Shared by the tests: comparing bytes, and a volume against the container it was opened on. (The x-luks command, in @x/cli, is tested there, on the same kinds of
// volumes: @x/containers makes them for both.)

import { expect } from 'vitest';
import type { LuksVolume } from '../src/index.js';

export const sameBytes = (a: Uint8Array, b: Uint8Array) =>
  Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));

/** `v`, opened on container `c`, has its layout and reads back its original data whole. */
export async function expectContainer(
  v: LuksVolume,
  c: { sectorSize: number; payloadOffset: number; payloadSize: number; original: Uint8Array },
): Promise<void> {
  expect([v.sectorSize, v.payloadOffset, v.payloadSize]).toEqual([c.sectorSize, c.payloadOffset, c.payloadSize]);
  const plain = new Uint8Array(v.payloadSize);
  await v.read(plain, 0);
  expect(sameBytes(plain, c.original)).toBe(true);
}
