// Loaded with `--import` into an x-luks child process by a test (x-luks-encrypt.test.ts): performance.now()
// then reads a clock that only PBKDF2 work advances, X_TEST_MS_PER_PBKDF2_ITERATION ms per iteration
// derived through WebCrypto (which @x/kdf uses for a non-empty passphrase and a hash WebCrypto has, as the
// KDF benchmark's are). So the benchmark behind --iter-time measures work, not the machine's load, and the
// count it chooses is exact: --iter-time T gives T / rate iterations.
const rate = Number(process.env.X_TEST_MS_PER_PBKDF2_ITERATION);
if (!(rate > 0)) throw new Error('work-clock.mjs: set X_TEST_MS_PER_PBKDF2_ITERATION to a positive number');

let now = 0;
Object.defineProperty(performance, 'now', { value: () => now, configurable: true, writable: true });

const { subtle } = globalThis.crypto;
const deriveBits = subtle.deriveBits.bind(subtle);
Object.defineProperty(subtle, 'deriveBits', {
  configurable: true,
  writable: true,
  value: async (algorithm, key, length) => {
    const bits = await deriveBits(algorithm, key, length);
    if (algorithm?.name === 'PBKDF2') now += algorithm.iterations * rate;
    return bits;
  },
});
