/*
 * AES on the ARMv8 Cryptographic Extension: the kernels the Node-API glue (addon.c) calls.
 *
 * Round keys are the bytes of @x/aes-keyschedule: `rk` is the expanded key of FIPS 197 §5.2, round key r
 * at bytes 16r .. 16r+15; `dk` is the schedule of the equivalent inverse cipher of FIPS 197 §5.3.5 in the
 * order it is applied. Both hold rounds + 1 round keys; rounds is 10, 12 or 14.
 *
 * Lengths are in 16-byte blocks (CTR's in bytes). `dst` and `src` are either the same bytes or do not overlap at all; every
 * kernel reads the blocks it needs before it writes over them, so "in place" is safe.
 */
#ifndef X_AES_ARM64_H
#define X_AES_ARM64_H

#include <stddef.h>
#include <stdint.h>

/* Blocks the kernels interleave: eight AESE/AESD chains in flight hide the instruction latency. */
#define AES_ARM64_PARALLEL_BLOCKS 8

/* Largest schedule: 15 round keys of 16 bytes (AES-256, FIPS 197 §5 Figure 4). */
#define AES_ARM64_MAX_SCHEDULE_BYTES (16 * 15)

/* Each block on its own: the cipher (FIPS 197 §5.1) with `rk`, the equivalent inverse cipher (§5.3.5) with `dk`. */
void aes_arm64_encrypt_blocks(const uint8_t *rk, int rounds, uint8_t *dst, const uint8_t *src, size_t blocks);
void aes_arm64_decrypt_blocks(const uint8_t *dk, int rounds, uint8_t *dst, const uint8_t *src, size_t blocks);
/* CBC encryption of one chain (NIST SP 800-38A §6.2): serial, from the 16-byte `iv`. */
void aes_arm64_cbc_encrypt(const uint8_t *rk, int rounds, uint8_t *dst, const uint8_t *src, size_t blocks,
                           const uint8_t *iv);
/*
 * CBC decryption of `sectors` chains of `sector_blocks` blocks, chain s from IV `ivs + 16s`: eight blocks
 * of a chain interleaved, then its 1-7 block tail. One chain is one sector of all the blocks.
 */
void aes_arm64_cbc_decrypt_sectors(const uint8_t *dk, int rounds, uint8_t *dst, const uint8_t *src,
                                   size_t sectors, size_t sector_blocks, const uint8_t *ivs);
/*
 * CBC encryption of `sectors` chains of `sector_blocks` blocks, chain s from IV `ivs + 16s`: eight sectors
 * interleaved (block k of each in one batch), the last 1-7 one chain at a time.
 */
void aes_arm64_cbc_encrypt_sectors(const uint8_t *rk, int rounds, uint8_t *dst, const uint8_t *src,
                                   size_t sectors, size_t sector_blocks, const uint8_t *ivs);
/*
 * XTS-AES (IEEE 1619 §5.3.1, §5.4.1) of whole blocks: `units` data units of `unit_blocks` blocks, unit u
 * starting from the encrypted tweak T = E_K2(i) at `tweaks + 16u`; block j of a unit uses T·α^j.
 * Encryption takes `rk`, decryption `dk`, as the other kernels do.
 */
void aes_arm64_xts_encrypt(const uint8_t *rk, int rounds, uint8_t *dst, const uint8_t *src, size_t units,
                           size_t unit_blocks, const uint8_t *tweaks);
void aes_arm64_xts_decrypt(const uint8_t *dk, int rounds, uint8_t *dst, const uint8_t *src, size_t units,
                           size_t unit_blocks, const uint8_t *tweaks);
/*
 * CTR (NIST SP 800-38A §6.5): the keystream of counter blocks from the 16-byte `iv` XORed into `dst` for
 * `len` bytes (any length, the last block partial). `counter` is AES_NATIVE_CTR_BE128 (iv + j modulo 2^128,
 * big-endian), AES_NATIVE_CTR_BE32 (GCM's inc32: the last 4 bytes + j modulo 2^32) or AES_NATIVE_CTR_XCTR
 * (HCTR2's iv ^ le128(j + 1)), from aes_native.h. Eight blocks interleaved, then the tail.
 */
void aes_arm64_ctr(const uint8_t *rk, int rounds, uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *iv,
                   int counter);
/*
 * POLYVAL (RFC 8452 §3) with PMULL/PMULL2. polyval_init fills `table` (16-byte aligned; 192 of the
 * AES_NATIVE_POLYVAL_TABLE_BYTES are used) with H^1 .. H^8 and their Karatsuba halves; polyval_update does
 * acc = (acc ^ X) · H · x^-128 for each block X of `data` (byte-reversed first when `reversed`: GHASH, RFC 8452
 * Appendix A), eight blocks per reduction. Constant time.
 */
void aes_arm64_polyval_init(uint8_t *table, const uint8_t *h);
void aes_arm64_polyval_update(const uint8_t *table, uint8_t *acc, const uint8_t *data, size_t blocks, int reversed);

#endif
