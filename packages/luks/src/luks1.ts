// The LUKS1 partition header (LUKS1 On-Disk Format Specification 1.2.3, §3.1, Figures 1 and 2; §5 constants).
import { u16be, u32be, cString } from './bytes.js';
import { HeaderError } from './errors.js';

/** LUKS_MAGIC (§5). */
export const LUKS_MAGIC = [0x4c, 0x55, 0x4b, 0x53, 0xba, 0xbe];
/** Total phdr size (Figure 1). */
export const LUKS1_PHDR_SIZE = 592;
const KEY_ENABLED = 0x00ac71f3; // LUKS_KEY_ENABLED (§5)
const KEY_DISABLED = 0x0000dead; // LUKS_KEY_DISABLED (§5)

/** One of the eight LUKS1 keyslots (Figure 2). */
export interface Luks1Keyslot {
  /** 0 … 7. */
  readonly index: number;
  /** `active` is LUKS_KEY_ENABLED. */
  readonly active: boolean;
  /** The raw `active` word, e.g. 0x0000dead for a disabled slot. */
  readonly state: number;
  readonly iterations: number;
  readonly salt: Uint8Array;
  /** Start of the key material, in 512-byte sectors. */
  readonly keyMaterialOffset: number;
  readonly stripes: number;
}

/**
 * A LUKS1 header (LUKS1 spec §3.1, Figure 1).
 *
 * @example
 * ```ts
 * const h = await readHeader(bytes);
 * if (h.version === 1) console.log(h.cipher, h.payloadOffset * 512);
 * ```
 */
export interface Luks1Header {
  readonly version: 1;
  readonly cipherName: string;
  readonly cipherMode: string;
  /** `cipherName-cipherMode`, the dm-crypt cipher spec, e.g. `aes-xts-plain64`. */
  readonly cipher: string;
  /** hash-spec: the PBKDF2 hash and the AF diffuser's hash. */
  readonly hashSpec: string;
  /** Start of the bulk data, in 512-byte sectors. */
  readonly payloadOffset: number;
  /** Volume (master) key length in bytes. */
  readonly keyBytes: number;
  readonly mkDigest: Uint8Array;
  readonly mkDigestSalt: Uint8Array;
  readonly mkDigestIterations: number;
  readonly uuid: string;
  readonly keyslots: readonly Luks1Keyslot[];
}

/** Parses the 592-byte LUKS1 phdr at the start of `b` (magic and version already checked by the caller). */
export function parseLuks1(b: Uint8Array): Luks1Header {
  if (b.length < LUKS1_PHDR_SIZE)
    throw new HeaderError(`@x/luks: the LUKS1 header is truncated (${b.length} of ${LUKS1_PHDR_SIZE} bytes)`);
  if (u16be(b, 6) !== 1) throw new HeaderError('@x/luks: not a LUKS1 header');
  const cipherName = cString(b, 8, 32);
  const cipherMode = cString(b, 40, 32);
  const hashSpec = cString(b, 72, 32);
  const payloadOffset = u32be(b, 104);
  const keyBytes = u32be(b, 108);
  if (keyBytes < 16 || keyBytes > 64)
    throw new HeaderError(`@x/luks: LUKS1 key-bytes ${keyBytes} is not a key length (16 … 64)`);
  const keyslots: Luks1Keyslot[] = [];
  for (let i = 0; i < 8; i++) {
    const o = 208 + 48 * i; // key-slot-1 at 208, 48 bytes each (Figure 1)
    const state = u32be(b, o);
    const slot: Luks1Keyslot = Object.freeze({
      index: i,
      active: state === KEY_ENABLED,
      state,
      iterations: u32be(b, o + 4),
      salt: b.slice(o + 8, o + 40),
      keyMaterialOffset: u32be(b, o + 40),
      stripes: u32be(b, o + 44),
    });
    if (state !== KEY_ENABLED && state !== KEY_DISABLED) {
      throw new HeaderError(
        `@x/luks: LUKS1 keyslot ${i} has the unknown state 0x${state.toString(16)} (corrupt header)`,
      );
    }
    if (slot.active && (slot.stripes < 1 || slot.iterations < 1 || slot.keyMaterialOffset < 1)) {
      throw new HeaderError(`@x/luks: LUKS1 keyslot ${i} is active with impossible parameters (corrupt header)`);
    }
    keyslots.push(slot);
  }
  return Object.freeze({
    version: 1,
    cipherName,
    cipherMode,
    cipher: `${cipherName}-${cipherMode}`,
    hashSpec,
    payloadOffset,
    keyBytes,
    mkDigest: b.slice(112, 132),
    mkDigestSalt: b.slice(132, 164),
    mkDigestIterations: u32be(b, 164),
    uuid: cString(b, 168, 40),
    keyslots: Object.freeze(keyslots),
  });
}
