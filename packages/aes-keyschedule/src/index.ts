export { expandKey, type KeySchedule } from './expand.js';
export type { AesKernel, AesKeyedKernel } from './kernel.js';
