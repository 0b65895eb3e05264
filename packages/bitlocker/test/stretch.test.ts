// The key stretching on SHA-256's compression function against the structure hashed the plain way with
// node:crypto, and the recovery password rules (libbde "Recovery key").
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { passwordInitial, recoveryKey, STRETCH_ROUNDS, stretchKey } from '../src/stretch.js';

/** The structure { last, initial, salt, count u64 LE } hashed `rounds` times through node:crypto. */
function reference(initial: Uint8Array, salt: Uint8Array, rounds: number): Uint8Array {
  const s = new Uint8Array(88);
  s.set(initial, 32);
  s.set(salt, 64);
  const view = new DataView(s.buffer);
  for (let i = 0; i < rounds; i++) {
    s.set(createHash('sha256').update(s).digest(), 0);
    view.setBigUint64(80, BigInt(i + 1), true);
  }
  return s.slice(0, 32);
}

describe('stretchKey', () => {
  it('equals the structure hashed through node:crypto, for any initial value, salt and round count', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.integer({ min: 0, max: 300 }),
        (initial, salt, rounds) => {
          expect(stretchKey(initial, salt, rounds)).toEqual(reference(initial, salt, rounds));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('runs BitLocker’s 2^20 rounds as the reference does', () => {
    const initial = Uint8Array.from({ length: 32 }, (_, i) => i * 7);
    const salt = Uint8Array.from({ length: 16 }, (_, i) => 255 - i);
    expect(STRETCH_ROUNDS).toBe(0x100000);
    expect(stretchKey(initial, salt)).toEqual(reference(initial, salt, STRETCH_ROUNDS));
  });

  it('hashes a password as SHA-256(SHA-256(UTF-16LE))', () => {
    const sha = (b: Uint8Array) => createHash('sha256').update(b).digest();
    const pw = 'pässwörd 🔑';
    expect(Buffer.from(passwordInitial(pw))).toEqual(sha(sha(Buffer.from(pw, 'utf16le'))));
  });
});

describe('recoveryKey', () => {
  // libbde's example recovery password; each group / 11 is a little-endian u16 of the key
  const example = '471207-278498-422125-177177-561902-537405-468006-693451';
  const expected = Uint8Array.from(
    example.split('-').flatMap((g) => {
      const q = Number(g) / 11;
      return [q & 0xff, q >> 8];
    }),
  );

  it('takes 8 dash-separated groups, or 48 digits, or either with spaces around', () => {
    expect(recoveryKey(example)).toEqual(expected);
    expect(recoveryKey(example.replaceAll('-', ''))).toEqual(expected);
    expect(recoveryKey(` ${example}\n`)).toEqual(expected);
  });

  it.each([
    ['a group not divisible by 11', example.replace('471207', '471208')],
    ['a group of 720896 (65536 × 11) or more', example.replace('471207', '720896')],
    ['seven groups', example.slice(7)],
    ['a letter', example.replace('4', 'a')],
    ['the empty string', ''],
    ['groups of 5', '47120-27849-42212-17717-56190-53740-46800-69345'],
  ])('refuses %s', (_why, text) => {
    expect(recoveryKey(text)).toBeUndefined();
  });
});
