// The messages between the page (main.ts) and its worker (worker.ts, a Session). The worker holds the image's
// source, the unlocked volume and its key; the page only ever sees the header's text, the summary and the
// plaintext chunks on their way to the file.

/** What opens a volume, as the page asks for it. The raw volume key (x-disk's `--volume-key-file`) is not offered here. */
export type SecretChoice = 'passphrase' | 'recoveryPassword' | 'startupKey' | 'none';

/** The page's secret: typed text as UTF-8 bytes (transferred, so the page keeps no copy), or a .BEK file. */
export type SecretMessage =
  | { readonly kind: 'passphrase' | 'recoveryPassword'; readonly bytes: ArrayBuffer }
  | { readonly kind: 'startupKey'; readonly file: File }
  | { readonly kind: 'none' };

/**
 * How to open an image as a format chosen by name (one with no signature to detect: TrueCrypt/VeraCrypt),
 * with that format's options: @x/tcrypt's `open` options, keyfiles as the Files picked, in the order chosen.
 */
export interface NamedChoice {
  /** The format's type (`tcrypt`), one of the `named` of an `undetected` message. */
  readonly type: string;
  readonly keyfiles: readonly File[];
  /** VeraCrypt's PIM; absent: none. */
  readonly pim?: number;
  readonly hidden: boolean;
  readonly system: boolean;
  readonly backup: boolean;
  /** The PRF to try alone; absent: every one. */
  readonly prf?: string;
}

/** A format the page may open an undetected image as, chosen by the person. */
export interface NamedOffer {
  readonly type: string;
  /** `TrueCrypt/VeraCrypt`. */
  readonly name: string;
  /** The PRF hints it takes (x-disk's `--hash`), for the page's list. */
  readonly prfs: readonly string[];
}

export type ToWorker =
  /** Detect the format of `file` and dump its header. */
  | { readonly type: 'inspect'; readonly file: File }
  /** Unlock the inspected image; `named`: as the format it names (the image was not detected). */
  | { readonly type: 'unlock'; readonly secret: SecretMessage; readonly named?: NamedChoice }
  /** Decrypt the whole payload, in chunks of about `chunkBytes`, `depth` of them in flight. */
  | { readonly type: 'decrypt'; readonly chunkBytes: number; readonly depth: number }
  /** A chunk buffer given back once the page has written it. */
  | { readonly type: 'buffer'; readonly buf: ArrayBuffer }
  /** Stop decrypting after the chunk being decrypted; close the volume. */
  | { readonly type: 'cancel' };

export type FromWorker =
  | {
      readonly type: 'inspected';
      /** `LUKS1`, `LUKS2`, `BitLocker`, `FileVault 2`. */
      readonly format: string;
      /** The header as `x-luks dump` / `x-disk dump` print it. */
      readonly dump: string;
      /** The secrets this format takes, in the order to offer them. */
      readonly secrets: readonly SecretChoice[];
      /** What the format calls its passphrase: `passphrase`, or BitLocker's `password`. */
      readonly passphraseName: string;
    }
  /**
   * No format of the list recognizes the image; it may still be one of the `named` formats, whose headers
   * cannot be told from random bytes, if the person says so.
   */
  | { readonly type: 'undetected'; readonly message: string; readonly named: readonly NamedOffer[] }
  /** A named format's unlock has started its `count`-th key derivation, `what` (`pbkdf2-sha512, 500000 iterations`). */
  | { readonly type: 'trying'; readonly what: string; readonly count: number }
  | {
      readonly type: 'unlocked';
      /** A named format's header, readable only now (`VeraCrypt`, and the header as `x-disk dump` prints it). */
      readonly header?: { readonly format: string; readonly dump: string };
      /** x-disk's summary line: cipher, sector size, payload, what opened it, kernel. */
      readonly summary: string;
      readonly kernel: string;
      readonly payloadSize: number;
    }
  /** Plaintext bytes `position … position + length` in `buf` (transferred; give it back with `buffer`). */
  | { readonly type: 'chunk'; readonly buf: ArrayBuffer; readonly length: number; readonly position: number }
  /** Every chunk has been sent and the volume is closed (its key wiped). */
  | { readonly type: 'done' }
  /** Stopped on `cancel`; the volume is closed (its key wiped). */
  | { readonly type: 'cancelled' }
  | {
      readonly type: 'error';
      /** The error's name (`WrongPassphraseError`, `HeaderError`, …). */
      readonly name: string;
      /** The message, without its `@x/<package>: ` prefix, as x-disk prints it. */
      readonly message: string;
      /** Whether it means "wrong secret" (nothing was unlocked). */
      readonly wrongSecret: boolean;
    };
