// Streebog-512 (GOST R 34.11-2012, RFC 6986), the one hash VeraCrypt's PBKDF2 uses that no maintained
// library here has, written from the standard: the compression g_N(h, m) = E(LPS(h ⊕ N), m) ⊕ h ⊕ m, E twelve
// rounds of X[K] then LPS with the keys K_{i+1} = LPS(K_i ⊕ C_i), a thirteenth X[K13]; messages taken 64
// bytes at a time from the start (the least significant end in the standard's numbering, RFC 6986 §10),
// the last block padded with one bit 1 then zeros, then g_0 of the bit length N and of the block sum Σ.
// LPS is done a word at a time with tables: output word i is the XOR over k of T_k[x_{8k+i}], T_k[b] the
// product of the matrix A by the byte π(b) at byte k of a word (S, then P's transposition, then L).
// The constants π, A and C_1 … C_12 are the standard's (RFC 6986 §6).
import type { Hasher } from './pbkdf2-wasm.js';

// biome-ignore format: the standard's table
const PI = Uint8Array.of(
  252, 238, 221, 17, 207, 110, 49, 22, 251, 196, 250, 218, 35, 197, 4, 77, 233, 119, 240, 219, 147, 46, 153, 186,
  23, 54, 241, 187, 20, 205, 95, 193, 249, 24, 101, 90, 226, 92, 239, 33, 129, 28, 60, 66, 139, 1, 142, 79, 5, 132,
  2, 174, 227, 106, 143, 160, 6, 11, 237, 152, 127, 212, 211, 31, 235, 52, 44, 81, 234, 200, 72, 171, 242, 42, 104,
  162, 253, 58, 206, 204, 181, 112, 14, 86, 8, 12, 118, 18, 191, 114, 19, 71, 156, 183, 93, 135, 21, 161, 150, 41,
  16, 123, 154, 199, 243, 145, 120, 111, 157, 158, 178, 177, 50, 117, 25, 61, 255, 53, 138, 126, 109, 84, 198, 128,
  195, 189, 13, 87, 223, 245, 36, 169, 62, 168, 67, 201, 215, 121, 214, 246, 124, 34, 185, 3, 224, 15, 236, 222,
  122, 148, 176, 188, 220, 232, 40, 80, 78, 51, 10, 74, 167, 151, 96, 115, 30, 0, 98, 68, 26, 184, 56, 130, 100,
  159, 38, 65, 173, 69, 70, 146, 39, 94, 85, 47, 140, 163, 165, 125, 105, 213, 149, 59, 7, 88, 179, 64, 134, 172,
  29, 247, 48, 55, 107, 228, 136, 217, 231, 137, 225, 27, 131, 73, 76, 63, 248, 254, 141, 83, 170, 144, 202, 216,
  133, 97, 32, 113, 103, 164, 45, 43, 9, 91, 203, 155, 37, 208, 190, 229, 108, 82, 89, 166, 116, 210, 230, 244, 180,
  192, 209, 102, 175, 194, 57, 75, 99, 182,
);

/** The rows of A, A[0] the row of the most significant bit (RFC 6986 §6.4), as hex. */
// biome-ignore format: the standard's table
const A = [
  '8e20faa72ba0b470', '47107ddd9b505a38', 'ad08b0e0c3282d1c', 'd8045870ef14980e', '6c022c38f90a4c07', '3601161cf205268d',
  '1b8e0b0e798c13c8', '83478b07b2468764', 'a011d380818e8f40', '5086e740ce47c920', '2843fd2067adea10', '14aff010bdd87508',
  '0ad97808d06cb404', '05e23c0468365a02', '8c711e02341b2d01', '46b60f011a83988e', '90dab52a387ae76f', '486dd4151c3dfdb9',
  '24b86a840e90f0d2', '125c354207487869', '092e94218d243cba', '8a174a9ec8121e5d', '4585254f64090fa0', 'accc9ca9328a8950',
  '9d4df05d5f661451', 'c0a878a0a1330aa6', '60543c50de970553', '302a1e286fc58ca7', '18150f14b9ec46dd', '0c84890ad27623e0',
  '0642ca05693b9f70', '0321658cba93c138', '86275df09ce8aaa8', '439da0784e745554', 'afc0503c273aa42a', 'd960281e9d1d5215',
  'e230140fc0802984', '71180a8960409a42', 'b60c05ca30204d21', '5b068c651810a89e', '456c34887a3805b9', 'ac361a443d1c8cd2',
  '561b0d22900e4669', '2b838811480723ba', '9bcf4486248d9f5d', 'c3e9224312c8c1a0', 'effa11af0964ee50', 'f97d86d98a327728',
  'e4fa2054a80b329c', '727d102a548b194e', '39b008152acb8227', '9258048415eb419d', '492c024284fbaec0', 'aa16012142f35760',
  '550b8e9e21f7a530', 'a48b474f9ef5dc18', '70a6a56e2440598e', '3853dc371220a247', '1ca76e95091051ad', '0edd37c48a08a6d8',
  '07e095624504536c', '8d70c431ac02a736', 'c83862965601dd1b', '641c314b2b8ee083',
];

