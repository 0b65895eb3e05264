// The checksum of Core Storage blocks (libfvde, "Checksum algorithms", value 1): CRC-32C, the Castagnoli
// polynomial 0x1edc6f41 (reflected: 0x82f63b78), started from the block's own "initial value" field
// (0xffffffff) and without the final XOR — the "weak" CRC-32C. Each block stores the checksum in its
// bytes 0…3 and the initial value in 4…7; the checksum covers everything after them.
import { u32le } from '@x/disk-format';

const TABLE = /* @__PURE__ */ (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32C of `data` from `seed`, without the final XOR (the form Core Storage stores). */
export function crc32cWeak(data: Uint8Array, seed: number): number {
  let c = seed >>> 0;
  for (let i = 0; i < data.length; i++) c = TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return c >>> 0;
}

/**
 * Checks a block's stored CRC-32C (bytes 0…3) against the rest of it from the stored initial value
 * (bytes 4…7, which must be 0xffffffff); returns what is wrong, or undefined.
 */
export function checksumProblem(block: Uint8Array): string | undefined {
  const seed = u32le(block, 4);
  if (seed !== 0xffffffff) return `its checksum initial value is 0x${seed.toString(16)}, not 0xffffffff`;
  const stored = u32le(block, 0),
    computed = crc32cWeak(block.subarray(8), seed);
  if (stored !== computed)
    return `its checksum does not match (stored 0x${stored.toString(16)}, computed 0x${computed.toString(16)})`;
  return undefined;
}
