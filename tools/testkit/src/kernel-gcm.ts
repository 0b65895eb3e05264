/**
 * The kernel suite's section for the `gcmSeal` and `gcmOpen` fast paths (AES-GCM encryption of one message
 * from its J0, SP 800-38D §7.1 steps 3–6, and its decryption, §7.2, each in one call): against node:crypto's AES-GCM (12-byte nonces: J0 = nonce ‖
 * 0^31 ‖ 1) and against a model built from slow references (`refCtr`'s inc32, the bit-serial GHASH of
 * `refPolyval`, node:crypto's ECB) for any J0, so that counters which carry across byte 15 and wrap at 2^32
 * are reached. Message lengths around every group a kernel may use (0..3, 15..17, 31..33, 63..65, 81, 100
 * blocks, with and without a partial block), AAD from none to longer than a kernel's staging, every tag
 * length, in place and not, odd offsets and guard bytes; random cases; one native call where the kernel
 * counts them. Every sealed message is opened again (separate buffers and in place); a changed bit of C,
 * T or A must make `gcmOpen` return false and leave `dst` untouched. The paths take the kernel's own
 * POLYVAL key of GHASH's H, so a kernel with them must have `loadPolyval`.
 */
import assert from 'node:assert/strict';
import { type CipherGCMTypes, createCipheriv } from 'node:crypto';
import fc from 'fast-check';
import type { AesKernel, AesKeyedKernel, PolyvalKernel } from '@x/aes-kernels/hazmat';
import { assertBytes, backing, outside, placed, random } from './bytes.js';
import { KEY_BYTES, type KernelSuiteOptions, load, offsets } from './kernel-operations.js';
import { ghashKey, refCtr, refEcb, refPolyval } from './reference.js';
import type { Suite } from './suite.js';

type GcmSeal = NonNullable<AesKeyedKernel['gcmSeal']>;
type GcmOpen = NonNullable<AesKeyedKernel['gcmOpen']>;

/** A keyed kernel with `gcmSeal`, and the POLYVAL key of GHASH's H = E_K(0^128) on the same kernel. */
interface Key {
  key: Uint8Array;
  k: AesKeyedKernel;
  hash: PolyvalKernel;
  seal: GcmSeal;
  open: GcmOpen;
}

function setup(kernel: AesKernel, key: Uint8Array): Key {
  assert.ok(kernel.loadPolyval, `${kernel.name} has gcmSeal but no loadPolyval, whose key gcmSeal takes`);
  const k = load(kernel, key);
  assert.equal(typeof k.gcmOpen, typeof k.gcmSeal, 'gcmSeal and gcmOpen come together');
  const hash = kernel.loadPolyval(ghashKey(refEcb(true, key, new Uint8Array(16))));
  return { key, k, hash, seal: (k.gcmSeal as GcmSeal).bind(k), open: (k.gcmOpen as GcmOpen).bind(k) };
}

function done(K: Key): void {
  K.k.dispose();
  K.hash.dispose();
}

/** Zero-padded to whole blocks. */
const padded = (b: Uint8Array) => {
  const p = new Uint8Array(Math.ceil(b.length / 16) * 16);
  p.set(b);
  return p;
};

/** C ‖ T from the definitions (SP 800-38D §7.1), for any J0: what `gcmSeal` must write. */
function refGcmSeal(key: Uint8Array, j0: Uint8Array, src: Uint8Array, aad: Uint8Array, t: number): Uint8Array {
  const iv = Uint8Array.from(j0);
  new DataView(iv.buffer).setUint32(12, (new DataView(iv.buffer).getUint32(12) + 1) >>> 0);
  const c = refCtr(key, src, iv, 'be32');
  const lengths = new Uint8Array(16);
  new DataView(lengths.buffer).setBigUint64(0, BigInt(8 * aad.length));
  new DataView(lengths.buffer).setBigUint64(8, BigInt(8 * src.length));
  const h = ghashKey(refEcb(true, key, new Uint8Array(16)));
  const s = refPolyval(h, new Uint8Array(16), Uint8Array.from([...padded(aad), ...padded(c), ...lengths]), true);
  const mask = refEcb(true, key, j0);
  const tag = s.reverse().map((b, i) => b ^ mask[i]!);
  return Uint8Array.from([...c, ...tag.subarray(0, t)]);
}

/**
 * One seal, separate buffers then in place, with guard bytes around every argument: dst gets C ‖ T and
 * nothing else changes.
 */
