// x-luks's own subcommands as entries of its table (./x-luks-main.ts): `encrypt`, `add-key`, `remove-key`,
// their usages and options (the passphrase and KDF options as cryptsetup spells them). Each `run` imports
// its code when it runs (./x-luks-encrypt.ts, ./x-luks-keys.ts, with @x/luks), so that x-luks's start-up
// loads none of it.
import { FORCE, KEY_SLOT, SECRET_OPTIONS } from './disk-options.js';
import type { OptionDef } from './options.js';
import type { Subcommand } from './program.js';

/** `-d, --key-file` and `--passphrase-file`: the passphrase. */
const PASSPHRASE_OPTIONS: readonly OptionDef[] = SECRET_OPTIONS.filter((o) => o.kind === 'passphrase');
const VOLUME_KEY_OPTION = SECRET_OPTIONS.find((o) => o.kind === 'volumeKey')!;

/** The key derivation options of `encrypt` and `add-key`: --pbkdf, --iter-time or --pbkdf-force-iterations, … */
const KDF_OPTIONS: readonly OptionDef[] = [
  { name: 'pbkdf', value: 'KDF', help: 'argon2id, argon2i or pbkdf2' },
  { name: 'iter-time', short: 'i', value: 'MS', help: 'benchmark the KDF to take MS milliseconds' },
  { name: 'pbkdf-force-iterations', value: 'N', help: 'the KDF cost, without a benchmark' },
  { name: 'pbkdf-memory', value: 'KIB', help: 'Argon2 memory' },
  { name: 'pbkdf-parallel', value: 'N', help: 'Argon2 lanes' },
];

const NEW_PASSPHRASE: OptionDef = {
  name: 'new-keyfile',
  aliases: ['new-passphrase-file'],
  value: 'FILE',
  help: 'the new passphrase: every byte of FILE (- reads stdin)',
};
const NEW_KEY_SLOT: OptionDef = {
  name: 'new-key-slot',
  aliases: ['new-keyslot'],
  value: 'N',
  help: 'the keyslot to add (default: the first free one)',
};
const BATCH_MODE: OptionDef = {
  name: 'batch-mode',
  short: 'q',
  help: 'do not ask: remove-key removes the last keyslot too, as cryptsetup -q does',
};

/** `encrypt PLAIN OUT -d FILE [--type luks2|luks1] …`. */
export const encryptCommand: Subcommand = {
  usage:
    'encrypt PLAIN OUT -d FILE [--type luks2|luks1] [--cipher SPEC] [--key-size BITS]\n' +
    '                 [--sector-size 512|4096] [--pbkdf argon2id|argon2i|pbkdf2]\n' +
    '                 [--iter-time MS | --pbkdf-force-iterations N] [--pbkdf-memory KIB]\n' +
    '                 [--pbkdf-parallel N] [--label L] [--force]',
  about:
    'write a LUKS volume holding PLAIN to OUT, as cryptsetup luksFormat lays it out (LUKS2: 16 MiB\n' +
    'of header, LUKS1: 2 MiB, then PLAIN encrypted, its last sector zero-padded); OUT must not\n' +
    'exist unless --force',
  options: [
    ...PASSPHRASE_OPTIONS,
    { name: 'type', value: 'TYPE', help: 'luks2 (default) or luks1' },
    { name: 'cipher', short: 'c', value: 'SPEC', help: 'the dm-crypt cipher (default aes-xts-plain64)' },
    { name: 'key-size', short: 's', value: 'BITS', help: 'the volume key size (default 512; 256 for non-XTS ciphers)' },
    { name: 'sector-size', value: 'BYTES', help: '512, 1024, 2048 or 4096' },
    ...KDF_OPTIONS,
    { name: 'label', value: 'L', help: 'the LUKS2 label' },
    FORCE,
  ],
  run: async (args, values, io) => (await import('./x-luks-encrypt.js')).runEncrypt(args, values, io),
};

/**
 * `add-key IMAGE (-d OLD | --volume-key-file VK) --new-keyfile NEW`: a new keyslot for the passphrase NEW,
 * unlocked with OLD (or the volume key), in place.
 */
export const addKeyCommand: Subcommand = {
  usage: 'add-key IMAGE (-d FILE | --volume-key-file FILE) --new-keyfile FILE [-S N] [--new-key-slot N] [--pbkdf …]',
  about:
    'add the passphrase of --new-keyfile in a new keyslot (the first free one, or --new-key-slot),\nunlocking with -d or --volume-key-file; IMAGE is changed in place',
  options: [...PASSPHRASE_OPTIONS, VOLUME_KEY_OPTION, NEW_PASSPHRASE, KEY_SLOT, NEW_KEY_SLOT, ...KDF_OPTIONS],
  run: async (args, values, io) => (await import('./x-luks-keys.js')).runAddKey(args, values, io),
};

/** `remove-key IMAGE -d P`: the keyslot P opens is removed, in place; the last one only with -q. */
export const removeKeyCommand: Subcommand = {
  usage: 'remove-key IMAGE -d FILE [-S N] [-q]',
  about: 'remove the keyslot the passphrase opens and overwrite its key material; the last one only with -q',
  options: [...PASSPHRASE_OPTIONS, KEY_SLOT, BATCH_MODE],
  run: async (args, values, io) => (await import('./x-luks-keys.js')).runRemoveKey(args, values, io),
};
