/**
 * The interfaces of the AEAD conformance suite (`aead-suite.ts`): the cipher, the targets it runs on, and
 * what a mode says of itself.
 */
import type fc from 'fast-check';

/** An AEAD as the `@x` modes give it: seal to ciphertext ‖ tag, open it, dispose. */
export interface Aead {
  readonly kernel: string;
  /** Bytes of tag, where the cipher says it (`@x/ccm`). */
  readonly tagLength?: number;
  seal(dst: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array, aad?: Uint8Array): void;
  open(dst: Uint8Array, nonce: Uint8Array, sealed: Uint8Array, aad?: Uint8Array): void;
  /** The tag apart (`@x/ccm`); the suite uses them where {@link AeadMode.detached} says so. */
  sealDetached?(dst: Uint8Array, tag: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array, aad?: Uint8Array): void;
  openDetached?(dst: Uint8Array, nonce: Uint8Array, ciphertext: Uint8Array, tag: Uint8Array, aad?: Uint8Array): void;
  dispose(): void;
}

/** A detached AEAD: both detached calls there. */
export type DetachedAead = Aead & Required<Pick<Aead, 'sealDetached' | 'openDetached'>>;

/** The options of an AEAD's constructor. */
export interface AeadOptions {
  tagLength?: number;
  kernel?: string;
}

/** What the suite runs on: ciphers from `make`, whose `kernel` must say `name`. */
export interface AeadTarget<A extends Aead = Aead, O extends AeadOptions = AeadOptions> {
  /** A kernel name (the constructor's option), or `<kernel>+generic` for a kernel's block primitives alone. */
  name: string;
  /** The kernel's `parallelBlocks`: lengths around 16 times it are tried. */
  parallelBlocks: number;
  /** A cipher for `key` on this target. */
  make(key: Uint8Array, options?: O): A;
}

/** A test of the mode's own: its title, and what it does with ciphers from `make`. */
export interface AeadTest<A extends Aead = Aead, O extends AeadOptions = AeadOptions> {
  title: string;
  run(make: (key: Uint8Array, options?: O) => A, vectorsDir: URL): void;
}

/** The rules checker the input-rule tests share: a call must throw `type` with `message`, dst unchanged. */
export type Rejected<A extends Aead = Aead, O extends AeadOptions = AeadOptions> = (
  call: (g: A, dst: Uint8Array) => void,
  type: typeof TypeError | typeof RangeError | typeof Error,
  message: string,
  dst?: Uint8Array,
  options?: O,
) => void;

/** How an AEAD mode differs from another: what the suite needs to know of it. */
export interface AeadMode<A extends Aead = Aead, O extends AeadOptions = AeadOptions> {
  /** The package, as errors start: `'@x/gcm'`. */
  prefix: string;
  /** The package's constructor (the key and option rules are checked on it). */
  newCipher(key: Uint8Array, options?: O): A;
  /** The tag lengths allowed, and some that are not, refused with `tagLength must be <tagLengthSaid> bytes`. */
  tagLengths: readonly number[];
  badTagLengths: readonly number[];
  tagLengthSaid: string;
  /** Whether a nonce of this many bytes is allowed; some lengths refused, and the message of a refused one (after the prefix). */
  nonceAllowed(length: number): boolean;
  badNonces: readonly number[];
  nonceRule(length: number): string;
  /** What the overlap of dst and the plaintext is called in a seal's error: `src` (GCM) or `plaintext` (CCM). */
  sealOverlapName: string;
  /** The reference: node:crypto's seal, ciphertext ‖ tag. */
  refSeal(key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array, aad: Uint8Array, tagLength?: number): Uint8Array;
  /** Nonces, message lengths (from the kernel's parallelBlocks), AAD lengths, and the tampering tests' lengths. */
  nonces: fc.Arbitrary<Uint8Array>;
  lengths(parallelBlocks: number): fc.Arbitrary<number>;
  aadLengths: fc.Arbitrary<number>;
  tamperLengths: fc.Arbitrary<number>;
  /** The long messages: the test's title, and for each key size, [nonce length, bytes] pairs (`large` given). */
  long: {
    title(large: number): string;
    cases(large: number): readonly (readonly [number, readonly (readonly [number, number])[]])[];
  };
  /** The longest message of {@link long} by default. */
  largeMessage: number;
  /** The Wycheproof file (`.gz` or not) beside the mode's vectors, and the counts it must give. */
  wycheproof: { file: string; counts: { valid: number; modifiedTag: number; nonceSize: number; tagSize: number } };
  /** The mode's own known-answer tests (run before Wycheproof). */
  knownAnswers: readonly AeadTest<A, O>[];
  /** Whether the cipher has `sealDetached` and `openDetached` (tried in the properties and the rules). */
  detached: boolean;
  /** The mode's rules besides the shared ones: more seal rules, and tests of its own (its length limits). */
  sealRules?(rejected: Rejected<A, O>): void;
  ruleTests: readonly { title: string; run(rejected: Rejected<A, O>): void }[];
}

/** Options of `aeadConformance`. */
export interface AeadSuiteOptions {
  /** Where the mode's vector files are. */
  vectorsDir: URL;
  /** fast-check runs per property (default 100); fewer under emulation. */
  runs?: number;
  /** Run the input-rule tests (default true): the mode's own code, once per real kernel is enough. */
  inputRules?: boolean;
  /** The longest of the long messages (default: the mode's); less on the slowest target. */
  largeMessage?: number;
}
