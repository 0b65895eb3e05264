// @x/ctr on every kernel this runtime can run, and on each kernel's block primitives alone (the generic
// keystream): NIST SP 800-38A F.5, property tests against node:crypto `aes-*-ctr` (counter wrap
// included), and every input rule.
import { chooseKernel } from '@x/aes-kernels/hazmat';
import { blocksOnly, random, testedKernels } from '@x/testkit';
import { describe, expect, it } from 'vitest';
import { type Ctr, kernels, newCtr } from '../src/index.js';
import { newCtrOn } from '../src/ctr.js';
import { ctrConformance } from './conformance.js';

const targets: [string, (key: Uint8Array) => Ctr][] = testedKernels(kernels()).flatMap((kernel) => {
  const generic = blocksOnly(chooseKernel('@x/ctr', kernel));
  return [
    [kernel, (key: Uint8Array) => newCtr(key, { kernel })],
    [generic.name, (key: Uint8Array) => newCtrOn(generic, key)],
  ] as [string, (key: Uint8Array) => Ctr][];
});

for (const [name, make] of targets) ctrConformance({ name, make }, { describe, it });

describe('@x/ctr input rules: a clear error, and dst untouched', () => {
  const key = random(16);
  const c = newCtr(key);
  const iv = random(16);
  const cases: [string, () => void, string | RegExp, ErrorConstructor][] = [
    ['key of 15 bytes', () => newCtr(random(15)), '@x/ctr: key must be 16, 24 or 32 bytes, got 15', RangeError],
    ['key not bytes', () => newCtr([1, 2] as never), '@x/ctr: key must be a Uint8Array', TypeError],
    ['options not an object', () => newCtr(key, 5 as never), '@x/ctr: options must be an object', TypeError],
    ['unknown kernel', () => newCtr(key, { kernel: 'nope' }), /^@x\/ctr: unknown kernel "nope"/, RangeError],
  ];
  for (const [what, call, message, type] of cases) {
    it(what, () => {
      expect(call).toThrow(type);
      expect(call).toThrow(message);
    });
  }
  const dst = random(64);
  const before = dst.slice();
  const calls: [string, () => void, string, ErrorConstructor][] = [
    [
      'dst shorter than src',
      () => c.xorKeyStream(dst.subarray(0, 31), random(32), iv),
      '@x/ctr: dst is shorter than src (31 < 32 bytes)',
      RangeError,
    ],
    ['src not bytes', () => c.xorKeyStream(dst, 'abc' as never, iv), '@x/ctr: src must be a Uint8Array', TypeError],
    [
      'dst not bytes',
      () => c.xorKeyStream(null as never, random(3), iv),
      '@x/ctr: dst must be a Uint8Array',
      TypeError,
    ],
    [
      'iv of 12 bytes',
      () => c.xorKeyStream(dst, random(5), random(12)),
      '@x/ctr: iv must be 16 bytes, got 12',
      RangeError,
    ],
    ['iv not bytes', () => c.xorKeyStream(dst, random(5), 7 as never), '@x/ctr: iv must be a Uint8Array', TypeError],
    [
      'iv overlapping dst',
      () => c.xorKeyStream(dst, random(20), dst.subarray(4, 20)),
      '@x/ctr: iv overlaps dst',
      RangeError,
    ],
    [
      'src overlapping dst, not in place',
      () => c.xorKeyStream(dst.subarray(1, 33), dst.subarray(0, 32), iv),
      '@x/ctr: dst and src overlap without being the same bytes',
      RangeError,
    ],
  ];
  for (const [what, call, message, type] of calls) {
    it(what, () => {
      expect(call).toThrow(type);
      expect(call).toThrow(message);
      expect(dst).toEqual(before);
    });
  }
  it('an empty message writes nothing', () => {
    c.xorKeyStream(dst.subarray(0, 0), new Uint8Array(0), iv);
    expect(dst).toEqual(before);
  });
});
