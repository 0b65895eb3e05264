// From a secret to the FVEK (libbde "Keys"; cryptsetup lib/bitlk/bitlk.c): a protector's key (stretched
// password or recovery password, a startup key file's external key, or the clear key stored on the
// volume) decrypts the protector's copy of the VMK; the VMK authenticates the FVE metadata (the
// validation's SHA-256 of the block) and decrypts the FVEK. Every key is AES-CCM encrypted (256-bit key,
// 12-byte nonce, 16-byte tag first), through @x/ccm; the decrypted key container starts with its size
// (u16), a version, and the encryption method (u32 at 8), the key follows at 12.
import { newCcm } from '@x/ccm';
import { hex, iterationsProblem, type KdfLimits, kdfLimits, triable, u16le as u16, u32le as u32 } from '@x/disk-format';
import { guid } from './bytes.js';
import { BitlockerError, errors, HeaderError, WrongPassphraseError } from './errors.js';
import { type Metadata, type Protector, type SealedKey, VALUE, parseEntries } from './metadata.js';
import { passwordInitial, recoveryInitial, recoveryKey, STRETCH_ROUNDS, stretchKey } from './stretch.js';

const PREFIX = '@x/bitlocker';
const KEY_CONTAINER = 12;

/**
 * AES-CCM-decrypts `sealed` with `key` and returns the key in the container, or undefined when the tag
 * does not verify (a wrong key). A container whose size field disagrees is a damaged image.
 */
export function unseal(
  key: Uint8Array,
  sealed: SealedKey,
  kernel: string | undefined,
  what: string,
): Uint8Array | undefined {
  const plain = unsealRaw(key, sealed, kernel);
  if (!plain) return undefined;
  if (plain.length < KEY_CONTAINER || u16(plain, 0) !== plain.length) {
    plain.fill(0);
    throw new HeaderError(`@x/bitlocker: ${what}: the decrypted key container has a wrong size`);
  }
  const out = plain.slice(KEY_CONTAINER);
  plain.fill(0);
  return out;
}

/** AES-CCM-decrypts `sealed` with `key`: the plaintext, or undefined when the tag does not verify. */
function unsealRaw(key: Uint8Array, sealed: SealedKey, kernel: string | undefined): Uint8Array | undefined {
  const ccm = newCcm(key, { kernel });
  const plain = new Uint8Array(sealed.ciphertext.length);
  try {
    ccm.openDetached(plain, sealed.nonce, sealed.ciphertext, sealed.tag);
    return plain;
  } catch (e) {
    plain.fill(0);
    if ((e as Error).message === '@x/ccm: authentication failed') return undefined;
    throw e;
  } finally {
    ccm.dispose();
  }
}

/** The secret a volume is opened with (one of them; none for a volume with a clear key). */
export interface Secret {
  passphrase?: string | Uint8Array;
  recoveryPassword?: string;
  startupKey?: Uint8Array;
}

/** The key a .BEK startup key file holds, and the VMK it is for. */
export interface StartupKey {
  readonly vmkGuid: string;
  readonly volumeGuid: string | undefined;
  readonly key: Uint8Array;
}

/**
 * Parses a .BEK startup key file (libbde "BitLocker External Key (BEK) file"): a 48-byte header (size,
 * version 1, header size 48, the GUID of the VMK it unlocks) and one external key entry (type 6, value 9)
 * holding the 32-byte key, and optionally the GUID of the volume.
 *
 * @throws BitlockerError when the file is not a BEK file.
 */
export function parseStartupKey(bek: Uint8Array): StartupKey {
  const bad = (why: string): never => {
    throw new BitlockerError(`@x/bitlocker: the startup key file is not a BitLocker .BEK file: ${why}`);
  };
  if (bek.length < 48 + 8) bad(`${bek.length} bytes is too short`);
  if (u32(bek, 0) !== bek.length) bad(`its size field (${u32(bek, 0)}) is not its length (${bek.length})`);
  if (u32(bek, 4) !== 1) bad(`version ${u32(bek, 4)} is not 1`);
  if (u32(bek, 8) !== 48) bad('its header size is not 48');
  const entries = parseEntries(bek, 48, bek.length, 'startup key file');
  const ext = entries.find((e) => e.type === 0x0006 && e.valueType === VALUE.externalKey);
  if (!ext || ext.data.length < 24) bad('no external key entry');
  let key: Uint8Array | undefined, volumeGuid: string | undefined;
  for (const p of parseEntries(ext!.data, 24, ext!.data.length, 'startup key file')) {
    if (p.valueType === VALUE.key && p.data.length >= 4 + 32) key = p.data.slice(4, 4 + 32);
    else if (p.valueType === VALUE.guid && p.data.length >= 16) volumeGuid = guid(p.data, 0);
  }
  if (!key) bad('no key in its external key entry');
  return { vmkGuid: guid(bek, 16), volumeGuid, key: key! };
}

