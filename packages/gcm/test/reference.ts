/**
 * References for the tests: node:crypto's AES-GCM, and, for nonces longer than the 128 bytes OpenSSL
 * takes, GCM written out from NIST SP 800-38D over node:crypto's AES-ECB, with GHASH's multiplication
 * done bit by bit as Algorithm 1 (§6.3) says (slow and not constant time: for tests only).
 */
import { createCipheriv } from 'node:crypto';

/** AES-ECB of whole blocks. */
function ecb(key: Uint8Array, data: Uint8Array): Uint8Array {
  const c = createCipheriv(`aes-${key.length * 8}-ecb`, key, null).setAutoPadding(false);
  return new Uint8Array(Buffer.concat([c.update(data), c.final()]));
}

/** X · Y in GF(2^128), GHASH's bit order (SP 800-38D §6.3, Algorithm 1). */
function mul(x: Uint8Array, y: Uint8Array): Uint8Array {
  const z = new Uint8Array(16);
  const v = Uint8Array.from(y);
  for (let i = 0; i < 128; i++) {
    if ((x[i >>> 3]! >>> (7 - (i & 7))) & 1) for (let j = 0; j < 16; j++) z[j]! ^= v[j]!;
    const lsb = v[15]! & 1;
    for (let j = 15; j > 0; j--) v[j] = (v[j]! >>> 1) | ((v[j - 1]! & 1) << 7);
    v[0] = v[0]! >>> 1;
    if (lsb) v[0]! ^= 0xe1;
  }
  return z;
}

/** GHASH_H (SP 800-38D §6.4, Algorithm 2) of whole blocks. */
export function ghashBlocks(h: Uint8Array, blocks: Uint8Array): Uint8Array {
  let y: Uint8Array = new Uint8Array(16);
  for (let i = 0; i < blocks.length; i += 16) {
    for (let j = 0; j < 16; j++) y[j]! ^= blocks[i + j]!;
    y = mul(y, h);
  }
  return y;
}

/** The pieces, each zero-padded to whole blocks, then [8·lenA]_64 ‖ [8·lenC]_64 (§7.1 step 5). */
export function ghashInput(pieces: Uint8Array[], lenA: number, lenC: number): Uint8Array {
  const padded = pieces.map((p) => Math.ceil(p.length / 16) * 16);
  const out = new Uint8Array(padded.reduce((a, b) => a + b, 0) + 16);
  let o = 0;
  pieces.forEach((p, i) => {
    out.set(p, o);
    o += padded[i]!;
  });
  const view = new DataView(out.buffer);
  view.setBigUint64(o, BigInt(lenA) * 8n);
  view.setBigUint64(o + 8, BigInt(lenC) * 8n);
  return out;
}

function ghash(h: Uint8Array, pieces: Uint8Array[], lenA: number, lenC: number): Uint8Array {
  return ghashBlocks(h, ghashInput(pieces, lenA, lenC));
}

/** GCM from SP 800-38D §7.1 alone: ciphertext ‖ tag (MSB_t). */
export function refSealSpec(
  key: Uint8Array,
  nonce: Uint8Array,
  plaintext: Uint8Array,
  aad: Uint8Array,
  tagLength: number,
): Uint8Array {
  const h = ecb(key, new Uint8Array(16));
  let j0: Uint8Array;
  if (nonce.length === 12) {
    j0 = new Uint8Array(16);
    j0.set(nonce);
    j0[15] = 1;
  } else j0 = ghash(h, [nonce], 0, nonce.length);
  const blocks = Math.ceil(plaintext.length / 16);
  const counters = new Uint8Array(16 * blocks);
  const view = new DataView(counters.buffer);
  const c0 = new DataView(j0.buffer).getUint32(12);
  for (let i = 0; i < blocks; i++) {
    counters.set(j0.subarray(0, 12), 16 * i);
    view.setUint32(16 * i + 12, (c0 + 1 + i) >>> 0); // inc32, modulo 2^32 (§6.2)
  }
  const stream = ecb(key, counters);
  const out = new Uint8Array(plaintext.length + tagLength);
  for (let i = 0; i < plaintext.length; i++) out[i] = plaintext[i]! ^ stream[i]!;
  const s = ghash(h, [aad, out.subarray(0, plaintext.length)], aad.length, plaintext.length);
  const mask = ecb(key, j0);
  for (let i = 0; i < tagLength; i++) out[plaintext.length + i] = s[i]! ^ mask[i]!;
  return out;
}

/** node:crypto's AES-GCM (ciphertext ‖ tag), or {@link refSealSpec} for nonces OpenSSL does not take (> 128 bytes). */
export function refSeal(
  key: Uint8Array,
  nonce: Uint8Array,
  plaintext: Uint8Array,
  aad: Uint8Array,
  tagLength = 16,
): Uint8Array {
  if (nonce.length > 128) return refSealSpec(key, nonce, plaintext, aad, tagLength);
  const c = createCipheriv(`aes-${key.length * 8}-gcm` as 'aes-128-gcm', key, nonce, { authTagLength: tagLength });
  c.setAAD(aad);
  return new Uint8Array(Buffer.concat([c.update(plaintext), c.final(), c.getAuthTag()]));
}
