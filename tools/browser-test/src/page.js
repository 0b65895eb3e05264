// Runs in the browser (Chromium, Firefox). Loaded by src/run.ts from a page whose import map points every
// @x package at its built dist/. Exposes window.xaes.run(cases): each case runs through @x/cbc (with the
// kernel the page asks for), through the wasm-simd128 kernel contract directly, and through @x/ctr, @x/gcm
// and @x/hctr2 (the kernel's ctr and POLYVAL); and window.xaes.adiantum(cases): Adiantum and HPolyC through
// @x/adiantum (with the kernel the page asks for) and through @x/adiantum/portable. Results go back as
// base64.
import * as adiantum from '@x/adiantum';
import * as adiantumPortable from '@x/adiantum/portable';
import { kernels, newCipher } from '@x/cbc';
import { expandKey } from '@x/aes-keyschedule';
import { init, kernel as wasmKernel } from '@x/aes-wasm-kernel';
import { newCtr } from '@x/ctr';
import { newGcm } from '@x/gcm';
import { newHctr2 } from '@x/hctr2';

const fromB64 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
function toB64(b) {
  let s = '';
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode.apply(null, b.subarray(i, i + 0x8000));
  return btoa(s);
}
/** A copy of `bytes` at byteOffset `offset` of a larger buffer. */
function at(bytes, offset) {
  const v = new Uint8Array(bytes.length + offset + 3).subarray(offset, offset + bytes.length);
  v.set(bytes);
  return v;
}

/** Every operation of one case, on an object with the Cipher's method names. */
function operations(c, k) {
  const key = fromB64(k.key),
    iv = fromB64(k.iv),
    ivs = fromB64(k.ivs);
  const data = at(fromB64(k.data), k.offset);
  const out = {};
  const run = (name, f) => {
    const dst = at(new Uint8Array(data.length), (k.offset * 3) % 16);
    f(dst, data);
    out[name] = toB64(dst);
  };
  run('encrypt', (d, s) => c.encrypt(d, s, iv));
  run('decrypt', (d, s) => c.decrypt(d, s, iv));
  run('encryptECB', (d, s) => c.encryptECB(d, s));
  run('decryptECB', (d, s) => c.decryptECB(d, s));
  run('decryptSectors', (d, s) => c.decryptSectors(d, s, k.sectorSize, ivs));
  // In place.
  const inPlace = data.slice();
  c.decrypt(inPlace, inPlace, iv);
  out.decryptInPlace = toB64(inPlace);
  void key;
  return out;
}

/** The kernel contract (v2: block primitives and fast paths) under the Cipher's method names. */
function kernelCipher(key) {
  const schedule = expandKey(key);
  const k = wasmKernel.load(schedule);
  schedule.wipe();
  return {
    kernel: 'wasm-simd128 (direct)',
    encrypt: (d, s, iv) => k.cbcEncrypt(d, s, iv),
    decrypt: (d, s, iv) => k.cbcDecryptSectors(d, s, s.length, iv), // one chain: one sector as long as src
    encryptECB: (d, s) => k.encryptBlocks(d, s),
    decryptECB: (d, s) => k.decryptBlocks(d, s),
    decryptSectors: (d, s, n, ivs) => k.cbcDecryptSectors(d, s, n, ivs),
    dispose: () => k.dispose(),
  };
}

/**
 * CTR, GCM and HCTR2 of one case on `kernel`: the CTR keystream over the data from `iv`; GCM sealed with
 * the first 12 bytes of `iv` as nonce and the first 20 bytes of `ivs` (or less) as AAD, then opened again,
 * and opened once more with a flipped tag bit (which must throw and leave dst untouched); HCTR2 with the
 * first 32 bytes of `ivs` (or less) as tweak, whole data, and decrypted back.
 */
function modes(k, kernel) {
  const key = fromB64(k.key),
    iv = fromB64(k.iv),
    ivs = fromB64(k.ivs);
  const data = at(fromB64(k.data), k.offset);
  const out = {};
  const options = kernel ? { kernel } : undefined;
  const ctr = newCtr(key, options);
  const ctrOut = new Uint8Array(data.length);
  ctr.xorKeyStream(ctrOut, data, iv);
  out.ctr = toB64(ctrOut);
  ctr.dispose();

  const gcm = newGcm(key, options);
  const nonce = iv.subarray(0, 12),
    aad = ivs.subarray(0, 20);
  const sealed = new Uint8Array(data.length + 16);
  gcm.seal(sealed, nonce, data, aad);
  out.gcmSeal = toB64(sealed);
  const opened = new Uint8Array(data.length);
  gcm.open(opened, nonce, sealed, aad);
  out.gcmOpen = toB64(opened);
  sealed[sealed.length - 1] ^= 1;
  const untouched = new Uint8Array(data.length).fill(7);
  try {
    gcm.open(untouched, nonce, sealed, aad);
    out.gcmForgery = 'accepted';
  } catch (e) {
    out.gcmForgery = `${e?.message}${untouched.every((b) => b === 7) ? '' : ', dst written'}`;
  }
  gcm.dispose();

  const hctr2 = newHctr2(key, options);
  const tweak = ivs.subarray(0, 32);
  const enc = new Uint8Array(data.length);
  hctr2.encrypt(enc, data, tweak);
  out.hctr2 = toB64(enc);
  hctr2.decrypt(enc, enc, tweak);
  out.hctr2Back = toB64(enc);
  hctr2.dispose();
  return { kernel: ctr.kernel, out };
}