/** A password given as bytes is UTF-8 (as cryptsetup reads it); a string is used as it is. */
function passwordText(p: string | Uint8Array): string {
  if (typeof p === 'string') return p;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(p);
  } catch {
    throw new WrongPassphraseError('@x/bitlocker: the password is not valid UTF-8');
  }
}

/** What unlocked the VMK, for the caller to report, and the metadata copy whose protector it was. */
export type Unlocked = { vmk: Uint8Array; protector: Protector; copy: Metadata };

/** A protector's stretched key from the initial value and its salt: a copy, computed once per salt. */
type Stretch = (initial: Uint8Array, salt: Uint8Array) => Uint8Array;

/** The stretch of a password or recovery password checked against `maxIterations` (the shared KDF limits). */
const stretchProblem = (limits: KdfLimits) => (p: Protector) => {
  const message = iterationsProblem(`protector ${p.guid}.stretch`, STRETCH_ROUNDS, limits);
  return message === undefined ? undefined : { message, runtime: false };
};

/** The key of a protector from the secret given, or undefined when the secret is not for that protector. */
type KeyFor = (p: Protector) => Uint8Array | undefined;

/**
 * The VMK from the first protector of `kind` whose key (`keyFor`, wiped once used) opens its copy, after the
 * stretch of a password or recovery password is checked against the limits.
 */
function tryProtectorsOf(
  m: Metadata,
  kind: Protector['protection'],
  keyFor: KeyFor,
  wrong: string,
  kernel: string | undefined,
  limits: KdfLimits,
): Unlocked {
  const candidates = m.protectors.filter((p) => p.protection === kind && p.vmk);
  if (candidates.length === 0 && m.protectors.some((p) => p.protection === kind))
    throw new HeaderError(`@x/bitlocker: the volume's ${kind} protector has no encrypted VMK (damaged metadata)`);
  if (candidates.length === 0)
    throw new BitlockerError(`@x/bitlocker: the volume has no ${kind} protector (it has: ${describeKinds(m)})`);
  const stretched = kind === 'password' || kind === 'recovery password';
  const { ok } = stretched ? triable(candidates, stretchProblem(limits), false, PREFIX, errors) : { ok: candidates };
  for (const p of ok) {
    const key = keyFor(p);
    if (!key) continue;
    try {
      const vmk = unseal(key, p.vmk!, kernel, `VMK ${p.guid}`);
      if (vmk) return { vmk, protector: p, copy: m };
    } finally {
      key.fill(0);
    }
  }
  throw new WrongPassphraseError(`@x/bitlocker: ${wrong}`);
}

/**
 * Recovers the VMK with `secret` (or the clear key when `secret` has none) from the protectors of the first
 * metadata copy, in order, where one opens: a copy whose VMK entry is damaged gives way to the next (a
 * password or recovery password is stretched once per salt, however many copies are tried).
 *
 * @throws the first copy's error when none opens: WrongPassphraseError when no protector of the secret's
 *   kind opens; BitlockerError when the volume has no protector of that kind; HeaderError when its key
 *   stretch is above `limits.maxIterations`.
 */
export function unlockVmk(
  copies: Metadata | readonly Metadata[],
  secret: Secret,
  kernel: string | undefined,
  limits: KdfLimits = kdfLimits({}, PREFIX),
): Unlocked {
  const stretched = new Map<string, Uint8Array>();
  const stretch: Stretch = (initial, salt) => {
    let key = stretched.get(hex(salt));
    if (!key) {
      key = stretchKey(initial, salt);
      stretched.set(hex(salt), key);
    }
    return Uint8Array.from(key);
  };
  let first: unknown;
  try {
    for (const m of Array.isArray(copies) ? copies : [copies as Metadata]) {
      try {
        return unlockCopy(m, secret, kernel, limits, stretch);
      } catch (e) {
        if (!(e instanceof BitlockerError)) throw e;
        first ??= e;
      }
    }
    throw first;
  } finally {
    for (const key of stretched.values()) key.fill(0);
  }
}

