// The anti-forensic information splitter (LUKS1 spec §2.4, with the diffusion function H1
// of §2.4.1; LUKS2 keyslots use the same with "af": { "type": "luks1" }).
import { digest, hashByName } from './hashes.js';

/**
 * H1 (LUKS1 spec §2.4.1) in place: the buffer is cut into digest-size pieces; piece i becomes
 * hash(be32(i) ‖ piece i), the last one cut to its length.
 */
function diffuse(d: Uint8Array, hashName: string): void {
  const h = hashByName(hashName);
  const counter = new Uint8Array(4);
  for (let i = 0, o = 0; o < d.length; i++, o += h.size) {
    const n = Math.min(h.size, d.length - o);
    counter[0] = i >>> 24;
    counter[1] = (i >>> 16) & 0xff;
    counter[2] = (i >>> 8) & 0xff;
    counter[3] = i & 0xff;
    const out = digest(h, counter, d.subarray(o, o + n));
    d.set(out.subarray(0, n), o);
    out.fill(0);
  }
}

/**
 * AFmerge (LUKS1 spec §2.4, equations 1–4): `material` holds `stripes` stripes of `keyLength` bytes;
 * d₀ = 0, d_k = H(d_{k−1} ⊕ s_k) for the first stripes − 1, and the key is d_{n−1} ⊕ s_n.
 * Returns a new array the caller wipes.
 */
export function afMerge(material: Uint8Array, keyLength: number, stripes: number, hashName: string): Uint8Array {
  hashByName(hashName); // unknown hash: fail before doing anything
  const d = new Uint8Array(keyLength);
  for (let k = 0; k < stripes - 1; k++) {
    const o = k * keyLength;
    for (let i = 0; i < keyLength; i++) d[i] ^= material[o + i];
    diffuse(d, hashName);
  }
  const last = (stripes - 1) * keyLength;
  for (let i = 0; i < keyLength; i++) d[i] ^= material[last + i];
  return d;
}

/** crypto.getRandomValues over any length (it fills at most 65,536 bytes per call). */
export function fillRandom(b: Uint8Array): Uint8Array {
  for (let o = 0; o < b.length; o += 65536) crypto.getRandomValues(b.subarray(o, Math.min(b.length, o + 65536)));
  return b;
}

/**
 * AFsplit (LUKS1 spec §2.4, Figure 3), the inverse of {@link afMerge}: stripes s₁ … s_{n−1} are random,
 * d₀ = 0, d_k = H(d_{k−1} ⊕ s_k), and the last stripe is d_{n−1} ⊕ key. Returns the `stripes ×
 * key.length` bytes of key material, a new array the caller wipes; `random` (default
 * `crypto.getRandomValues`) fills the random stripes.
 *
 * @example
 * ```ts
 * const material = afSplit(volumeKey, 4000, 'sha256');
 * afMerge(material, volumeKey.length, 4000, 'sha256'); // equals volumeKey
 * ```
 */
export function afSplit(
  key: Uint8Array,
  stripes: number,
  hashName: string,
  random: (b: Uint8Array) => void = fillRandom,
): Uint8Array {
  if (!(key instanceof Uint8Array) || key.length === 0)
    throw new TypeError('@x/luks: key must be a non-empty Uint8Array');
  if (!Number.isSafeInteger(stripes) || stripes < 1)
    throw new RangeError(`@x/luks: stripes ${stripes} is not a positive integer`);
  hashByName(hashName); // unknown hash: fail before doing anything
  const n = key.length;
  const material = new Uint8Array(n * stripes);
  random(material.subarray(0, (stripes - 1) * n));
  const d = new Uint8Array(n);
  for (let k = 0; k < stripes - 1; k++) {
    const o = k * n;
    for (let i = 0; i < n; i++) d[i] ^= material[o + i];
    diffuse(d, hashName);
  }
  const last = (stripes - 1) * n;
  for (let i = 0; i < n; i++) material[last + i] = d[i] ^ key[i];
  d.fill(0);
  return material;
}
