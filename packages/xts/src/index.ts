export { newXts, type Xts, type XtsOptions } from './xts.js';
export { init, kernels } from '@x/aes-kernels';
