// PBKDF2 (RFC 8018 §5.2) over a hash-wasm hasher, for the PRFs WebCrypto lacks (RIPEMD-160, Whirlpool,
// BLAKE2s-256) and for this package's Streebog-512.  HMAC's two keyed first blocks (K ⊕ ipad, K ⊕ opad) are hashed once
// and their states saved, so an iteration costs two compressions, not four (hash-wasm's own pbkdf2 hashes
// them again each time). The loop gives the event loop a turn every few thousand iterations, so that the
// other derivations (WebCrypto's, on Node's thread pool) can finish and a cancellation is seen.

/** The part of hash-wasm's IHasher used here. */
export interface Hasher {
  readonly blockSize: number;
  readonly digestSize: number;
  init(): unknown;
  update(data: Uint8Array): unknown;
  digest(outputType: 'binary'): Uint8Array;
  save(): Uint8Array;
  load(state: Uint8Array): unknown;
}

/** Iterations between two turns of the event loop. */
const SLICE = 4096;

const turn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** The saved states after K ⊕ ipad and after K ⊕ opad. */
function hmacStates(h: Hasher, password: Uint8Array): { inner: Uint8Array; outer: Uint8Array } {
  const key = new Uint8Array(h.blockSize);
  if (password.length > h.blockSize) {
    h.init();
    h.update(password);
    const d = h.digest('binary');
    key.set(d);
    d.fill(0);
  } else key.set(password);
  const pad = new Uint8Array(h.blockSize);
  for (let i = 0; i < pad.length; i++) pad[i] = key[i] ^ 0x36;
  h.init();
  h.update(pad);
  const inner = h.save();
  for (let i = 0; i < pad.length; i++) pad[i] = key[i] ^ 0x5c;
  h.init();
  h.update(pad);
  const outer = h.save();
  pad.fill(0);
  key.fill(0);
  return { inner, outer };
}

/**
 * PBKDF2-HMAC over `h` (its state is overwritten); `stop()` is asked between slices and a true answer ends
 * the derivation with undefined. Returns a new array the caller wipes.
 */
export async function pbkdf2Hasher(
  h: Hasher,
  password: Uint8Array,
  salt: Uint8Array,
  iterations: number,
  length: number,
  stop: () => boolean = () => false,
): Promise<Uint8Array | undefined> {
  const { inner, outer } = hmacStates(h, password);
  const hLen = h.digestSize;
  const out = new Uint8Array(length);
  const first = new Uint8Array(salt.length + 4);
  first.set(salt);
  const t = new Uint8Array(hLen);
  let u: Uint8Array = new Uint8Array(0);
  const hmac = (data: Uint8Array): Uint8Array => {
    h.load(inner);
    h.update(data);
    const x = h.digest('binary');
    h.load(outer);
    h.update(x);
    x.fill(0);
    return h.digest('binary');
  };
  try {
    for (let block = 1, at = 0; at < length; block++, at += hLen) {
      new DataView(first.buffer).setUint32(salt.length, block);
      u = hmac(first);
      t.set(u);
      for (let j = 1; j < iterations; j++) {
        if (j % SLICE === 0) {
          await turn();
          if (stop()) {
            out.fill(0);
            return undefined;
          }
        }
        const next = hmac(u);
        u.fill(0);
        u = next;
        for (let k = 0; k < hLen; k++) t[k] ^= u[k];
      }
      out.set(t.subarray(0, Math.min(hLen, length - at)), at);
    }
    return out;
  } finally {
    t.fill(0);
    u.fill(0);
    inner.fill(0);
    outer.fill(0);
    h.init();
  }
}
