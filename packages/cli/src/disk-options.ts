// The options of `dump` and `decrypt` that their table (./disk-commands.ts) and their code (./disk-decrypt.ts,
// ./image.ts, x-luks's ./x-luks-commands.ts) both read: the secret options in cryptsetup's spelling, the
// keyslot, the threads, --force; and what a command reads images as.
import type { DiskFormat, SecretKind } from '@x/disk-format';
import type { OptionDef } from './options.js';

/** How a secret is given: its option, what it opens (`volumeKey`: the raw volume key), how a prompt names it. */
export interface SecretOption extends OptionDef {
  readonly kind: SecretKind | 'volumeKey';
  readonly what: string;
}

/** The secret options, cryptsetup's spelling first for each kind (the one messages name). */
export const SECRET_OPTIONS: readonly SecretOption[] = [
  {
    name: 'key-file',
    short: 'd',
    value: 'FILE',
    kind: 'passphrase',
    what: 'passphrase',
    help: 'the passphrase (BitLocker: the password): every byte of FILE, as cryptsetup\nreads a key file; - reads stdin (from a terminal, one line typed without echo).\nTrueCrypt/VeraCrypt: a keyfile, as cryptsetup; repeat it for more (any order)',
  },
  {
    name: 'passphrase-file',
    value: 'FILE',
    kind: 'passphrase',
    what: 'passphrase',
    help: 'the passphrase, as --key-file reads it (TrueCrypt/VeraCrypt too; without it\ntheir passphrase is asked for, or read from stdin up to its first newline)',
  },
  {
    name: 'recovery-password',
    value: 'DIGITS',
    kind: 'recoveryPassword',
    what: 'recovery password',
    help: "BitLocker's 48-digit recovery password (- reads it like a key file)",
  },
  {
    name: 'startup-key',
    value: 'FILE',
    kind: 'startupKey',
    what: 'startup key',
    help: "BitLocker's startup key file (.BEK)",
  },
  {
    name: 'volume-key-file',
    value: 'FILE',
    kind: 'volumeKey',
    what: 'volume key',
    help: 'the raw volume key (binary): LUKS volume key, BitLocker FVEK, FileVault 2\nvolume key, TrueCrypt/VeraCrypt XTS key (64 bytes; an outer container volume)',
  },
];

export const KEY_SLOT: OptionDef = {
  name: 'key-slot',
  short: 'S',
  aliases: ['keyslot'],
  value: 'N',
  help: 'LUKS: try only keyslot N',
};
export const THREADS: OptionDef = {
  name: 'threads',
  value: 'N',
  help: 'decrypt on N threads (default: one per core with the software AES kernels,\none with a hardware one, which outruns the disk); OUT is the same for every N',
};
export const FORCE: OptionDef = { name: 'force', help: 'overwrite an existing OUT' };

/**
 * The bounds on the key derivation a header may ask for (the KDF limits of `@x/disk-format`, one policy for
 * every format): a header above one is refused before anything is derived, and its message names the option
 * that raises it (./io.ts). The option's name, and the API option it sets.
 */
export const KDF_LIMIT_OPTIONS: readonly (OptionDef & {
  readonly api: 'maxIterations' | 'maxMemory' | 'maxTimeCost';
})[] = [
  {
    name: 'max-iterations',
    value: 'N',
    api: 'maxIterations',
    help: "the most PBKDF2 iterations a header may ask for (default 67108864 = 2^26;\nBitLocker's stretch is 2^20)",
  },
  {
    name: 'max-memory',
    value: 'KIB',
    api: 'maxMemory',
    help: "the most Argon2 memory a LUKS2 keyslot may ask for, KiB (default 4194304 = 4 GiB,\nat most half of this machine's memory)",
  },
  {
    name: 'max-time-cost',
    value: 'N',
    api: 'maxTimeCost',
    help: 'the most Argon2 passes a LUKS2 keyslot may ask for (default 65536)',
  },
];

/**
 * The options of TrueCrypt/VeraCrypt volumes (`--type tcrypt`), cryptsetup's names and meanings
 * (cryptsetup-tcryptOpen(8)); with `-d, --key-file` (a keyfile each, repeatable) and `--passphrase-file`.
 * `--veracrypt` is accepted and ignored, as cryptsetup does (VeraCrypt headers are always tried).
 */
export const TCRYPT_OPTIONS: readonly OptionDef[] = [
  { name: 'veracrypt-pim', value: 'N', help: "TrueCrypt/VeraCrypt: VeraCrypt's PIM (1 to 2147468; 0: none)" },
  {
    name: 'veracrypt-query-pim',
    help: 'TrueCrypt/VeraCrypt: ask for the PIM (from a terminal, typed without echo; else\nthe next line of stdin, after the passphrase)',
  },
  { name: 'tcrypt-hidden', help: 'TrueCrypt/VeraCrypt: the hidden volume (its header, its passphrase)' },
  { name: 'tcrypt-system', help: 'TrueCrypt/VeraCrypt: system encryption (the header in sector 62 of the drive)' },
  { name: 'tcrypt-backup', help: 'TrueCrypt/VeraCrypt: the backup header at the end of the image' },
  {
    name: 'hash',
    value: 'NAME',
    help: 'TrueCrypt/VeraCrypt: try only this PRF (sha512, sha256, whirlpool, ripemd160,\nstribog512, blake2s-256, sha1, argon2id); default: every one',
  },
  { name: 'disable-veracrypt', help: 'TrueCrypt/VeraCrypt: TrueCrypt headers only' },
  { name: 'veracrypt', help: 'TrueCrypt/VeraCrypt: ignored, as by cryptsetup (VeraCrypt is always tried)' },
];

/** What `dump` and `decrypt` read images as: every format of a list, or one (x-luks). */
export interface FormatChoice {
  readonly formats: readonly DiskFormat[];
  /** Always this format, never detected (x-luks: LUKS); then there is no `--type`. */
  readonly only?: DiskFormat;
  /** The command's name, for the message of an image of no known format. */
  readonly command: string;
}

/** Whether `choice` offers TrueCrypt/VeraCrypt (a format of type `tcrypt`) and so its options. */
export const offersTcrypt = (choice: FormatChoice): boolean =>
  !choice.only && choice.formats.some((f) => f.type === 'tcrypt');
