// The format layer on its own: the error hierarchy (codes, a format's family, subclasses), the byte readers
// and text helpers, the sector volume over runs of an image (checks, zeros, plain and encrypted runs, IV
// sectors, close, share), and detection over a list of formats in order.
import { bytesSource } from '@x/byte-source';
import { describe, expect, it } from 'vitest';
import {
  cString,
  DETECT_BYTES,
  detectFormat,
  DiskError,
  type DiskFormat,
  equalBytes,
  fromBase64,
  HeaderError,
  hex,
  jsonSafe,
  orList,
  payloadLayout,
  SectorVolume,
  sizeText,
  toBase64,
  u64be,
  u64le,
  undetectedReason,
  utf16le,
  type VolumeCipher,
  type VolumeLayout,
  WrongPassphraseError,
  WrongSecretError,
  WrongVolumeKeyError,
} from '../src/index.js';

class ToyError extends DiskError {
  override name = 'ToyError';
  override readonly format = 'toy';
  static override readonly family = 'toy';
}
class ToyHeaderError extends HeaderError {
  override readonly format = 'toy';
}
class OtherHeaderError extends HeaderError {
  override readonly format = 'other';
}

describe('errors', () => {
  it('have stable codes and one base class', () => {
    const cases: [DiskError, string][] = [
      [new DiskError('x'), 'DISK_ERROR'],
      [new HeaderError('x'), 'HEADER_ERROR'],
      [new WrongSecretError('x'), 'WRONG_SECRET'],
      [new WrongPassphraseError('x'), 'WRONG_PASSPHRASE'],
      [new WrongVolumeKeyError('x'), 'WRONG_VOLUME_KEY'],
    ];
    for (const [e, code] of cases) {
      expect(e.code).toBe(code);
      expect(e).toBeInstanceOf(DiskError);
      expect(e).toBeInstanceOf(Error);
    }
    expect(new WrongPassphraseError('x')).toBeInstanceOf(WrongSecretError);
    expect(new WrongVolumeKeyError('x')).toBeInstanceOf(WrongSecretError);
    expect(new HeaderError('x')).not.toBeInstanceOf(WrongSecretError);
    expect(new HeaderError('x').name).toBe('HeaderError');
  });

  it("a format's base class holds every error of its format, and only those", () => {
    const h = new ToyHeaderError('@x/toy: bad');
    expect(h).toBeInstanceOf(ToyError);
    expect(h).toBeInstanceOf(HeaderError);
    expect(new ToyError('x')).toBeInstanceOf(ToyError);
    expect(new OtherHeaderError('x')).not.toBeInstanceOf(ToyError);
    expect(new HeaderError('x')).not.toBeInstanceOf(ToyError);
    expect(new Error('x')).not.toBeInstanceOf(ToyError);
    // a subclass of the family's class checks as classes do
    class Sub extends ToyError {}
    expect(new Sub('x')).toBeInstanceOf(Sub);
    expect(new Sub('x')).toBeInstanceOf(ToyError);
    expect(h).not.toBeInstanceOf(Sub);
  });
});

