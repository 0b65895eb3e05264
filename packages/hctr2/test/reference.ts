// An independent model of HCTR2 for the property tests, written from the paper's definitions (ePrint
// 2021/1441 §3) with the slow references of @x/testkit: AES from node:crypto (OpenSSL), POLYVAL bit by
// bit on BigInts (refPolyval), XCTR block by block. It shares no code with src/.
import { refEcb, refPolyval } from '@x/testkit';

const le128 = (x: bigint) => {
  const b = new Uint8Array(16);
  for (let i = 0; i < 16; i++) b[i] = Number((x >> BigInt(8 * i)) & 0xffn);
  return b;
};
const xor = (a: Uint8Array, b: Uint8Array) => a.map((v, i) => v ^ b[i]);
const pad16 = (b: Uint8Array) => {
  const out = new Uint8Array(Math.ceil(b.length / 16) * 16);
  out.set(b);
  return out;
};

/** H_hbar(T, M) of the paper. */
function hash(hbar: Uint8Array, tweak: Uint8Array, m: Uint8Array): Uint8Array {
  const whole = m.length % 16 === 0;
  const len = le128(BigInt(8 * tweak.length) * 2n + (whole ? 2n : 3n));
  const tail = whole ? m : pad16(Uint8Array.from([...m, 1]));
  return refPolyval(hbar, new Uint8Array(16), Uint8Array.from([...len, ...pad16(tweak), ...tail]), false);
}

/** XCTR_K(S)[0; n]: block i (from 1) is E_K(S ^ bin(i)). */
export function refXctr(key: Uint8Array, s: Uint8Array, n: number): Uint8Array {
  const blocks = Math.ceil(n / 16);
  const counters = new Uint8Array(16 * blocks);
  for (let i = 0; i < blocks; i++) counters.set(xor(s, le128(BigInt(i + 1))), 16 * i);
  return refEcb(true, key, counters).subarray(0, n);
}

/** HCTR2 encryption or decryption of one message, the paper's pseudocode line by line. */
export function refHctr2(encrypt: boolean, key: Uint8Array, tweak: Uint8Array, input: Uint8Array): Uint8Array {
  const hl = refEcb(true, key, Uint8Array.from([...le128(0n), ...le128(1n)]));
  const hbar = hl.subarray(0, 16);
  const l = hl.subarray(16);
  const first = input.subarray(0, 16);
  const rest = input.subarray(16);
  const x = xor(first, hash(hbar, tweak, rest));
  const y = refEcb(encrypt, key, x);
  const s = xor(xor(x, y), l);
  const out = new Uint8Array(input.length);
  out.set(xor(rest, refXctr(key, s, rest.length)), 16);
  out.set(xor(y, hash(hbar, tweak, out.subarray(16))), 0);
  return out;
}
