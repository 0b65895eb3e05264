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
 * | {@link IV} | 16 B | the CBC chaining value between chunks |
 * | {@link IVS} | 2 KiB | the IVs of the sectors of one chunk |
 * | {@link DATA} | 32 KiB | one chunk of blocks, processed in place |
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
