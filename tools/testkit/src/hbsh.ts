// Adiantum and HPolyC written out from their definitions, for the tests of @x/adiantum and @x/dm-crypt:
// ChaCha by RFC 8439 §2.1–2.3 on a plain word array, HChaCha by draft-irtf-cfrg-xchacha §2.2, Poly1305's
// polynomial and NH with BigInt, AES-256 from node:crypto (refEcb). Slow and plain on purpose; it shares no
// code with the package under test. Definitions: Crowley and Biggers, "Adiantum: length-preserving
// encryption for entry-level processors", ToSC 2018(4), §2 and §6, and the authors' Python reference
// (github.com/google/adiantum python/).
import { refEcb } from './reference.js';

const SIGMA = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574];

function words(b: Uint8Array): number[] {
  return Array.from({ length: b.length / 4 }, (_, i) => new DataView(b.buffer, b.byteOffset).getUint32(4 * i, true));
}

/** The ChaCha permutation of `rounds` rounds of a 16-word state (no feed-forward). */
function chachaPermute(input: number[], rounds: number): number[] {
  const x = input.slice();
  const qr = (a: number, b: number, c: number, d: number) => {
    const rot = (v: number, n: number) => ((v << n) | (v >>> (32 - n))) >>> 0;
    x[a] = (x[a] + x[b]) >>> 0;
    x[d] = rot(x[d] ^ x[a], 16);
    x[c] = (x[c] + x[d]) >>> 0;
    x[b] = rot(x[b] ^ x[c], 12);
    x[a] = (x[a] + x[b]) >>> 0;
    x[d] = rot(x[d] ^ x[a], 8);
    x[c] = (x[c] + x[d]) >>> 0;
    x[b] = rot(x[b] ^ x[c], 7);
  };
  for (let r = 0; r < rounds; r += 2) {
    qr(0, 4, 8, 12);
    qr(1, 5, 9, 13);
    qr(2, 6, 10, 14);
    qr(3, 7, 11, 15);
    qr(0, 5, 10, 15);
    qr(1, 6, 11, 12);
    qr(2, 7, 8, 13);
    qr(3, 4, 9, 14);
  }
  return x;
}

/**
 * HChaCha with `rounds` rounds (draft-irtf-cfrg-xchacha-03 §2.2): the 32-byte subkey of `key` and the
 * 16-byte `nonce`, words 0–3 and 12–15 of the permuted state.
 *
 * @example
 * ```ts
 * refHChaCha(20, key, nonce.subarray(0, 16)); // XChaCha20's subkey
 * ```
 */
export function refHChaCha(rounds: number, key: Uint8Array, nonce: Uint8Array): Uint8Array {
  const h = chachaPermute([...SIGMA, ...words(key), ...words(nonce)], rounds);
  const out = new Uint8Array(32);
  const view = new DataView(out.buffer);
  for (const [i, w] of [...h.slice(0, 4), ...h.slice(12, 16)].entries()) view.setUint32(4 * i, w, true);
  return out;
}

/**
 * `len` bytes of XChaCha_rounds(key, nonce) (24-byte nonce; djb's ChaCha with a 64-bit block counter from
 * `block` in words 12–13 and nonce[16..24) in words 14–15, under the subkey HChaCha(key, nonce[0..16))).
 *
 * @example
 * ```ts
 * refXChaCha(20, key, nonce, 64); // the first block of XChaCha20
 * ```
 */
export function refXChaCha(rounds: number, key: Uint8Array, nonce: Uint8Array, len: number, block = 0): Uint8Array {
  const subkey = words(refHChaCha(rounds, key, nonce.subarray(0, 16)));
  const tail = words(nonce.subarray(16, 24));
  const out = new Uint8Array(len);
  const view = new DataView(out.buffer);
  for (let at = 0, b = block; at < len; at += 64, b++) {
    const input = [...SIGMA, ...subkey, b >>> 0, Math.floor(b / 2 ** 32), ...tail];
    const x = chachaPermute(input, rounds);
    const blockBytes = new Uint8Array(64);
    const bv = new DataView(blockBytes.buffer);
    for (let i = 0; i < 16; i++) bv.setUint32(4 * i, (x[i] + input[i]) >>> 0, true);
    for (let i = 0; at + i < len && i < 64; i++) view.setUint8(at + i, blockBytes[i]);
  }
  return out;
}

