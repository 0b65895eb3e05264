// dm-crypt cipher specifications, as dm-crypt's table parser and cryptsetup read them
// (drivers/md/dm-crypt.c, crypt_ctr_cipher_old / crypt_ctr_cipher_new; LUKS1 spec Appendix B, Tables 1–2):
//
//   old form:   <cipher>-<chainmode>[-<ivmode>[:<ivopts>]]      e.g. aes-cbc-essiv:sha256, aes-xts-plain64
//   capi form:  capi:<chainmode>(<cipher>)[-<ivmode>[:<ivopts>]]  e.g. capi:xts(aes)-plain64
//
// Only AES is handled here, with the chaining modes cbc, xts, lrw, hctr2 and ecb. LRW is Linux's
// `lrw(aes)` (crypto/lrw.c; TrueCrypt 4.1–4.3), reached as `aes-lrw-benbi`, its key the AES key ‖ the
// 16-byte tweak key. TrueCrypt 1.0–4.0's CBC is the IV mode `tcw` with cbc only (`aes-cbc-tcw`), its key
// the AES key ‖ the 16-byte IV seed ‖ the 16-byte whitening (crypt_iv_tcw_*; key_parts + 2). HCTR2 is the kernel crypto
// API's `hctr2(aes)` (crypto/hctr2.c), which dm-crypt reaches as `aes-hctr2-plain64` (the old form builds
// `<chainmode>(<cipher>)`) or `capi:hctr2(aes)-plain64`; its IV is 32 bytes (the template's ivsize), so
// the IV modes write into 32 bytes: plain and plain64 the sector number little-endian at the start,
// plain64be big-endian at the end, the rest zeros (dm-crypt's crypt_iv_*_gen memset the whole IV first).
//
// Adiantum is the kernel's `adiantum(xchacha12,aes)` / `adiantum(xchacha20,aes)` (crypto/adiantum.c): the
// old form names the two ciphers, `xchacha12,aes-adiantum-plain64` (dm-crypt builds
// `adiantum(xchacha12,aes)` from it), the capi form `capi:adiantum(xchacha12,aes)-plain64`. Its IV is 32
// bytes too, filled by the same IV modes as HCTR2's; its key is 32 bytes (XChaCha's key).
//
// BitLocker's AES-CBC + Elephant diffuser (Windows Vista and 7) is dm-crypt's IV mode `elephant`, with cbc
// only: `aes-cbc-elephant`, `capi:cbc(aes)-elephant` (crypt_iv_elephant_ops; cryptsetup maps BitLocker
// Elephant volumes with it). Its key is two halves, the CBC key ‖ the elephant key (key_parts 2).

/**
 * A parsed dm-crypt cipher specification.
 *
 * @example
 * ```ts
 * const s: CipherSpec = parseCipherSpec('aes-xts-plain64');
 * s.chainMode; // 'xts'
 * ```
 */
export interface CipherSpec {
  /** The cipher: `'aes'`, or for Adiantum its stream and block ciphers, `'xchacha12,aes'` or `'xchacha20,aes'`. */
  readonly cipher: 'aes' | 'xchacha12,aes' | 'xchacha20,aes';
  /**
   * The chaining mode (`'hctr2'`: the wide-block HCTR2, Linux `hctr2(aes)`; `'adiantum'`: Adiantum, Linux
   * `adiantum(xchacha12,aes)`).
   */
  readonly chainMode: 'cbc' | 'xts' | 'lrw' | 'hctr2' | 'adiantum' | 'ecb';
  /**
   * The IV mode with its options in dm-crypt's words (`'essiv:sha256'`, `'plain64'`; `'elephant'`: eboiv
   * IVs plus BitLocker's Elephant diffuser), `''` for ecb.
   */
  readonly ivMode: string;
  /** The same cipher in the old form, e.g. `'aes-xts-plain64'` for `'capi:xts(aes)-plain64'`. */
  readonly canonical: string;
}

const PREFIX = '@x/dm-crypt';

