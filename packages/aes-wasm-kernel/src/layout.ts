/**
 * The fixed layout of the kernel's one linear memory (a single 64 KiB page, declared with maximum 1 so
 * it can never grow). The generator (scripts/build.ts) and the runtime (kernel.ts) both read it.
 *
 * | from | size | contents |
 * |---|---|---|
 * | {@link TABLES} | 2 KiB | the constant tables and permutations (data segment), never written at run time |
 * | {@link KEY_IN} | 256 B | round keys in FIPS byte order, only while `load()` converts them |
 * | {@link KEY_ENC} | 256 B | the active key's converted encryption round keys |
 * | {@link KEY_DEC} | 256 B | the active key's converted decryption round keys |
 * | {@link BS_ENC} | 2 KiB | the active key's encryption round keys, bitsliced (8 planes of 16 B per round) |
 * | {@link BS_DEC} | 2 KiB | the active key's decryption round keys, bitsliced |
 * | {@link IV} | 32 B | the CBC chaining value or XTS tweak between chunks; the CTR counter state (xctr: IV, then counter) |
 * | {@link IVS} | 2 KiB | the IVs of the sectors of one chunk |
 * | {@link DATA} | 32 KiB | one chunk of blocks, processed in place |
 * | {@link POLY_POW} | 128 B | the active POLYVAL key's powers K_1..K_8 (K_1 = H, K_{k+1} = K_k·H·x^-128) |
 * | {@link POLY_TABLE} | 2592 B | the active POLYVAL key's powers expanded: Karatsuba operands and bit classes |
 * | {@link POLY_ACC} | 16 B | the POLYVAL accumulator during an update |
 * | {@link POLY_TAIL} | 128 B | a last batch of fewer than 8 blocks, zero-padded in front |
 * | {@link POLY_LEAVES} | 432 B | the 27 Karatsuba products of a batch (scripts/polyval.ts) |
 */

/** Bytes of one WebAssembly page; the memory has exactly one. */
export const PAGE = 65536;
/** Start of the constant tables. */
export const TABLES = 0;
/** Staging area for the schedule's round keys while they are converted. */
export const KEY_IN = 2048;
/** The active converted encryption round keys, 16·(rounds+1) bytes. */
export const KEY_ENC = 2304;
/** The active converted decryption round keys. */
export const KEY_DEC = 2560;
/** The active bitsliced encryption round keys: plane j of round key r at BS_ENC + 128r + 16j. */
export const BS_ENC = 2816;
/** The active bitsliced decryption round keys. */
export const BS_DEC = 4864;
/** Bytes of key memory: KEY_IN up to IV. */
export const KEY_BYTES = 4864;
/** The chaining value. */
export const IV = 6912;
/** Bytes at {@link IV}: a chaining value, or a CTR state (XCTR's IV and its little-endian counter). */
export const IV_BYTES = 32;
/** Sector IVs of the chunk in flight. */
export const IVS = 7168;
/** Capacity of {@link IVS} in bytes (128 sectors per call). */
export const IVS_BYTES = 2048;
/** The chunk buffer. */
export const DATA = 10240;
/** Bytes per call into WebAssembly; larger inputs go through in chunks of this size. */
export const CHUNK = 32768;
/** Blocks the bitsliced core functions encrypt or decrypt at once. */
export const WIDTH = 8;
/** The active POLYVAL key's powers: K_k at POLY_POW + 16(k - 1), k = 1..8. */
export const POLY_POW = 43008;
/** Bytes of POLYVAL key powers, what a POLYVAL key keeps in JavaScript. */
export const POLY_POW_BYTES = 128;
/** The active POLYVAL key's expanded table (scripts/polyval.ts), right after the powers. */
export const POLY_TABLE = 43136;
/** Bytes of {@link POLY_TABLE}: 2 groups × 27 Karatsuba operands × 3 bit classes × 16 bytes. */
export const POLY_TABLE_BYTES = 2592;
/** The POLYVAL accumulator; it starts the scratch that every update wipes (up to {@link POLY_END}). */
export const POLY_ACC = 45728;
/** The last, partial batch of a POLYVAL update. */
export const POLY_TAIL = 45744;
/** The Karatsuba products of the batch in flight. */
export const POLY_LEAVES = 45872;
/** End of POLYVAL's scratch (POLY_ACC up to here). */
export const POLY_END = 46304;