/** {@link unlockVmk} on one metadata copy. */
function unlockCopy(
  m: Metadata,
  secret: Secret,
  kernel: string | undefined,
  limits: KdfLimits,
  stretch: Stretch,
): Unlocked {
  const tryProtectors = (kind: Protector['protection'], keyFor: KeyFor, wrong: string) =>
    tryProtectorsOf(m, kind, keyFor, wrong, kernel, limits);

  if (secret.passphrase !== undefined) {
    const initial = passwordInitial(passwordText(secret.passphrase));
    try {
      return tryProtectors('password', (p) => (p.salt ? stretch(initial, p.salt) : undefined), 'wrong password');
    } finally {
      initial.fill(0);
    }
  }
  if (secret.recoveryPassword !== undefined) {
    const rk = recoveryKey(secret.recoveryPassword);
    if (!rk)
      throw new WrongPassphraseError(
        '@x/bitlocker: not a recovery password: 48 digits in 8 groups of 6, each divisible by 11 with a quotient below 65536',
      );
    const initial = recoveryInitial(rk);
    rk.fill(0);
    try {
      return tryProtectors(
        'recovery password',
        (p) => (p.salt ? stretch(initial, p.salt) : undefined),
        'wrong recovery password',
      );
    } finally {
      initial.fill(0);
    }
  }
  if (secret.startupKey !== undefined) {
    const sk = parseStartupKey(secret.startupKey);
    try {
      if (sk.volumeGuid !== undefined && sk.volumeGuid !== m.guid)
        throw new WrongPassphraseError(
          `@x/bitlocker: the startup key is for volume ${sk.volumeGuid}, this volume is ${m.guid}`,
        );
      return tryProtectors(
        'startup key',
        (p) => (p.guid === sk.vmkGuid ? Uint8Array.from(sk.key) : undefined),
        `the startup key (for VMK ${sk.vmkGuid}) opens none of this volume's startup key protectors`,
      );
    } finally {
      sk.key.fill(0);
    }
  }
  const clear = m.protectors.filter((p) => p.protection === 'clear key' && p.clearKey && p.vmk);
  if (clear.length === 0)
    throw new BitlockerError(
      `@x/bitlocker: the volume has no clear key: give a password, recovery password, startup key or FVEK (it has: ${describeKinds(m)})`,
    );
  for (const p of clear) {
    const vmk = unseal(p.clearKey!, p.vmk!, kernel, `VMK ${p.guid}`);
    if (vmk) return { vmk, protector: p, copy: m };
  }
  throw new HeaderError('@x/bitlocker: the clear key does not decrypt its VMK (damaged metadata)');
}

function describeKinds(m: Metadata): string {
  return [...new Set(m.protectors.map((p) => p.protection))].join(', ') || 'no protectors';
}

/**
 * Checks the metadata block's authentication with the VMK: the validation decrypts to a SHA-256
 * (hash type 0x2005) that must equal the block's own hash.
 */
export function authenticates(m: Metadata, vmk: Uint8Array, kernel: string | undefined): boolean {
  const plain = unsealRaw(vmk, m.validation, kernel);
  if (!plain) return false;
  try {
    if (plain.length < 12 + 32 || u16(plain, 2) !== 0 || u16(plain, 4) !== 1 || u16(plain, 8) !== 0x2005) return false;
    let diff = 0;
    for (let i = 0; i < 32; i++) diff |= plain[12 + i] ^ m.blockHash[i];
    return diff === 0;
  } finally {
    plain.fill(0);
  }
}

/**
 * The FVEK of `m`, decrypted with the VMK, as dm-crypt takes it: CBC 16/32 bytes; XTS 32/64 bytes;
 * Elephant the data key then the tweak (diffuser) key, 16 + 16 or 32 + 32 bytes (the 128-bit method stores
 * each in a 32-byte half, cryptsetup takes the first 16 bytes of each).
 */
export function unsealFvek(m: Metadata, vmk: Uint8Array, kernel: string | undefined): Uint8Array {
  const data = unseal(vmk, m.fvek, kernel, 'FVEK');
  if (!data) throw new HeaderError('@x/bitlocker: the VMK does not decrypt the FVEK (damaged metadata)');
  const e = m.encryption;
  const want = e.keyBits / 8;
  let key: Uint8Array;
  if (e.cipher === 'aes-cbc-elephant' && e.aesBits === 128 && data.length === 64) {
    key = new Uint8Array(32);
    key.set(data.subarray(0, 16), 0);
    key.set(data.subarray(32, 48), 16);
  } else if (data.length === want) {
    if (e.cipher === 'aes-xts-plain64' && xtsHalvesEqual(data)) {
      data.fill(0);
      throw new HeaderError(
        '@x/bitlocker: the FVEK in the metadata has two equal XTS halves (key1 = key2), which XTS refuses: damaged or forged metadata',
      );
    }
    key = data.slice();
  } else {
    data.fill(0);
    throw new HeaderError(
      `@x/bitlocker: the FVEK is ${data.length} bytes, ${e.cipher} (${e.aesBits}-bit) takes ${want}`,
    );
  }
  data.fill(0);
  return key;
}

/** Whether the two halves of an XTS key are equal (XTS needs two different keys), in constant time. */
export function xtsHalvesEqual(key: Uint8Array): boolean {
  const half = key.length / 2;
  let diff = 0;
  for (let i = 0; i < half; i++) diff |= key[i] ^ key[half + i];
  return diff === 0;
}