/** C_1 … C_12 (RFC 6986 §6.5), each a 512-bit number as hex, most significant first. */
// biome-ignore format: the standard's table
const C = [
  'b1085bda1ecadae9ebcb2f81c0657c1f2f6a76432e45d016714eb88d7585c4fc4b7ce09192676901a2422a08a460d31505767436cc744d23dd806559f2a64507',
  '6fa3b58aa99d2f1a4fe39d460f70b5d7f3feea720a232b9861d55e0f16b501319ab5176b12d699585cb561c2db0aa7ca55dda21bd7cbcd56e679047021b19bb7',
  'f574dcac2bce2fc70a39fc286a3d843506f15e5f529c1f8bf2ea7514b1297b7bd3e20fe490359eb1c1c93a376062db09c2b6f443867adb31991e96f50aba0ab2',
  'ef1fdfb3e81566d2f948e1a05d71e4dd488e857e335c3c7d9d721cad685e353fa9d72c82ed03d675d8b71333935203be3453eaa193e837f1220cbebc84e3d12e',
  '4bea6bacad4747999a3f410c6ca923637f151c1f1686104a359e35d7800fffbdbfcd1747253af5a3dfff00b723271a167a56a27ea9ea63f5601758fd7c6cfe57',
  'ae4faeae1d3ad3d96fa4c33b7a3039c02d66c4f95142a46c187f9ab49af08ec6cffaa6b71c9ab7b40af21f66c2bec6b6bf71c57236904f35fa68407a46647d6e',
  'f4c70e16eeaac5ec51ac86febf240954399ec6c7e6bf87c9d3473e33197a93c90992abc52d822c3706476983284a05043517454ca23c4af38886564d3a14d493',
  '9b1f5b424d93c9a703e7aa020c6e41414eb7f8719c36de1e89b4443b4ddbc49af4892bcb929b069069d18d2bd1a5c42f36acc2355951a8d9a47f0dd4bf02e71e',
  '378f5a541631229b944c9ad8ec165fde3a7d3a1b258942243cd955b7e00d0984800a440bdbb2ceb17b2b8a9aa6079c540e38dc92cb1f2a607261445183235adb',
  'abbedea680056f52382ae548b2e4f3f38941e71cff8a78db1fffe18a1b3361039fe76702af69334b7a1e6c303b7652f43698fad1153bb6c374b4c7fb98459ced',
  '7bcd9ed0efc889fb3002c6cd635afe94d8fa6bbbebab076120018021148466798a1d71efea48b9caefbacd1d7d476e98dea2594ac06fd85d6bcaa4cd81f32d1b',
  '378ee767f11631bad21380b00449b17acda43c32bcdf1d77f82012d430219f9b5d80ef9d1891cc86e71da4aa88e12852faf417d5d9b21b9948bc924af11bd720',
];

/** A 512-bit state: 16 words of 32 bits, least significant first (word 2i the low half of 64-bit word i). */
type State = Uint32Array;

/** A 512-bit number given as hex (most significant first) as a State. */
function stateOfHex(h: string): State {
  const s = new Uint32Array(16);
  for (let w = 0; w < 16; w++) s[w] = Number.parseInt(h.slice(128 - 8 * (w + 1), 128 - 8 * w), 16) >>> 0;
  return s;
}

const CS = C.map(stateOfHex);

/** T[k·256 + b]: L of the byte π(b) at byte k of a 64-bit word, as (low, high) at [2j, 2j+1] of one table. */
const T = /* @__PURE__ */ (() => {
  const rows = A.map((h) => [Number.parseInt(h.slice(8), 16) >>> 0, Number.parseInt(h.slice(0, 8), 16) >>> 0]);
  const t = new Uint32Array(8 * 256 * 2);
  for (let k = 0; k < 8; k++)
    for (let b = 0; b < 256; b++) {
      const v = PI[b];
      let lo = 0,
        hi = 0;
      for (let bit = 0; bit < 8; bit++)
        if ((v >>> bit) & 1) {
          const r = rows[63 - (8 * k + bit)];
          lo ^= r[0];
          hi ^= r[1];
        }
      t[2 * (k * 256 + b)] = lo >>> 0;
      t[2 * (k * 256 + b) + 1] = hi >>> 0;
    }
  return t;
})();

/** Byte j (0 = least significant) of a state. */
const byteOf = (s: State, j: number) => (s[j >>> 2] >>> ((j & 3) * 8)) & 0xff;

