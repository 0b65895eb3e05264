export { chooseKernel, init, kernels, KERNEL_NAMES } from './registry.js';
export { checkBlocks, checkBytes, checkDataUnit, checkIv, checkKey, checkSectors } from './checks.js';
