// The XTS-AES images (Windows 10 and 11: startup key, clear key, smart card, CRC, new entries, first
// recovery, encrypt-on-write, 4096-byte sectors): see ./open-suite.ts.
import { openSuite } from './open-suite.js';

openSuite((image) => image.cipher === 'aes-xts-plain64');