/** out = LPS(x) (out and x distinct). */
function lps(out: State, x: State): void {
  for (let i = 0; i < 8; i++) {
    let lo = 0,
      hi = 0;
    for (let k = 0; k < 8; k++) {
      const at = 2 * (k * 256 + byteOf(x, 8 * k + i));
      lo ^= T[at];
      hi ^= T[at + 1];
    }
    out[2 * i] = lo >>> 0;
    out[2 * i + 1] = hi >>> 0;
  }
}

function xorInto(out: State, a: State, b: State): void {
  for (let i = 0; i < 16; i++) out[i] = a[i] ^ b[i];
}

/** a += b modulo 2^512. */
function addInto(a: State, b: State): void {
  let carry = 0;
  for (let i = 0; i < 16; i++) {
    const s = a[i] + b[i] + carry;
    a[i] = s >>> 0;
    carry = s > 0xffffffff ? 1 : 0;
  }
}

/** Scratch of the compression. */
const K = new Uint32Array(16),
  X = new Uint32Array(16),
  Y = new Uint32Array(16);

/** h = g_N(h, m). */
function compress(h: State, n: State, m: State): void {
  xorInto(Y, h, n);
  lps(K, Y); // K1
  xorInto(Y, K, m);
  for (let r = 0; r < 12; r++) {
    lps(X, Y); // LPS(X[K_r](state))
    xorInto(Y, K, CS[r]);
    lps(K, Y); // K_{r+1}
    xorInto(Y, X, K);
  }
  for (let i = 0; i < 16; i++) h[i] ^= Y[i] ^ m[i];
  K.fill(0);
  X.fill(0);
  Y.fill(0);
}

/** Streebog-512 as a hasher (the shape of hash-wasm's), with its state saved and loaded for HMAC. */
class Streebog512 implements Hasher {
  readonly blockSize = 64;
  readonly digestSize = 64;
  #h = new Uint32Array(16);
  #n = new Uint32Array(16);
  #sigma = new Uint32Array(16);
  #buf = new Uint8Array(64);
  #len = 0;
  readonly #m = new Uint32Array(16);
  readonly #count = new Uint32Array(16);

  init(): this {
    this.#h.fill(0);
    this.#n.fill(0);
    this.#sigma.fill(0);
    this.#buf.fill(0);
    this.#len = 0;
    return this;
  }

  #block(bits: number): void {
    const b = this.#buf;
    for (let w = 0; w < 16; w++)
      this.#m[w] = (b[4 * w] | (b[4 * w + 1] << 8) | (b[4 * w + 2] << 16) | (b[4 * w + 3] << 24)) >>> 0;
    compress(this.#h, this.#n, this.#m);
    this.#count.fill(0);
    this.#count[0] = bits;
    addInto(this.#n, this.#count);
    addInto(this.#sigma, this.#m);
    this.#m.fill(0);
  }

  update(data: Uint8Array): this {
    for (let i = 0; i < data.length; ) {
      const n = Math.min(64 - this.#len, data.length - i);
      this.#buf.set(data.subarray(i, i + n), this.#len);
      this.#len += n;
      i += n;
      if (this.#len === 64) {
        this.#block(512);
        this.#len = 0;
      }
    }
    return this;
  }

  digest(_outputType: 'binary'): Uint8Array {
    this.#buf.fill(0, this.#len);
    this.#buf[this.#len] = 1;
    this.#block(8 * this.#len);
    const zero = new Uint32Array(16);
    compress(this.#h, zero, this.#n);
    compress(this.#h, zero, this.#sigma);
    const out = new Uint8Array(64);
    for (let j = 0; j < 64; j++) out[j] = byteOf(this.#h, j);
    this.init();
    return out;
  }

  save(): Uint8Array {
    const s = new Uint8Array(3 * 64 + 64 + 1);
    const v = (x: State, at: number) => {
      for (let j = 0; j < 64; j++) s[at + j] = byteOf(x, j);
    };
    v(this.#h, 0);
    v(this.#n, 64);
    v(this.#sigma, 128);
    s.set(this.#buf, 192);
    s[256] = this.#len;
    return s;
  }

  load(state: Uint8Array): this {
    const v = (x: State, at: number) => {
      for (let w = 0; w < 16; w++)
        x[w] =
          (state[at + 4 * w] |
            (state[at + 4 * w + 1] << 8) |
            (state[at + 4 * w + 2] << 16) |
            (state[at + 4 * w + 3] << 24)) >>>
          0;
    };
    v(this.#h, 0);
    v(this.#n, 64);
    v(this.#sigma, 128);
    this.#buf.set(state.subarray(192, 256));
    this.#len = state[256];
    return this;
  }
}

/**
 * A new Streebog-512 hasher.
 *
 * @example
 * ```ts
 * const h = newStreebog512();
 * h.init();
 * h.update(new TextEncoder().encode('012345678901234567890123456789012345678901234567890123456789012'));
 * h.digest('binary'); // RFC 6986 §10.1.1's H512(M1), least significant byte first
 * ```
 */
export function newStreebog512(): Hasher {
  return new Streebog512().init();
}
