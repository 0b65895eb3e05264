// LRW-AES by its definition, slowly and plainly, for the property tests: every block's T = K2 ⊗ (I + j)
// computed from scratch with bigint arithmetic (carry-less multiplication, then reduction by
// x^128 + x^7 + x^2 + x + 1; a block is a big-endian number whose bit i is the coefficient of x^i), and
// AES-ECB from node:crypto (@x/testkit's refEcb), sectors by @x/testkit's refSectors. Nothing here shares code with src/.
import { refEcb, refSectors } from '@x/testkit';

const MASK128 = (1n << 128n) - 1n;

function toBig(b: Uint8Array): bigint {
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  return v;
}

function toBytes(v: bigint): Uint8Array {
  const b = new Uint8Array(16);
  for (let i = 15; i >= 0; i--, v >>= 8n) b[i] = Number(v & 0xffn);
  return b;
}

/** a ⊗ b in GF(2^128), the polynomial product reduced bit by bit from the top. */
export function gfMul(a: bigint, b: bigint): bigint {
  let p = 0n;
  for (let i = 0n; i < 128n; i++) if ((b >> i) & 1n) p ^= a << i;
  for (let i = 254n; i >= 128n; i--) if ((p >> i) & 1n) p ^= (1n << i) ^ (0x87n << (i - 128n));
  return p;
}

/**
 * LRW of one data unit of whole blocks: `key` = K1 ‖ K2 (K2 the last 16 bytes), `iv` the index of the
 * first block; the index wraps modulo 2^128.
 */
export function refLrw(encrypt: boolean, key: Uint8Array, data: Uint8Array, iv: Uint8Array): Uint8Array {
  const k1 = key.subarray(0, key.length - 16);
  const k2 = toBig(key.subarray(key.length - 16));
  const first = toBig(iv);
  const out = new Uint8Array(data.length);
  for (let j = 0; 16 * j < data.length; j++) {
    const t = toBytes(gfMul(k2, (first + BigInt(j)) & MASK128));
    const x = data.slice(16 * j, 16 * j + 16).map((v, i) => v ^ t[i]);
    const y = refEcb(encrypt, k1, x);
    out.set(
      y.map((v, i) => v ^ t[i]),
      16 * j,
    );
  }
  return out;
}

/** LRW of sectors of `size` bytes, sector s starting at the index `ivs[16s .. 16s+16)`. */
export const refLrwSectors = (encrypt: boolean, key: Uint8Array, data: Uint8Array, size: number, ivs: Uint8Array) =>
  refSectors(data, size, ivs, (unit, iv) => refLrw(encrypt, key, unit, iv));