describe('bytes and text', () => {
  it('reads integers in both byte orders; a 64-bit field past 2^53 − 1 is the caller’s error', () => {
    const b = Uint8Array.of(0, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
    expect(u64be(b, 0, () => new Error('no'))).toBe(2 ** 53 - 1);
    expect(u64le(Uint8Array.from(b).reverse(), 0, () => new Error('no'))).toBe(2 ** 53 - 1);
    const big = Uint8Array.of(0, 0x20, 0, 0, 0, 0, 0, 1);
    expect(() => u64be(big, 0, (v) => new HeaderError(`too large: ${v}`))).toThrow('too large: 9007199254740993');
  });

  it('strings, hex, base64, JSON-safe copies, sizes and lists', () => {
    expect(cString(Uint8Array.of(0x61, 0xe9, 0, 0x62), 0, 4)).toBe('aé');
    expect(cString(Uint8Array.of(0x61, 0x62), 0, 2)).toBe('ab');
    expect(utf16le(Uint8Array.of(0x41, 0, 0x3a9 & 0xff, 0x03, 0, 0, 0x42, 0))).toBe('AΩ');
    expect(utf16le(Uint8Array.of(0x41, 0, 0x42))).toBe('A');
    expect(hex(Uint8Array.of(1, 0xab))).toBe('01ab');
    expect(hex(Uint8Array.of(1, 0xab, 2), ' ')).toBe('01 ab 02');
    expect(toBase64(Uint8Array.of(1, 2))).toBe('AQI=');
    expect(fromBase64('AQI=')).toEqual(Uint8Array.of(1, 2));
    for (const bad of ['A', 'AQ I=', '====', 7]) expect(fromBase64(bad)).toBeUndefined();
    expect(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 2))).toBe(true);
    expect(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 3))).toBe(false);
    expect(equalBytes(Uint8Array.of(1), Uint8Array.of(1, 2))).toBe(false);
    expect(jsonSafe({ a: Uint8Array.of(1, 2), b: 5n, c: [{ json: 'x', d: 1 }] }, (k) => k === 'json')).toEqual({
      a: 'AQI=',
      b: '5',
      c: [{ d: 1 }],
    });
    expect([sizeText(65536), sizeText(3 << 20)]).toEqual(['64 KiB', '3.0 MiB']);
    expect([orList([]), orList(['a']), orList(['a', 'b']), orList(['a', 'b', 'c'])]).toEqual([
      '',
      'a',
      'a or b',
      'a, b or c',
    ]);
  });
});

/** A stand-in cipher: "decrypts" by XOR with the low byte of each sector's IV number, and records its calls. */
function xorCipher(sectorSize: number) {
  const calls: number[] = [];
  let disposed = false;
  const cipher: VolumeCipher = {
    kernel: 'stand-in',
    decrypt(dst, src, firstSector) {
      if (disposed) throw new Error('disposed');
      calls.push(firstSector);
      for (let i = 0; i < src.length; i++) dst[i] = src[i] ^ ((firstSector + Math.floor(i / sectorSize)) & 0xff);
    },
    dispose() {
      disposed = true;
    },
  };
  return { cipher, calls, disposed: () => disposed };
}

