// Metadata edits the way Windows writes metadata: after a change to an FVE metadata block, its CRC-32 and
// its authentication (the SHA-256 of the block, AES-CCM encrypted with the VMK) are made anew, so that the
// change reaches every field (what only someone holding the VMK can do). Used by the hostile-image tests
// and the fuzz suite.
import { sha256 } from '@noble/hashes/sha2.js';
import { newCcm } from '@x/ccm';
import { crc32 } from '../src/bytes.js';

const le = (img: Uint8Array) => new DataView(img.buffer, img.byteOffset, img.byteLength);

/** The three FVE metadata block offsets the boot sector of `img` gives (To Go: at 440, else at 176). */
export function copyOffsets(img: Uint8Array): number[] {
  const togo = new TextDecoder('latin1').decode(img.subarray(3, 11)) === 'MSWIN4.1';
  const at = togo ? 440 : 176;
  return [0, 1, 2].map((i) => Number(le(img).getBigUint64(at + 8 * i, true)));
}

/** The size of the block at `at` (the CRC-32 and the SHA-256 cover [at, at + size)). */
export const blockSize = (img: Uint8Array, at: number): number => le(img).getUint16(at + 8, true) * 16;

/** Makes the CRC-32 of the block at `at` (of `size` bytes) anew: what anyone can do, no VMK needed. */
export function recrc(img: Uint8Array, at: number, size: number): void {
  le(img).setUint32(at + size + 4, crc32(img.subarray(at, at + size)), true);
}

/**
 * Makes the CRC-32 and the VMK-sealed SHA-256 of the block at `at` (of `size` bytes, the size the block had
 * before any edit) anew. The validation must be intact (its 12-byte header is kept).
 */
export function resealCopy(img: Uint8Array, at: number, size: number, vmk: Uint8Array): void {
  recrc(img, at, size);
  // the validation datum: 8-byte header, nonce 12, tag 16, ciphertext (a 12-byte header + the SHA-256)
  const datum = at + size + 8 + 8;
  const nonce = img.slice(datum, datum + 12);
  const tag = img.subarray(datum + 12, datum + 28);
  const body = img.subarray(datum + 28, datum + 28 + 44);
  const ccm = newCcm(vmk);
  try {
    const plain = new Uint8Array(44);
    ccm.openDetached(plain, nonce, body, tag);
    plain.set(sha256(img.subarray(at, at + size)), 12);
    ccm.sealDetached(body, tag, nonce, plain);
  } finally {
    ccm.dispose();
  }
}

/** Edits every metadata copy of a copy of `img` with `edit(image, blockOffset, blockSize)`, then reseals each. */
export function rewriteMetadata(
  img: Uint8Array,
  vmk: Uint8Array,
  edit: (out: Uint8Array, at: number, size: number) => void,
  copies: readonly number[] = [0, 1, 2],
): Uint8Array {
  const out = Uint8Array.from(img);
  const offsets = copyOffsets(img);
  for (const i of copies) {
    const at = offsets[i];
    const size = blockSize(out, at);
    edit(out, at, size);
    resealCopy(out, at, size, vmk);
  }
  return out;
}

/** Where `needle` is in `img[from, to)`, or -1. */
export function find(img: Uint8Array, needle: Uint8Array, from: number, to: number): number {
  const first = needle[0];
  for (let i = from; i + needle.length <= to; i++) {
    if (img[i] !== first) continue;
    let j = 1;
    while (j < needle.length && img[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}