/**
 * One Adiantum or HPolyC case through one entry point (`@x/adiantum` or `@x/adiantum/portable`): a message
 * under its tweak (`sectorSize` 0), or whole sectors through the sector calls with 32 bytes of tweak each
 * (as Linux's adiantum template takes dm-crypt's IV). `encrypt` of the data and `decrypt` of the data (as
 * if it were a ciphertext), src and dst at other byte offsets; `back`: the encryption decrypted in place.
 */
function hbsh(entry, k, kernel) {
  const make = k.variant === 'hpolyc' ? entry.newHpolyc : entry.newAdiantum;
  const c = make(fromB64(k.key), kernel ? { rounds: k.rounds, kernel } : { rounds: k.rounds });
  const tweak = fromB64(k.tweak);
  const data = at(fromB64(k.data), k.offset);
  const crypt = (decrypt, d, s) => {
    if (k.sectorSize === 0) (decrypt ? c.decrypt : c.encrypt).call(c, d, s, tweak);
    else (decrypt ? c.decryptSectors : c.encryptSectors).call(c, d, s, k.sectorSize, tweak);
  };
  const out = {};
  const enc = at(new Uint8Array(data.length), (k.offset * 5 + 3) % 16);
  crypt(false, enc, data);
  out.encrypt = toB64(enc);
  const dec = at(new Uint8Array(data.length), (k.offset * 7 + 1) % 16);
  crypt(true, dec, data);
  out.decrypt = toB64(dec);
  crypt(true, enc, enc);
  out.back = toB64(enc);
  const result = { kernel: c.kernel, out };
  c.dispose();
  return result;
}

/**
 * Whether a new cipher of `@x/adiantum` would get the WebAssembly core: its core-wasm.js module (the very
 * instance index.js imports, found beside it through the import map) asked for a core. 'wasm-simd128', or
 * null where WebAssembly is blocked or not yet compiled (then every cipher takes the portable core).
 */
async function wasmCoreName() {
  const url = new URL('./core-wasm.js', import.meta.resolve('@x/adiantum')).href;
  const { wasmCore } = await import(url);
  return wasmCore()?.name ?? null;
}

/**
 * Every case through `@x/adiantum` (with `kernel`, or its own choice) and through `@x/adiantum/portable`,
 * after `init()` when `callInit`; with the kernels it lists and whether it has the WebAssembly core.
 */
async function runAdiantum({ cases, kernel, callInit }) {
  // init() of @x/adiantum compiles the AES kernel's module and the core's module asynchronously.
  if (callInit) await adiantum.init();
  const result = { kernels: adiantum.kernels(), wasmCore: null, index: [], portable: [], errors: [] };
  try {
    result.wasmCore = await wasmCoreName();
  } catch (e) {
    result.errors.push(`@x/adiantum core-wasm.js: ${e?.message}`);
  }
  for (const k of cases) {
    for (const [list, entry, name, kernelOption] of [
      [result.index, adiantum, '@x/adiantum', kernel],
      [result.portable, adiantumPortable, '@x/adiantum/portable', undefined],
    ]) {
      try {
        list.push(hbsh(entry, k, kernelOption));
      } catch (e) {
        result.errors.push(`${name} ${k.name}: ${e?.message}`);
      }
    }
  }
  return result;
}

window.xaes = {
  adiantum: runAdiantum,
  async run({ cases, kernel, callInit }) {
    if (callInit) await init();
    const result = {
      kernels: kernels(),
      wasmAvailable: wasmKernel.isAvailable(),
      viaCbc: [],
      direct: [],
      modes: [],
      errors: [],
    };
    for (const k of cases) {
      try {
        const c = newCipher(fromB64(k.key), kernel ? { kernel } : undefined);
        result.viaCbc.push({ kernel: c.kernel, out: operations(c, k) });
        c.dispose();
      } catch (e) {
        result.errors.push(`@x/cbc: ${e?.message}`);
      }
      try {
        result.modes.push(modes(k, kernel));
      } catch (e) {
        result.errors.push(`modes: ${e?.message}`);
      }
      if (result.wasmAvailable) {
        const d = kernelCipher(fromB64(k.key));
        result.direct.push({ kernel: d.kernel, out: operations(d, k) });
        d.dispose();
      }
    }
    return result;
  },
};
window.xaesReady = true;
