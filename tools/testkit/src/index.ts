/**
 * `@x/testkit`: what the @x packages' tests share. The kernel conformance suite every kernel runs
 * ({@link kernelConformance}) and a kernel reduced to its block primitives ({@link blocksOnly}); the AEAD
 * suite of `@x/gcm` and `@x/ccm` ({@link aeadConformance}) and the stream suite of `@x/ctr`
 * ({@link streamConformance}); the node:crypto references everything is checked against; buffers with
 * guard bytes; known-answer vectors; a model of dm-crypt's IVs; and the allocation check of the hot paths.
 */
export type {
  Aead,
  AeadMode,
  AeadOptions,
  AeadSuiteOptions,
  AeadTarget,
  AeadTest,
  DetachedAead,
  Rejected,
} from './aead.js';
export { aeadConformance } from './aead-suite.js';
export { allocationReport } from './alloc.js';
export { blocksOnly } from './blocks-only.js';
export { browserBundle, WASM_BASE64_MAGIC } from './bundle.js';
export {
  BROWSER_TIMEOUT,
  BROWSER_LABELS,
  BROWSERS,
  type BrowserName,
  type BrowserRequirement,
  browserRequirement,
  describeWithBrowsers,
  launchBrowser,
} from './browsers.js';
export { testedKernels } from './kernels.js';
export { assertBytes, backing, hex, outside, placed, random, toHex } from './bytes.js';
export { dmCryptIv } from './dm-iv.js';
export { type ModeEntries, modeEntryTests, type PortableEntry, portableEntryTests } from './entries.js';
export { refHbsh, refHChaCha, refPoly1305H, refXChaCha } from './hbsh.js';
export { kernelConformance, type KernelSuiteOptions } from './kernel-suite.js';
export {
  CTR_COUNTERS,
  ghashKey,
  keyPair,
  mulAlpha,
  refCbc,
  refCbcSectors,
  refCtr,
  refEcb,
  refHctr2,
  refPolyval,
  refSectors,
  refXctr,
  refXts,
  refXtsBlocks,
} from './reference.js';
export {
  type Stream,
  type StreamMode,
  type StreamTarget,
  streamConformance,
  streamInputRules,
} from './stream-suite.js';
export type { Suite } from './suite.js';
export {
  type WideBlock,
  type WideBlockProperties,
  wideBlockInputRules,
  wideBlockKnownAnswer,
  wideBlockProperties,
} from './wide-block-rules.js';
export {
  FIPS197,
  FIPS197_PLAINTEXT,
  IEEE1619_VECTOR1,
  SP800_38A_CBC,
  SP800_38A_CTR,
  SP800_38A_CTR_IV,
  SP800_38A_IV,
  SP800_38A_PLAINTEXT,
} from './vectors.js';
