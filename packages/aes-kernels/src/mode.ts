/**
 * A mode's entry points, defined once for every `@x` mode (RustCrypto's `KeyInit` and Go's `NewCipher`
 * shape): the checks of the key and of the options, in one order, then the kernel (chosen from a registry,
 * or given), then the mode's own cipher. A mode package writes only what is its own (the key rule where it
 * is not AES's, its options such as a tag length, and its cipher class) and gets its two entry points:
 *
 * - `from(registry, key, options)`: `newX` of `@x/x` (the full registry) and of `@x/x/portable` (the
 *   portable kernel alone);
 * - `on(kernel, key, options)`: the cipher on a kernel the registry does not list (a kernel reduced to its
 *   block primitives), for the mode's tests.
 *
 * And what the two AEADs (`@x/gcm`, `@x/ccm`) share: the tag length option and the length rules of `dst`
 * and `sealed`. Nothing here allocates unless it throws.
 */
import { checkKey, checkOptions } from '@x/aes-kernel-contract';
import type { AesKernel, Registry } from './hazmat.js';

/** The option every mode's constructor takes: a kernel forced by name (else `X_AES_KERNEL`, else the best). */
export interface KernelOption {
  kernel?: string;
}

/** What a mode says about itself, for {@link defineMode}. */
export interface ModeSpec<C, O extends KernelOption, P, X> {
  /** The package name errors start with: `'@x/gcm'`. */
  readonly prefix: string;
  /** The key rule, where it is not AES's 16, 24 or 32 bytes (XTS's two keys, Adiantum's 32 bytes). Throws. */
  readonly checkKey?: (key: unknown) => void;
  /** The mode's own options read and checked (a tag length, rounds), once `options` is known to be an object or absent. */
  readonly params?: (options: O | undefined) => P;
  /**
   * The cipher on `kernel` for `key` (both checked). `extra` is what the entry point passes besides, where the
   * mode takes more than a registry (`@x/hctr2`'s POLYVAL loader, `@x/adiantum`'s core and variant).
   */
  readonly create: (kernel: AesKernel, key: Uint8Array, params: P, extra: X) => C;
}

/** The entry points' last argument: `extra` where the mode takes one, nothing where it does not (`X = undefined`). */
export type ModeExtra<X> = [X] extends [undefined] ? [] : [extra: X];

/** A mode's two entry points (see the file's comment). */
export interface ModeEntries<C, O, X> {
  /** `newX`: the key and options checked, then the kernel `options.kernel`, `X_AES_KERNEL` or the best of `registry`. */
  from(registry: Pick<Registry, 'chooseKernel'>, key: Uint8Array, options?: O, ...extra: ModeExtra<X>): C;
  /** The cipher on `kernel` itself, whatever a registry says (`options.kernel` is not read). For tests. */
  on(kernel: AesKernel, key: Uint8Array, options?: O, ...extra: ModeExtra<X>): C;
}

/**
 * The entry points of a mode: the key checked (the mode's rule, else AES's), `options` an object or absent,
 * the mode's own options read (`params`), then the kernel, then `create`. Every check throws before a
 * kernel is chosen or a key loaded, with the mode's prefix.
 *
 * @example
 * ```ts
 * import { defineMode } from '@x/aes-kernels';
 * const entries = defineMode({ prefix: '@x/my-mode', create: (kernel, key) => new MyCipher(kernel, key) });
 * export const newMyModeFrom = entries.from;       // newMyMode(key, options) = newMyModeFrom(registry, key, options)
 * export const newMyModeOn = entries.on;           // tests: the mode on blocksOnly(kernel)
 * ```
 */
export function defineMode<C, O extends KernelOption = KernelOption, P = undefined, X = undefined>(
  spec: ModeSpec<C, O, P, X>,
): ModeEntries<C, O, X> {
  const { prefix, create } = spec;
  const checks = (key: unknown, options: O | undefined): P => {
    if (spec.checkKey) spec.checkKey(key);
    else checkKey(prefix, key);
    checkOptions(prefix, options);
    return spec.params ? spec.params(options) : (undefined as P);
  };
  return Object.freeze({
    from(registry: Pick<Registry, 'chooseKernel'>, key: Uint8Array, options?: O, ...extra: ModeExtra<X>): C {
      const params = checks(key, options);
      return create(registry.chooseKernel(prefix, options?.kernel), key, params, extra[0] as X);
    },
    on(kernel: AesKernel, key: Uint8Array, options?: O, ...extra: ModeExtra<X>): C {
      return create(kernel, key, checks(key, options), extra[0] as X);
    },
  });
}

/**
 * An AEAD's tag length: `options.tagLength`, one of `allowed`, or 16 when absent. TypeError for a value
 * that is not a number, RangeError for one not allowed: `<prefix>: tagLength must be <said> bytes, got <t>`.
 *
 * @example
 * ```ts
 * aeadTagLength('@x/gcm', options, [12, 13, 14, 15, 16], 'an integer from 12 to 16'); // 16 by default
 * ```
 */
export function aeadTagLength(
  prefix: string,
  options: { tagLength?: unknown } | undefined,
  allowed: readonly number[],
  said: string,
): number {
  const t: unknown = options?.tagLength;
  if (t === undefined) return 16;
  if (typeof t !== 'number') throw new TypeError(`${prefix}: tagLength must be a number`);
  if (!allowed.includes(t)) throw new RangeError(`${prefix}: tagLength must be ${said} bytes, got ${t}`);
  return t;
}

/**
 * RangeError unless `dst` of a seal is the plaintext and the tag: `n + t` bytes.
 *
 * @example `checkSealDst('@x/gcm', dst, plaintext.length, 16)`
 */
export function checkSealDst(prefix: string, dst: Uint8Array, n: number, t: number): void {
  if (dst.length !== n + t) {
    throw new RangeError(`${prefix}: dst must be plaintext.length + ${t} = ${n + t} bytes, got ${dst.length}`);
  }
}

/**
 * The length of the ciphertext in `sealed` (ciphertext ‖ tag of `t` bytes): RangeError when `sealed` is
 * shorter than the tag.
 *
 * @example `const n = ciphertextLength('@x/ccm', sealed, 16)`
 */
export function ciphertextLength(prefix: string, sealed: Uint8Array, t: number): number {
  if (sealed.length < t) {
    throw new RangeError(`${prefix}: sealed is shorter than the ${t}-byte tag (${sealed.length} bytes)`);
  }
  return sealed.length - t;
}

/**
 * RangeError unless `dst` of an open is the ciphertext's `n` bytes (`sealed.length − t`).
 *
 * @example `checkOpenDst('@x/gcm', dst, n, 16)`
 */
export function checkOpenDst(prefix: string, dst: Uint8Array, n: number, t: number): void {
  if (dst.length !== n) {
    throw new RangeError(`${prefix}: dst must be sealed.length − ${t} = ${n} bytes, got ${dst.length}`);
  }
}

/**
 * The error of a wrong tag: `Error('<prefix>: authentication failed')`, thrown before anything is written.
 *
 * @example `if (diff !== 0) throw authenticationFailed('@x/gcm')`
 */
export function authenticationFailed(prefix: string): Error {
  return new Error(`${prefix}: authentication failed`);
}