const P = (1n << 130n) - 5n;
const leInt = (b: Uint8Array): bigint => b.reduceRight((acc, x) => (acc << 8n) | BigInt(x), 0n);
const leBytes = (v: bigint, n: number): Uint8Array =>
  Uint8Array.from({ length: n }, (_, i) => Number((v >> BigInt(8 * i)) & 255n));

/**
 * Poly1305's polynomial without the final `+ s` (RFC 8439 §2.5.1): h = (h + c + 2^(8|c|))·r mod 2^130 − 5
 * over the 16-byte blocks c of `m` (the last one may be shorter), r the clamped `rBytes`; fully reduced.
 *
 * @example
 * ```ts
 * refPoly1305H(r, message) + s; // the RFC 8439 tag, before it is taken mod 2^128
 * ```
 */
export function refPoly1305H(rBytes: Uint8Array, m: Uint8Array): bigint {
  const r = leInt(rBytes) & 0x0ffffffc0ffffffc0ffffffc0fffffffn;
  let h = 0n;
  for (let at = 0; at < m.length; at += 16) {
    const c = m.subarray(at, at + 16);
    h = ((h + leInt(c) + (1n << BigInt(8 * c.length))) * r) % P;
  }
  return h;
}

/** NH (4 passes, stride 2) of whole 16-byte units, at most 1024 bytes: four 64-bit sums. */
function nh(key: Uint8Array, m: Uint8Array): Uint8Array {
  const k = words(key);
  const w = words(m);
  const out: number[] = [];
  for (let i = 0; i < 4; i++) {
    let sum = 0n;
    for (let u = 0; u < w.length; u += 4) {
      for (const j of [0, 1]) {
        const a = (w[u + j] + k[u + 4 * i + j]) >>> 0;
        const b = (w[u + j + 2] + k[u + 4 * i + j + 2]) >>> 0;
        sum += BigInt(a) * BigInt(b);
      }
    }
    out.push(...leBytes(sum & ((1n << 64n) - 1n), 8));
  }
  return Uint8Array.from(out);
}

const cat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/**
 * Adiantum (`'adiantum'`) or HPolyC (`'hpolyc'`) with XChaCha`rounds` and AES-256, by definition: encrypts
 * `data` (≥ 16 bytes) under `tweak`, or decrypts it when `decrypt`.
 *
 * @example
 * ```ts
 * const c = refHbsh('adiantum', 12, key, tweak, plain, false);
 * refHbsh('adiantum', 12, key, tweak, c, true); // = plain
 * ```
 */
export function refHbsh(
  variant: 'adiantum' | 'hpolyc',
  rounds: number,
  key: Uint8Array,
  tweak: Uint8Array,
  data: Uint8Array,
  decrypt: boolean,
): Uint8Array {
  const subkeys = refXChaCha(
    rounds,
    key,
    cat(Uint8Array.of(1), new Uint8Array(23)),
    variant === 'adiantum' ? 1136 : 48,
  );
  const aesKey = subkeys.subarray(0, 32);
  const hash = (m: Uint8Array): bigint => {
    if (variant === 'hpolyc') {
      const header = cat(leBytes(BigInt(8 * tweak.length), 4), tweak);
      const padded = cat(header, new Uint8Array((16 - (header.length % 16)) % 16));
      return refPoly1305H(subkeys.subarray(32, 48), cat(padded, m));
    }
    const ht = refPoly1305H(subkeys.subarray(32, 48), cat(leBytes(BigInt(8 * m.length), 16), tweak));
    const padded = cat(m, new Uint8Array((16 - (m.length % 16)) % 16));
    const nhs: Uint8Array[] = [];
    for (let at = 0; at < padded.length; at += 1024) nhs.push(nh(subkeys.subarray(64), padded.subarray(at, at + 1024)));
    return ht + refPoly1305H(subkeys.subarray(48, 64), cat(...nhs));
  };
  const mod128 = (v: bigint) => leBytes(((v % (1n << 128n)) + (1n << 128n)) % (1n << 128n), 16);
  const n = data.length - 16;
  const left = data.subarray(0, n);
  const x = mod128(leInt(data.subarray(n)) + hash(left));
  const y = refEcb(!decrypt, aesKey, x);
  const nonce = cat(decrypt ? x : y, Uint8Array.of(1), new Uint8Array(7));
  const stream = refXChaCha(rounds, key, nonce, n);
  const outLeft = left.map((b, i) => b ^ stream[i]);
  return cat(outLeft, mod128(leInt(y) - hash(outLeft)));
}