describe('SectorVolume', () => {
  const S = 512;
  const image = Uint8Array.from({ length: 16 * S }, (_, i) => (i * 13) & 0xff);
  const volume = (layout: VolumeLayout, shareKey?: Uint8Array) => {
    const c = xorCipher(S);
    const v = new SectorVolume({
      source: bytesSource(image),
      layout,
      cipher: c.cipher,
      shareKey,
      prefix: '@x/toy',
      what: 'the payload',
      error: ToyError,
    });
    return { v, ...c };
  };

  it('one encrypted run: sectors count from the payload, as their IVs', async () => {
    const { v, calls } = volume(payloadLayout('toy', S, 4 * S, 8 * S));
    expect([v.sectorSize, v.payloadSize, v.kernel]).toEqual([S, 8 * S, 'stand-in']);
    const dst = new Uint8Array(2 * S);
    await v.read(dst, 3);
    expect(calls).toEqual([3]);
    for (let i = 0; i < dst.length; i++) expect(dst[i]).toBe(image[7 * S + i] ^ (3 + Math.floor(i / S)));
  });

  it('runs of zeros, plain bytes and encrypted bytes, whose IVs are image sectors from ivOrigin', async () => {
    const layout: VolumeLayout = {
      cipher: 'toy',
      sectorSize: S,
      ivOrigin: 0,
      extents: [
        { start: 0, end: S, kind: 'crypt', from: 10 * S }, // a moved first sector
        { start: S, end: 3 * S, kind: 'zero', from: 0 },
        { start: 3 * S, end: 5 * S, kind: 'crypt', from: 3 * S },
        { start: 5 * S, end: 6 * S, kind: 'plain', from: 5 * S },
      ],
    };
    const { v, calls } = volume(layout);
    expect(v.payloadSize).toBe(6 * S);
    const dst = new Uint8Array(6 * S).fill(0xee);
    await v.read(dst, 0);
    expect(calls).toEqual([10, 3]);
    expect(dst.subarray(0, S)).toEqual(image.subarray(10 * S, 11 * S).map((x) => x ^ 10));
    expect(dst.subarray(S, 3 * S).every((x) => x === 0)).toBe(true);
    expect(dst[3 * S]).toBe(image[3 * S] ^ 3);
    expect(dst[4 * S]).toBe(image[4 * S] ^ 4);
    expect(dst.subarray(5 * S)).toEqual(image.subarray(5 * S, 6 * S));
    // a read that starts inside a run
    const part = new Uint8Array(S);
    await v.read(part, 4);
    expect(part[0]).toBe(image[4 * S] ^ 4);
  });

  it('checks its arguments before reading; refuses reads once closed, with the format’s error', async () => {
    const { v, disposed } = volume(payloadLayout('toy', S, 0, 4 * S));
    await expect(v.read(new Uint8Array(100), 0)).rejects.toThrow(RangeError);
    await expect(v.read(new Uint8Array(S), 4)).rejects.toThrow('@x/toy: sectors 4 … past the payload (4 sectors)');
    await expect(v.read(new Uint8Array(S), -1)).rejects.toThrow(RangeError);
    v.close();
    expect(disposed()).toBe(true);
    const err = await v.read(new Uint8Array(S), 0).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToyError);
    expect((err as Error).message).toBe('@x/toy: the volume is closed');
  });

  it('zeroes dst when a read fails', async () => {
    const v = new SectorVolume({
      source: { size: 8 * S, read: async () => Promise.reject(new Error('I/O error')) },
      layout: payloadLayout('toy', S, 0, 8 * S),
      cipher: xorCipher(S).cipher,
      prefix: '@x/toy',
      what: 'the payload',
      error: ToyError,
    });
    const dst = new Uint8Array(S).fill(7);
    await expect(v.read(dst, 0)).rejects.toThrow('I/O error');
    expect(dst.every((x) => x === 0)).toBe(true);
  });

  it('shares its layout and key once; close wipes a key not taken', () => {
    const layout = payloadLayout('toy', S, 0, 4 * S, { ivOffset: 8n });
    const key = Uint8Array.of(1, 2, 3);
    const { v } = volume(layout, key);
    const shared = v.share();
    expect(shared).toEqual({ layout, volumeKey: Uint8Array.of(1, 2, 3), kernel: 'stand-in' });
    expect(v.share()).toBeUndefined();
    const kept = Uint8Array.of(4, 5);
    const other = volume(layout, kept).v;
    other.close();
    expect(kept).toEqual(Uint8Array.of(0, 0));
    expect(other.share()).toBeUndefined();
    expect(volume(layout).v.share()).toBeUndefined(); // opened without a key to share
  });
});

describe('detectFormat', () => {
  const format = (type: string, detect?: DiskFormat['detect']): DiskFormat => ({
    type,
    name: type.toUpperCase(),
    secrets: ['passphrase'],
    clearKey: false,
    keyslots: false,
    detect,
    readHeader: () => Promise.reject(new Error('not used')),
    open: () => Promise.reject(new Error('not used')),
  });

  it('asks each format in order, with the first bytes; a format without detect is never detected', async () => {
    const seen: number[] = [];
    const a = format('a', (first) => {
      seen.push(first.length);
      return first[0] === 0x61;
    });
    const b = format('b', async (first, source) => first[0] === 0x62 && source.size > 1);
    const never = format('n');
    const src = (s: string) => bytesSource(new TextEncoder().encode(s.padEnd(1000, '.')));
    expect(await detectFormat(src('a'), [a, b])).toBe(a);
    expect(seen).toEqual([DETECT_BYTES]);
    expect(await detectFormat(src('b'), [never, a, b])).toBe(b);
    expect(await detectFormat(src('c'), [a, b, never])).toBeUndefined();
    const tiny = bytesSource(Uint8Array.of(0x62, 0x62));
    expect(await detectFormat(tiny, [a, b])).toBe(b);
    expect(undetectedReason(tiny)).toBe('only 2 bytes');
    expect(undetectedReason(src('c'))).toBe('no known signature');
  });
});
