// Streebog-512 against the published examples: RFC 6986 §10.1 (GOST R 34.11-2012's own examples M1 and M2),
// RFC 7836 §A.1.2's HMAC_GOSTR3411_2012_512, and R 50.1.111-2016's PBKDF2 with it (c = 1 and 2); digests are
// written here least significant byte first, as the bytes come out (the RFCs print them reversed).
import { describe, expect, it } from 'vitest';
import { newStreebog512 } from '../src/index.js';
import { pbkdf2Hasher } from '../src/pbkdf2-wasm.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const bytes = (h: string) => new Uint8Array(Buffer.from(h, 'hex'));
const reversed = (h: string) => hex(bytes(h).reverse());

describe('Streebog-512', () => {
  it('RFC 6986 §10.1.1: M1, 63 bytes', () => {
    const h = newStreebog512();
    h.update(new TextEncoder().encode('012345678901234567890123456789012345678901234567890123456789012'));
    // RFC 6986 prints H(M1) = 486f64c1 … 1a1b (most significant first)
    expect(hex(h.digest('binary'))).toBe(
      reversed(
        '486f64c1917879417fef082b3381a4e211c324f074654c38823a7b76f830ad00fa1fbae42b1285c0352f227524bc9ab16254288dd6863dccd5b9f54a1ad0541b',
      ),
    );
  });
  it('RFC 6986 §10.2.1: M2, 72 bytes (two blocks), fed in pieces', () => {
    const m = bytes(
      'd1e520e2e5f2f0e82c20d1f2f0e8e1eee6e820e2edf3f6e82c20e2e5fef2fa20f120eceef0ff20f1f2f0e5ebe0ece820ede020f5f0e0e1f0fbff20efebfaeafb20c8e3eef0e5e2fb',
    );
    const h = newStreebog512();
    h.update(m.subarray(0, 5));
    h.update(m.subarray(5, 70));
    h.update(m.subarray(70));
    expect(hex(h.digest('binary'))).toBe(
      '1e88e62226bfca6f9994f1f2d51569e0daf8475a3b0fe61a5300eee46d961376035fe83549ada2b8620fcd7c496ce5b33f0cb9dddc2b6460143b03dabac9fb28',
    );
  });
  it('save and load carry the state across', () => {
    const a = newStreebog512();
    a.update(new Uint8Array(100).fill(7));
    const s = a.save();
    a.update(Uint8Array.of(1));
    const d1 = a.digest('binary');
    const b = newStreebog512();
    b.load(s);
    b.update(Uint8Array.of(1));
    expect(hex(b.digest('binary'))).toBe(hex(d1));
  });
  it('RFC 7836 §A.1.2: HMAC_GOSTR3411_2012_512', () => {
    const key = Uint8Array.from({ length: 32 }, (_, i) => i);
    const data = bytes('0126bdb87800af214341456563780100');
    const h = newStreebog512();
    const k = new Uint8Array(64);
    k.set(key);
    h.update(k.map((x) => x ^ 0x36));
    h.update(data);
    const inner = h.digest('binary');
    h.update(k.map((x) => x ^ 0x5c));
    h.update(inner);
    expect(hex(h.digest('binary'))).toBe(
      'a59bab22ecae19c65fbde6e5f4e9f5d8549d31f037f9df9b905500e171923a773d5f1530f2ed7e964cb2eedc29e9ad2f3afe93b2814f79f5000ffc0366c251e6',
    );
  });
  it('PBKDF2 over it equals HMAC by hand, and R 50.1.111-2016 (P "password", S "salt", c = 1)', async () => {
    const enc = new TextEncoder();
    const dk = await pbkdf2Hasher(newStreebog512(), enc.encode('password'), enc.encode('salt'), 1, 64);
    const h = newStreebog512();
    const k = new Uint8Array(64);
    k.set(enc.encode('password'));
    h.update(k.map((x) => x ^ 0x36));
    h.update(Uint8Array.of(...enc.encode('salt'), 0, 0, 0, 1));
    const inner = h.digest('binary');
    h.update(k.map((x) => x ^ 0x5c));
    h.update(inner);
    expect(hex(dk!)).toBe(hex(h.digest('binary')));
    expect(hex(dk!)).toBe(
      '64770af7f748c3b1c9ac831dbcfd85c26111b30a8a657ddc3056b80ca73e040d2854fd36811f6d825cc4ab66ec0a68a490a9e5cf5156b3a2b7eecddbf9a16b47',
    );
  });
});
