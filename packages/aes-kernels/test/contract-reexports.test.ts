// The contract, the input rules and ViewCache are @x/aes-kernel-contract's: the entries of this package
// that have always offered them hand out the very same objects, so modes and users compile and run unchanged.
import * as contractNs from '@x/aes-kernel-contract';
import { describe, expect, it } from 'vitest';
import * as checksNs from '../src/checks.js';
import * as hazmat from '../src/hazmat.js';
import * as indexNs from '../src/index.js';

const contract: Record<string, unknown> = { ...contractNs };
const checks: Record<string, unknown> = { ...checksNs };
const index: Record<string, unknown> = { ...indexNs };

describe('what @x/aes-kernels re-exports from @x/aes-kernel-contract', () => {
  it('./checks: every input rule (and OverlapMemo, for the overlap rules), and nothing of its own', () => {
    const rules = Object.keys(contract).filter((k) => /^(check|overlaps|OverlapMemo$)/.test(k));
    expect(Object.keys(checks).sort()).toEqual(rules.sort());
    for (const name of rules) expect(checks[name]).toBe(contract[name]);
  });
  it(".: the check* rules beside the registry (and defineMode's AEAD rules, which are its own)", () => {
    const rules = Object.keys(contract).filter((k) => k.startsWith('check'));
    expect(rules.length).toBe(9);
    const own = Object.keys(index).filter((k) => k.startsWith('check') && !rules.includes(k));
    expect(own.sort()).toEqual(['checkOpenDst', 'checkSealDst']);
    for (const name of rules) expect(index[name]).toBe(contract[name]);
  });
  it('./hazmat: FAST_PATHS, ViewCache, BlockBatch and loadKey', () => {
    expect(hazmat.FAST_PATHS).toBe(contractNs.FAST_PATHS);
    expect(hazmat.loadKey).toBe(contractNs.loadKey);
    expect(hazmat.ViewCache).toBe(contractNs.ViewCache);
    expect(hazmat.BlockBatch).toBe(contractNs.BlockBatch);
  });
});
