// CRC-32 (ISO-HDLC: the reflected polynomial 0xEDB88320, as zlib and cryptsetup's crypt_crc32 compute it):
// TrueCrypt and VeraCrypt check the key area and the header fields with it, and mix keyfiles into the
// password with its running register.

const TABLE = /* @__PURE__ */ (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** The CRC register after `b[from .. to)`, from `crc` (no inversion on either side). */
export function crc32Update(crc: number, b: Uint8Array, from = 0, to = b.length): number {
  let c = crc >>> 0;
  for (let i = from; i < to; i++) c = TABLE[(c ^ b[i]) & 0xff] ^ (c >>> 8);
  return c >>> 0;
}

/**
 * The CRC-32 of `b[from .. to)` (register starts at 2^32 − 1, result inverted).
 *
 * @example
 * ```ts
 * crc32(new TextEncoder().encode('123456789')); // 0xcbf43926
 * ```
 */
export function crc32(b: Uint8Array, from = 0, to = b.length): number {
  return (crc32Update(0xffffffff, b, from, to) ^ 0xffffffff) >>> 0;
}
