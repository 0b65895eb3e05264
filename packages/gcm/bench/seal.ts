// AES-GCM seal of one message per call, @x/gcm on every kernel here beside node:crypto (OpenSSL through
// Node, a cipher object per message as its users call it), @noble/ciphers and `openssl speed -evp
// aes-N-gcm` (a child process). Rounds rotate the order; the table gives each contender's median MB/s.
// Usage: npx tsx bench/seal.ts [bytes=16384] [rounds=5]
import { execFileSync } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import { gcm as nobleGcm } from '@noble/ciphers/aes.js';
import { kernels, newGcm } from '../src/index.js';

const bytes = Number(process.argv[2] ?? 16384);
const rounds = Number(process.argv[3] ?? 5);
const nonce = randomBytes(12);
const plain = randomBytes(bytes);
const sealed = new Uint8Array(bytes + 16);

/** Bytes per second of `fn`, over about `seconds`. */
function rate(fn: () => void, seconds = 0.3): number {
  for (let i = 0; i < 50; i++) fn();
  let calls = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < seconds * 1000) {
    for (let i = 0; i < 20; i++) fn();
    calls += 20;
    t = performance.now();
  }
  return (calls * bytes) / ((t - t0) / 1000);
}

function openssl(keyBits: number): number {
  const out = execFileSync(
    'openssl',
    ['speed', '-elapsed', '-seconds', '1', '-evp', `aes-${keyBits}-gcm`, '-bytes', String(bytes)],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const line = out.split('\n').find((l) => l.toLowerCase().startsWith(`aes-${keyBits}-gcm`))!;
  return Number.parseFloat(line.trim().split(/\s+/).at(-1)!.replace('k', '')) * 1000;
}

for (const keyBits of [128, 256]) {
  const key = randomBytes(keyBits / 8);
  const contenders: [string, () => number][] = [];
  for (const kernel of kernels()) {
    const g = newGcm(key, { kernel });
    contenders.push([`@x/gcm ${kernel}`, () => rate(() => g.seal(sealed, nonce, plain))]);
  }
  contenders.push([
    'node:crypto',
    () =>
      rate(() => {
        const c = createCipheriv(`aes-${keyBits}-gcm` as 'aes-128-gcm', key, nonce);
        c.update(plain);
        c.final();
        c.getAuthTag();
      }),
  ]);
  // noble refuses a second encrypt() on one instance (nonce reuse): an instance per message, as its users do.
  contenders.push(['@noble/ciphers', () => rate(() => nobleGcm(key, nonce).encrypt(plain), 0.2)]);
  contenders.push([`openssl speed`, () => openssl(keyBits)]);
  const seen = new Map<string, number[]>(contenders.map(([name]) => [name, []]));
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < contenders.length; i++) {
      const [name, run] = contenders[(i + r) % contenders.length]!;
      seen.get(name)!.push(run());
    }
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const ossl = med(seen.get('openssl speed')!);
  console.log(`\nAES-${keyBits}-GCM seal, ${bytes} bytes, median of ${rounds} rounds\n`);
  console.log('| contender | MB/s | × openssl speed |\n| --- | ---: | ---: |');
  for (const [name] of contenders) {
    const m = med(seen.get(name)!);
    console.log(`| ${name} | ${(m / 1e6).toFixed(m >= 1e8 ? 0 : 1)} | ${(m / ossl).toFixed(2)}× |`);
  }
}
