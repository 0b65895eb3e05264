// TrueCrypt and VeraCrypt for the page's worker: a format with no signature (its header cannot be told from
// random bytes), so the page offers it by name when detection finds nothing, and opens it with @x/tcrypt's
// own options (keyfiles, PIM, hidden, system, backup, the PRF hint) through `tcryptFormatWith`, the
// DiskFormat x-disk opens it with (the same summary line). The header is read with the secret, so it is
// shown once the volume is open: `describeTcrypt` of the header that opened it, as `x-disk dump` prints it.
import { describeTcrypt, PRFS, type TcryptVolume, tcryptToJson } from '@x/tcrypt';
import { type TcryptFormatOptions, tcryptFormatWith } from '@x/tcrypt/format';
import type { NamedFormat } from './session.ts';

/** A derivation as the page shows it: `pbkdf2-sha512, 500000 iterations`, `argon2id, 6 passes, 425984 KiB`. */
export const derivationText = (k: { readonly prf: string; readonly iterations: number; readonly memory: number }) =>
  k.prf === 'argon2id'
    ? `argon2id, ${k.iterations} passes, ${k.memory} KiB`
    : `pbkdf2-${k.prf}, ${k.iterations} iterations`;

/** TrueCrypt/VeraCrypt, chosen by name. */
export const tcryptNamed: NamedFormat = {
  type: 'tcrypt',
  name: 'TrueCrypt/VeraCrypt',
  prfs: PRFS,
  async open(source, passphrase, choice, onProgress) {
    const options: TcryptFormatOptions = {
      keyfiles: choice.keyfiles,
      hidden: choice.hidden,
      system: choice.system,
      backup: choice.backup,
      ...(choice.pim === undefined ? {} : { pim: choice.pim }),
      ...(choice.prf === undefined ? {} : { prf: choice.prf }),
      onProgress: (k) => onProgress(derivationText(k)),
    };
    const opened = await tcryptFormatWith(options).open(source, { kind: 'passphrase', bytes: passphrase });
    const h = (opened.volume as TcryptVolume).header;
    if (!h) throw new Error('the volume opened without its header'); // only a raw volume key does that
    const header = {
      title: h.magic === 'VERA' ? 'VeraCrypt' : 'TrueCrypt',
      describe: () => describeTcrypt(h),
      toJson: () => tcryptToJson(h),
    };
    return { opened, header };
  },
};