function exercise(K: Key, j0: Uint8Array, src: Uint8Array, aad: Uint8Array, t: number, want: Uint8Array, i: number) {
  const label = `${src.length} bytes, ${aad.length} of AAD, ${t}-byte tag, J0 ${Buffer.from(j0).toString('hex')}`;
  const [so, dso, jo] = offsets(i);
  const n = src.length;
  for (const inPlace of [false, true]) {
    const what = `${label}${inPlace ? ', in place' : ''}`;
    const d = placed(random(n + t), dso),
      s = inPlace ? d.subarray(0, n) : placed(src, so),
      j = placed(j0, jo),
      a = placed(aad, (jo + 7) & 15);
    if (inPlace) s.set(src);
    const srcBefore = backing(s),
      sideBefore = [backing(j), backing(a)],
      around = outside(d);
    K.seal(d, s, j, a, K.hash, t);
    assertBytes(d, want, what);
    assertBytes(outside(d), around, `${what}: wrote outside dst[0, n + tagLength)`);
    assertBytes(backing(j), sideBefore[0]!, `${what}: changed j0 or the bytes around it`);
    assertBytes(backing(a), sideBefore[1]!, `${what}: changed aad or the bytes around it`);
    if (!inPlace) assertBytes(backing(s), srcBefore, `${what}: changed src or the bytes around it`);
  }
  opened(K, { j0, sealed: want, aad, t, plain: src }, i, label);
}

/** A sealed message and what opening it takes and gives. */
interface Sealed {
  j0: Uint8Array;
  sealed: Uint8Array;
  aad: Uint8Array;
  t: number;
  plain: Uint8Array;
}

/**
 * C ‖ T opened, separate buffers then in place: dst gets the plaintext; then C, T and A each with one bit
 * changed: false, and dst untouched.
 */
function opened(K: Key, { j0, sealed, aad, t, plain }: Sealed, i: number, label: string): void {
  const n = plain.length;
  const [so, dso, jo] = offsets(i + 1);
  for (const inPlace of [false, true]) {
    const what = `open ${label}${inPlace ? ', in place' : ''}`;
    const s = placed(sealed, so),
      d = inPlace ? s.subarray(0, n) : placed(random(n), dso),
      j = placed(j0, jo),
      a = placed(aad, (jo + 7) & 15);
    const srcBefore = backing(s),
      around = outside(d),
      aadBefore = backing(a);
    assert.equal(K.open(d, s, j, a, K.hash, t), true, `${what}: refused`);
    assertBytes(d, plain, what);
    assertBytes(outside(d), around, `${what}: wrote outside dst[0, n)`);
    assertBytes(backing(a), aadBefore, `${what}: changed aad or the bytes around it`);
    if (!inPlace) assertBytes(backing(s), srcBefore, `${what}: changed sealed or the bytes around it`);
  }
  const flips: [string, number][] = [['T', n + ((i * 5) % t)]];
  if (n > 0) flips.push(['C', (i * 7) % n]);
  if (aad.length > 0) flips.push(['A', (i * 3) % aad.length]);
  for (const [which, at] of flips) {
    const s = sealed.slice(),
      a = aad.slice();
    (which === 'A' ? a : s)[at]! ^= 1 << (i & 7);
    const d = random(n),
      before = d.slice();
    assert.equal(K.open(d, s, j0, a, K.hash, t), false, `open ${label}: a changed bit of ${which} was accepted`);
    assertBytes(d, before, `open ${label}, ${which} changed: wrote dst`);
  }
}

/** Block counts around every group a kernel may use (4, 8, 16, 32 blocks), and a long one. */
const BLOCKS = [0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 63, 64, 65, 81, 100];

/** J0s whose counters carry across byte 15, wrap at 2^32 (inc32 keeps the first 12 bytes), or start there. */
const EDGE_J0 = [
  '000102030405060708090a0bfffffff0',
  'ffffffffffffffffffffffffffffffe1',
  '0f0e0d0c0b0a090807060504000000fe',
  'a0a1a2a3a4a5a6a7a8a9aaabfffffffe',
];

/**
 * The `gcmSeal` section of `kernel`, which has that fast path.
 *
 * @example
 * ```ts
 * gcmSealSuite(kernel, { describe, it }, { throwsAfterDispose: true }, 100);
 * ```
 */
