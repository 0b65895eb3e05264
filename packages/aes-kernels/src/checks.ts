/**
 * `@x/aes-kernels/checks`: the input rules every @x mode enforces, which live in `@x/aes-kernel-contract`
 * (the package below every kernel and mode), re-exported here so that modes written against this subpath
 * work unchanged. It pulls in no kernel, so a bundle of `@x/cbc/portable` carries no WebAssembly.
 */
export {
  checkBlocks,
  checkBytes,
  checkDataUnit,
  checkIv,
  checkKey,
  checkOptions,
  checkSectors,
  checkSide,
  checkStream,
  OverlapMemo,
  overlaps,
} from '@x/aes-kernel-contract';
