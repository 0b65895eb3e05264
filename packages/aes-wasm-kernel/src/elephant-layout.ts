/**
 * The memory layout of the Elephant diffuser module (scripts/elephant.ts), its own WebAssembly.Memory:
 * offsets in bytes, every one a multiple of 16. The memory starts at one page and src/elephant.ts grows it
 * to fit a call (up to {@link ELEPHANT_CHUNK} bytes of sectors); it never shrinks.
 */

/** Four sectors transposed: word j of the sectors of lanes 0–3 as the v128 at ELEPHANT_WORK + 16j. */
export const ELEPHANT_WORK = 256;
/** Bytes of {@link ELEPHANT_WORK}: four sectors of the largest size, 4096 bytes. */
export const ELEPHANT_WORK_BYTES = 4 * 4096;
/** The sector keys of the chunk in flight: 32 bytes a sector. */
export const ELEPHANT_KEYS = ELEPHANT_WORK + ELEPHANT_WORK_BYTES;
/** The sectors of the chunk in flight. */
export const ELEPHANT_DATA = ELEPHANT_KEYS + 32 * 2048;
/** Bytes of sectors per call into WebAssembly; larger inputs go through in chunks of this size. */
export const ELEPHANT_CHUNK = 1 << 20;
/** Sectors diffused side by side, one per 32-bit lane of a v128. */
export const ELEPHANT_LANES = 4;
