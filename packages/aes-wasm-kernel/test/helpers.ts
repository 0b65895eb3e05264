/** Shared helpers for the kernel tests: node:crypto references and buffers at odd offsets. */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { expandKey, type AesKeyedKernel } from '@x/aes-keyschedule';
import { wasmKernel } from '../src/index.js';

export const KEY_SIZES = [16, 24, 32] as const;

const algo = (key: Uint8Array, mode: 'ecb' | 'cbc') => `aes-${key.length * 8}-${mode}`;

export function refEncryptECB(key: Uint8Array, src: Uint8Array): Uint8Array {
  const c = createCipheriv(algo(key, 'ecb'), key, null).setAutoPadding(false);
  return Buffer.concat([c.update(src), c.final()]);
}
export function refDecryptECB(key: Uint8Array, src: Uint8Array): Uint8Array {
  const c = createDecipheriv(algo(key, 'ecb'), key, null).setAutoPadding(false);
  return Buffer.concat([c.update(src), c.final()]);
}
export function refEncryptCBC(key: Uint8Array, src: Uint8Array, iv: Uint8Array): Uint8Array {
  const c = createCipheriv(algo(key, 'cbc'), key, iv).setAutoPadding(false);
  return Buffer.concat([c.update(src), c.final()]);
}
export function refDecryptCBC(key: Uint8Array, src: Uint8Array, iv: Uint8Array): Uint8Array {
  const c = createDecipheriv(algo(key, 'cbc'), key, iv).setAutoPadding(false);
  return Buffer.concat([c.update(src), c.final()]);
}
export function refDecryptSectors(key: Uint8Array, src: Uint8Array, size: number, ivs: Uint8Array): Uint8Array {
  const out = new Uint8Array(src.length);
  for (let s = 0; s * size < src.length; s++) {
    out.set(refDecryptCBC(key, src.subarray(s * size, (s + 1) * size), ivs.subarray(16 * s, 16 * s + 16)), s * size);
  }
  return out;
}

export function refEncryptSectors(key: Uint8Array, src: Uint8Array, size: number, ivs: Uint8Array): Uint8Array {
  const out = new Uint8Array(src.length);
  for (let s = 0; s * size < src.length; s++) {
    out.set(refEncryptCBC(key, src.subarray(s * size, (s + 1) * size), ivs.subarray(16 * s, 16 * s + 16)), s * size);
  }
  return out;
}

/** T·α in GF(2^128), little-endian (IEEE 1619 §5.2); reference only. */
export function doubleTweak(t: Uint8Array): Uint8Array {
  const r = new Uint8Array(16);
  let carry = 0;
  for (let i = 0; i < 16; i++) {
    r[i] = ((t[i] << 1) | carry) & 0xff;
    carry = t[i] >> 7;
  }
  if (carry) r[0] ^= 0x87;
  return r;
}

/** XTS of whole blocks with encrypted tweaks (the kernel contract), from node:crypto ECB; any key size. */
export function refXTS(key: Uint8Array, src: Uint8Array, unitSize: number, tweaks: Uint8Array, decrypt: boolean): Uint8Array {
  const masks = new Uint8Array(src.length);
  for (let u = 0; u * unitSize < src.length; u++) {
    let t: Uint8Array = tweaks.slice(16 * u, 16 * u + 16);
    for (let o = u * unitSize; o < (u + 1) * unitSize; o += 16) {
      masks.set(t, o);
      t = doubleTweak(t);
    }
  }
  const x = src.map((b, i) => b ^ masks[i]);
  const y = decrypt ? refDecryptECB(key, x) : refEncryptECB(key, x);
  return y.map((b, i) => b ^ masks[i]);
}

/** A copy of `bytes` that starts at byteOffset `offset` of a larger buffer filled with 0xa5. */
export function atOffset(bytes: Uint8Array, offset: number, extra = 0): Uint8Array {
  const buf = new Uint8Array(offset + bytes.length + extra + 7).fill(0xa5);
  const v = buf.subarray(offset, offset + bytes.length + extra);
  v.set(bytes);
  return v;
}

/** Loads `key` into the kernel and wipes the schedule, as `@x/cbc` does. */
export function load(key: Uint8Array): AesKeyedKernel {
  const s = expandKey(key);
  const k = wasmKernel.load(s);
  s.wipe();
  return k;
}

export const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'));
export const toHex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
export { randomBytes };