/** IV modes of `@x/disk-iv`, by the chaining modes that take them. */
// elephant: CBC with eboiv IVs and the Elephant diffuser (BitLocker), a key of two halves.
// tcw: TrueCrypt 1.0–4.0's CBC, IVs from a seed and the data whitened (key = AES key ‖ seed ‖ whitening).
const CBC_IV_MODES = /^(?:plain|plain64|plain64be|benbi|null|eboiv|elephant|tcw|essiv:[a-z0-9-]+)$/;
// XTS and LRW take the IV modes that do not use the key (its 32/64-byte key is not an AES key for essiv/eboiv).
const XTS_IV_MODES = /^(?:plain|plain64|plain64be|benbi|null)$/;
// HCTR2 and Adiantum take the IV modes whose 32-byte IV is the 16-byte one of @x/disk-iv zero-extended
// (benbi's shift depends on the template's block size, and essiv/eboiv encrypt a 16-byte IV: left out).
const WIDE_IV_MODES = /^(?:plain|plain64|plain64be|null)$/;

function unknown(spec: string, why: string): never {
  throw new RangeError(`${PREFIX}: unsupported cipher spec "${spec}": ${why}`);
}

/**
 * Parses a dm-crypt cipher specification in the old form (`aes-cbc-essiv:sha256`, `aes-cbc-elephant`) or
 * the `capi:` form cryptsetup writes for kernel crypto API names (`capi:xts(aes)-plain64`). Throws a `RangeError`
 * naming the spec for anything `newSectorCipher` cannot run.
 *
 * @example
 * ```ts
 * import { parseCipherSpec } from '@x/dm-crypt';
 * parseCipherSpec('capi:cbc(aes)-essiv:sha256');
 * // { cipher: 'aes', chainMode: 'cbc', ivMode: 'essiv:sha256', canonical: 'aes-cbc-essiv:sha256' }
 * ```
 */
export function parseCipherSpec(spec: string): CipherSpec {
  if (typeof spec !== 'string') throw new TypeError(`${PREFIX}: cipher spec must be a string`);
  let cipher: string;
  let chain: string;
  let iv: string;
  if (spec.startsWith('capi:')) {
    // dm-crypt splits the IV options at the last ':' and the IV mode at the last '-' before them.
    const m = /^capi:([a-z0-9]+)\(([a-z0-9]+(?:,[a-z0-9]+)?)\)(?:-(.+))?$/.exec(spec);
    if (!m) unknown(spec, 'expected capi:<mode>(<cipher>)[-<ivmode>]');
    [, chain, cipher, iv = ''] = m;
  } else {
    const m = /^([a-z0-9]+(?:,[a-z0-9]+)?)-([a-z0-9]+)(?:-(.+))?$/.exec(spec);
    if (!m) unknown(spec, 'expected <cipher>-<mode>[-<ivmode>], e.g. aes-xts-plain64');
    [, cipher, chain, iv = ''] = m;
  }
  if (chain === 'adiantum') {
    if (cipher !== 'xchacha12,aes' && cipher !== 'xchacha20,aes') {
      unknown(spec, `cipher "${cipher}" is not supported with adiantum (xchacha12,aes or xchacha20,aes)`);
    }
  } else if (cipher !== 'aes') {
    unknown(spec, `cipher "${cipher}" is not supported (only aes, and xchacha12,aes or xchacha20,aes with adiantum)`);
  }
  if (chain === 'ecb') {
    if (iv !== '') unknown(spec, 'ecb takes no IV mode');
  } else if (chain === 'cbc' || chain === 'xts' || chain === 'lrw' || chain === 'hctr2' || chain === 'adiantum') {
    const example = chain === 'cbc' ? 'essiv:sha256' : chain === 'lrw' ? 'benbi' : 'plain64';
    if (iv === '') unknown(spec, `${chain} needs an IV mode (e.g. ${example})`);
    const ok = chain === 'cbc' ? CBC_IV_MODES : chain === 'xts' || chain === 'lrw' ? XTS_IV_MODES : WIDE_IV_MODES;
    if (!ok.test(iv)) unknown(spec, `IV mode "${iv}" is not supported with ${chain}`);
  } else {
    unknown(spec, `chaining mode "${chain}" is not supported (cbc, xts, lrw, hctr2, adiantum, ecb)`);
  }
  return Object.freeze({
    cipher: cipher as CipherSpec['cipher'],
    chainMode: chain as CipherSpec['chainMode'],
    ivMode: iv,
    canonical: iv === '' ? `${cipher}-${chain}` : `${cipher}-${chain}-${iv}`,
  });
}
