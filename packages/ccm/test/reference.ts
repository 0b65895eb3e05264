/**
 * The reference for the tests: node:crypto's AES-CCM (OpenSSL `aes-*-ccm`), sealing to ciphertext ‖ tag
 * and opening it again.
 */
import { createCipheriv, createDecipheriv } from 'node:crypto';

type CcmName = 'aes-128-ccm' | 'aes-192-ccm' | 'aes-256-ccm';
const nameOf = (key: Uint8Array) => `aes-${key.length * 8}-ccm` as CcmName;

/**
 * OpenSSL skips its CCM update on an input without memory behind it (Node's `randomBytes(0)`), and then
 * refuses to finish ("tag not set"): an empty message goes in as a fresh empty Buffer.
 */
const input = (b: Uint8Array) => (b.length === 0 ? Buffer.alloc(0) : b);

/** node:crypto's AES-CCM: ciphertext ‖ tag. */
export function refSeal(
  key: Uint8Array,
  nonce: Uint8Array,
  plaintext: Uint8Array,
  aad: Uint8Array,
  tagLength = 16,
): Uint8Array {
  const c = createCipheriv(nameOf(key), key, nonce, { authTagLength: tagLength });
  c.setAAD(input(aad), { plaintextLength: plaintext.length });
  const body = c.update(input(plaintext));
  c.final();
  return new Uint8Array(Buffer.concat([body, c.getAuthTag()]));
}

/** node:crypto's AES-CCM decryption of ciphertext ‖ tag: the plaintext, or undefined when the tag is wrong. */
export function refOpen(
  key: Uint8Array,
  nonce: Uint8Array,
  sealed: Uint8Array,
  aad: Uint8Array,
  tagLength = 16,
): Uint8Array | undefined {
  const n = sealed.length - tagLength;
  const d = createDecipheriv(nameOf(key), key, nonce, { authTagLength: tagLength });
  d.setAuthTag(sealed.subarray(n));
  d.setAAD(input(aad), { plaintextLength: n });
  const body = d.update(input(sealed.subarray(0, n)));
  try {
    d.final();
  } catch {
    return undefined;
  }
  return new Uint8Array(body);
}
