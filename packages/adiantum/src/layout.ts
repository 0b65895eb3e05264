/**
 * The memory of an HBSH core (Adiantum, HPolyC): one layout for the WebAssembly core and the portable one,
 * so that the construction (`hbsh.ts`) drives both the same way. All offsets are bytes; every area the
 * caller writes is 16-byte aligned.
 */

/** The 32-byte master key K (XChaCha's key). */
export const KEY = 0;
/** The 24-byte XChaCha nonce of `stream` (the construction writes C_M ‖ 1 ‖ 0^7 here). */
export const NONCE = 32;
/** [64, 1024): the core's own scratch (stream subkey, rounds, padding blocks); never touched by callers. */
export const PRIVATE = 64;
/**
 * The derived keys `setup` writes: K_E (the AES-256 key, 32 bytes) first; then for Adiantum K_T (16),
 * K_M (16) and K_N (the 1072-byte NH key), for HPolyC K_H (16).
 */
export const DERIVED = 1024;
/** Where the NH key starts (Adiantum). */
export const NH_KEY = DERIVED + 64;
/** Header bytes the construction writes for `header` (bit length and tweak): up to HDR_BYTES at once. */
export const HDR = 2304;
export const HDR_BYTES = 1792;
/** The most messages one group of a sector call holds (X, Y and header states are sized for it). */
export const MAX_GROUP = 256;
/** X (the AES input) of each message of a group, 16 bytes each. */
export const XS = 4096;
/** Y = E_K(X) or D_K(X) of each message of a group, 16 bytes each. */
export const YS = XS + 16 * MAX_GROUP;
/** One hash state per message of a group, STATE_BYTES each (opaque: the core's own format). */
export const STATES = YS + 16 * MAX_GROUP;
export const STATE_BYTES = 96;
/** Messages, or the current chunk of a long one. */
export const DATA = 65536;
export const DATA_BYTES = 131072;
/** The whole memory: DATA_BYTES past DATA (three 64 KiB pages). */
export const MEMORY_BYTES = DATA + DATA_BYTES;
/** NH's unit of work: a whole number of these per `absorb` call. */
export const NH_CHUNK = 1024;
