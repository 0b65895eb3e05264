// LUKS2 volumes whose data segment is Adiantum (issue 13). cryptsetup cannot make one on a machine without
// device-mapper (it has the kernel check the segment cipher), so each is built the way dm-crypt would hold
// one: a real container made by cryptsetup with a 32-byte volume key (aes-xts-plain64, 256 bits), whose
// segment cipher is renamed in both header copies (checksums recomputed; keyslots untouched) and whose
// payload is encrypted again, sector by sector, with Adiantum under the same volume key (by @x/dm-crypt's
// newSectorCipher, which the caller hands in: @x/dm-crypt's own tests use this package, so it cannot depend
// on it). @x/luks checks its library against them, @x/cli its x-luks.
import { randomBytes } from 'node:crypto';
import { copyFile, open, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { type Container, makeLuks2Container, mapLimit, type PbkdfSpec } from './luks.js';
import { editLuks2Json, setLuks2SegmentCipher } from './rewrite.js';

/** The dm-crypt specs of Adiantum (dm-crypt builds the kernel's `adiantum(xchacha12,aes)` from the first). */
export const ADIANTUM = [
  { spec: 'xchacha12,aes-adiantum-plain64', rounds: 12 },
  { spec: 'xchacha20,aes-adiantum-plain64', rounds: 20 },
  { spec: 'capi:adiantum(xchacha12,aes)-plain64', rounds: 12 },
] as const;

/** The containers cryptsetup makes: both sector sizes, pbkdf2 and argon2id keyslots. */
export const ADIANTUM_BASES: readonly { name: string; sectorSize: number; pbkdf: PbkdfSpec }[] = [
  { name: '512-byte sectors, pbkdf2-sha256', sectorSize: 512, pbkdf: { type: 'pbkdf2', hash: 'sha256' } },
  { name: '4096-byte sectors, pbkdf2-sha512', sectorSize: 4096, pbkdf: { type: 'pbkdf2', hash: 'sha512' } },
  {
    name: '4096-byte sectors, argon2id 32 KiB',
    sectorSize: 4096,
    pbkdf: { type: 'argon2id', memoryKiB: 32, iterations: 4, parallel: 1 },
  },
];

/** One Adiantum volume to make: which base, which spec, and the segment's iv_tweak. */
export interface AdiantumCase {
  readonly label: string;
  readonly base: number;
  readonly spec: string;
  readonly rounds: 12 | 20;
  readonly ivTweak: bigint;
}

/** Every Adiantum spec on every container; and one whose segment gets an iv_tweak (512-byte units, 100 sectors). */
export const ADIANTUM_CASES: readonly AdiantumCase[] = [
  ...ADIANTUM_BASES.flatMap((b, base) =>
    ADIANTUM.map((a) => ({ label: `${a.spec}, ${b.name}`, base, ivTweak: 0n, ...a })),
  ),
  { label: `${ADIANTUM[0].spec}, ${ADIANTUM_BASES[1].name}, iv_tweak 800`, base: 1, ivTweak: 800n, ...ADIANTUM[0] },
];

/** An Adiantum volume made from a base container. */
export interface AdiantumImage {
  readonly path: string;
  readonly base: Container;
  /** The payload as written: `base.original` under Adiantum. */
  readonly ciphertext: Uint8Array;
  /** What setLuks2SegmentCipher replaced. */
  readonly previous: string;
}

/** `newSectorCipher` of `@x/dm-crypt`, the part used here. */
export type NewSectorCipher = (
  spec: string,
  key: Uint8Array,
  options: { sectorSize: number; ivOffset: bigint },
) => { encrypt(dst: Uint8Array, src: Uint8Array, firstSector: number): void; dispose(): void };

/** Writes `bytes` at `position` of the file `path`. */
export async function writeAt(path: string, bytes: Uint8Array, position: number): Promise<void> {
  const fh = await open(path, 'r+');
  try {
    await fh.write(bytes, 0, bytes.length, position);
  } finally {
    await fh.close();
  }
}

/**
 * The base containers (96 KiB of random data, one random passphrase each, with `.pass` and `.wrong-pass`
 * files beside them: the passphrase, and it with one byte more), every case's Adiantum volume, and the
 * negative control: a copy of the first base whose header says Adiantum over cryptsetup's AES-XTS payload.
 *
 * @example
 * ```ts
 * import { newSectorCipher } from '@x/dm-crypt';
 * const { bases, images, control } = await makeAdiantumImages(newSectorCipher);
 * ```
 */
export async function makeAdiantumImages(newSectorCipher: NewSectorCipher): Promise<{
  bases: Container[];
  images: AdiantumImage[];
  control: string;
}> {
  const bases = await mapLimit(ADIANTUM_BASES, availableParallelism(), (b) =>
    makeLuks2Container({
      cipher: 'aes-xts-plain64',
      keySize: 256, // 32 bytes: the key Adiantum takes (XChaCha's)
      sectorSize: b.sectorSize,
      pbkdf: b.pbkdf,
      data: randomBytes(96 * 1024),
      passphrases: [randomBytes(12).toString('base64url')],
    }),
  );
  for (const c of bases) {
    await writeFile(`${c.path}.pass`, c.passphrases[0]);
    await writeFile(`${c.path}.wrong-pass`, Buffer.concat([c.passphrases[0], Buffer.from('x')])); // one byte more
  }
  const images: AdiantumImage[] = [];
  for (const [i, cs] of ADIANTUM_CASES.entries()) {
    const base = bases[cs.base];
    const path = `${base.path}.${i}.adiantum.img`;
    await copyFile(base.path, path);
    const previous = await setLuks2SegmentCipher(path, cs.spec);
    if (cs.ivTweak !== 0n) {
      await editLuks2Json(path, (json) => {
        (json as { segments: Record<string, { iv_tweak: string }> }).segments['0'].iv_tweak = String(cs.ivTweak);
      });
    }
    // dm-crypt: the sector number (+ the segment's iv_tweak) as plain64, the 32-byte IV as Adiantum's tweak
    const sc = newSectorCipher(cs.spec, base.volumeKey, { sectorSize: base.sectorSize, ivOffset: cs.ivTweak });
    const ciphertext = new Uint8Array(base.payloadSize);
    sc.encrypt(ciphertext, base.original, 0);
    sc.dispose();
    await writeAt(path, ciphertext, base.payloadOffset);
    images.push({ path, base, ciphertext, previous });
  }
  const control = `${bases[0].path}.control.img`;
  await copyFile(bases[0].path, control);
  await setLuks2SegmentCipher(control, ADIANTUM[0].spec);
  return { bases, images, control };
}