export function gcmSealSuite(kernel: AesKernel, { describe, it }: Suite, options: KernelSuiteOptions, runs: number) {
  describe(`${kernel.name}: AES-GCM seal and open in one call each (gcmSeal, gcmOpen)`, () => {
    for (const bytes of KEY_BYTES) {
      it(`AES-${bytes * 8}: every length around the batches, against node:crypto's AES-GCM`, () => {
        const K = setup(kernel, random(bytes));
        let i = 0;
        for (const blocks of BLOCKS) {
          for (const tail of blocks < 64 ? [0, 1, 15] : [0, 7]) {
            const src = random(16 * blocks + tail),
              nonce = random(12),
              aad = random([0, 1, 16, 17, 300][i % 5]!),
              t = 12 + (i % 5);
            const gcm = createCipheriv(`aes-${bytes * 8}-gcm` as CipherGCMTypes, K.key, nonce, { authTagLength: t });
            gcm.setAAD(aad);
            const want = Buffer.concat([gcm.update(src), gcm.final(), gcm.getAuthTag()]);
            const j0 = new Uint8Array(16);
            j0.set(nonce);
            j0[15] = 1;
            assertBytes(refGcmSeal(K.key, j0, src, aad, t), want, 'the model');
            exercise(K, j0, src, aad, t, want, i++);
          }
        }
        done(K);
      });
    }

    it('any J0: counters that carry across byte 15 and wrap at 2^32 within one call, against the model', () => {
      const K = setup(kernel, random(16));
      for (const [i, hex] of EDGE_J0.entries()) {
        const j0 = Uint8Array.from(Buffer.from(hex, 'hex'));
        for (const n of [0, 16 * 33 + 3, 16 * 65, 16 * 100 + 9]) {
          const src = random(n),
            aad = random(i * 7);
          exercise(K, j0, src, aad, 16, refGcmSeal(K.key, j0, src, aad, 16), i);
        }
      }
      done(K);
    });

    it('random keys, lengths, AAD, tag lengths and J0, against the model', () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...KEY_BYTES),
          fc.integer({ min: 0, max: 16 * 80 }),
          fc.integer({ min: 0, max: 70 }),
          fc.integer({ min: 1, max: 16 }),
          (bytes, n, a, t) => {
            const K = setup(kernel, random(bytes));
            const src = random(n),
              aad = random(a),
              j0 = random(16);
            const dst = new Uint8Array(n + t);
            K.seal(dst, src, j0, aad, K.hash, t);
            assertBytes(dst, refGcmSeal(K.key, j0, src, aad, t), `${n} bytes, ${a} of AAD, ${t}-byte tag`);
            const back = new Uint8Array(n);
            assert.equal(K.open(back, dst, j0, aad, K.hash, t), true, 'open refused');
            assertBytes(back, src, `open of ${n} bytes`);
            done(K);
          },
        ),
        { numRuns: Math.min(runs, 40) },
      );
    });

    afterDisposeAndCalls(kernel, it, options);
  });
}

/** A call after dispose() throws and writes nothing; one native call for a long message. */
function afterDisposeAndCalls(kernel: AesKernel, it: Suite['it'], options: KernelSuiteOptions): void {
  if (options.throwsAfterDispose) {
    it('refuses a call after dispose() of the keyed kernel or of the POLYVAL key, writing nothing', () => {
      const K = setup(kernel, random(16));
      const src = random(64),
        dst = new Uint8Array(80),
        j0 = random(16),
        aad = random(20);
      K.hash.dispose();
      assert.throws(() => K.seal(dst, src, j0, aad, K.hash, 16), /disposed/, 'disposed hash');
      assert.throws(() => K.open(dst, dst, j0, aad, K.hash, 16), /disposed/, 'open, disposed hash');
      K.k.dispose();
      assert.throws(() => K.seal(dst, src, j0, aad, K.hash, 16), /disposed/, 'disposed kernel');
      assert.throws(() => K.open(dst, dst, j0, aad, K.hash, 16), /disposed/, 'open, disposed kernel');
      assert.ok(
        dst.every((b) => b === 0),
        'wrote dst',
      );
    });
  }
  const count = options.callCount;
  if (count) {
    it("one gcmSeal and one gcmOpen of 1 MiB with 300 bytes of AAD: one native call each, node:crypto's bytes", () => {
      const K = setup(kernel, random(32));
      const src = random((1 << 20) + 5),
        nonce = random(12),
        aad = random(300);
      const j0 = new Uint8Array(16);
      j0.set(nonce);
      j0[15] = 1;
      const dst = new Uint8Array(src.length + 16);
      const before = count();
      K.seal(dst, src, j0, aad, K.hash, 16);
      assert.equal(count() - before, 1);
      const gcm = createCipheriv('aes-256-gcm', K.key, nonce);
      gcm.setAAD(aad);
      assertBytes(dst, Buffer.concat([gcm.update(src), gcm.final(), gcm.getAuthTag()]), 'C ‖ T');
      const back = new Uint8Array(src.length);
      const beforeOpen = count();
      assert.equal(K.open(back, dst, j0, aad, K.hash, 16), true, 'open refused');
      assert.equal(count() - beforeOpen, 1, 'gcmOpen: one native call');
      assertBytes(back, src, 'open');
      done(K);
    });
  }
}
