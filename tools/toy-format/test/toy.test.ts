// TOY on its own: an image made by makeToyImage reads back through toyFormat, by passphrase and by volume
// key; wrong ones are WrongSecretErrors of the TOY family; another thread's view (share) is the same volume.
import { bytesSource } from '@x/byte-source';
import { detectFormat, DETECT_BYTES, WrongSecretError } from '@x/disk-format';
import { describe, expect, it } from 'vitest';
import { makeToyImage, ToyError, toyFormat } from '../src/index.js';

const utf8 = (s: string) => new TextEncoder().encode(s);

describe('TOY', () => {
  const plain = Uint8Array.from({ length: 5000 }, (_, i) => (i * 5) & 0xff);
  const { image, volumeKey } = makeToyImage(plain, 'toy passphrase', 'label');
  const source = bytesSource(image);

  it('is detected, and its header read', async () => {
    expect(await detectFormat(source, [toyFormat])).toBe(toyFormat);
    expect(await detectFormat(bytesSource(new Uint8Array(DETECT_BYTES)), [toyFormat])).toBeUndefined();
    const h = await toyFormat.readHeader(source);
    expect(h.title).toBe('TOY1');
    expect(h.toJson()).toEqual({ version: 1, label: 'label', payloadOffset: 512, payloadSize: 5120 });
  });

  it('opens with its passphrase or its volume key; wrong ones are wrong secrets of TOY', async () => {
    for (const opened of [
      await toyFormat.open(source, { kind: 'passphrase', bytes: utf8('toy passphrase') }, { share: true }),
      await toyFormat.openWithVolumeKey!(source, volumeKey),
    ]) {
      const out = new Uint8Array(opened.volume.payloadSize);
      await opened.volume.read(out, 0);
      expect(out.subarray(0, plain.length)).toEqual(plain);
      opened.volume.close();
    }
    const wrong = await toyFormat.open(source, { kind: 'passphrase', bytes: utf8('toy') }).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(WrongSecretError);
    expect(wrong).toBeInstanceOf(ToyError);
  });
});
