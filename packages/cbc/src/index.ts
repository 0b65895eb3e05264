export { newCipher, type Cipher, type CipherOptions } from './cipher.js';
export { init, kernels } from '@x/aes-kernels';
