import { createCipheriv, createDecipheriv } from 'node:crypto';

export const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'));
export const toHex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

const algo = (key: Uint8Array, mode: 'ecb' | 'cbc') => `aes-${8 * key.length}-${mode}`;

/** node:crypto (OpenSSL) as the reference, padding off. */
export function refEncrypt(mode: 'ecb' | 'cbc', key: Uint8Array, data: Uint8Array, iv?: Uint8Array): Uint8Array {
  const c = createCipheriv(algo(key, mode), key, mode === 'ecb' ? null : iv!).setAutoPadding(false);
  return new Uint8Array(Buffer.concat([c.update(data), c.final()]));
}

export function refDecrypt(mode: 'ecb' | 'cbc', key: Uint8Array, data: Uint8Array, iv?: Uint8Array): Uint8Array {
  const c = createDecipheriv(algo(key, mode), key, mode === 'ecb' ? null : iv!).setAutoPadding(false);
  return new Uint8Array(Buffer.concat([c.update(data), c.final()]));
}
