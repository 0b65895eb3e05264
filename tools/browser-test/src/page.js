// Runs in Chromium. Loaded by src/run.ts from a page whose import map points every @x package at its
// built dist/. Exposes window.xaes.run(cases): each case runs through @x/cbc (with the kernel the page
// asks for) and through the wasm-simd128 kernel contract directly; results go back as base64.
import { kernels, newCipher } from '@x/cbc';
import { expandKey } from '@x/aes-keyschedule';
import { init, kernel as wasmKernel } from '@x/aes-wasm-kernel';

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

window.xaes = {
  async run({ cases, kernel, callInit }) {
    if (callInit) await init();
    const result = { kernels: kernels(), wasmAvailable: wasmKernel.isAvailable(), viaCbc: [], direct: [], errors: [] };
    for (const k of cases) {
      try {
        const c = newCipher(fromB64(k.key), kernel ? { kernel } : undefined);
        result.viaCbc.push({ kernel: c.kernel, out: operations(c, k) });
        c.dispose();
      } catch (e) {
        result.errors.push(`@x/cbc: ${e?.message}`);
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
