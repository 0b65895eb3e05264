// The AES-CBC images (BitLocker's IVs, the Elephant diffuser, To Go, 4096-byte sectors, the partially
// encrypted one): see ./open-suite.ts.
import { openSuite } from './open-suite.js';

openSuite((image) => image.cipher !== 'aes-xts-plain64');
