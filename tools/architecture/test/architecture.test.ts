// The architecture of this repository, as npm test checks it: each rule of src/checks.ts on the files
// outside tests. A failure lists every offender with file:line and what to do about it.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RULES } from '../src/index.js';
import { loadTree } from '../src/tree.js';

const root = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');
const tree = loadTree(root);

describe('the architecture of the repository (files outside tests)', () => {
  it('reads every workspace and its files', () => {
    const names = tree.workspaces.map((w) => w.name);
    expect(names).toContain('@x/aes-kernels');
    expect(names).toContain('@x/architecture');
    expect(tree.files.some((f) => f.path === 'tools/architecture/src/checks.ts')).toBe(true);
    expect(tree.files.some((f) => f.path.includes('/test/'))).toBe(false);
  });

  for (const rule of RULES) {
    it(`(${rule.id}) ${rule.title}`, () => {
      const offenders = rule.check(tree);
      if (offenders.length > 0) {
        throw new Error(`(${rule.id}) ${rule.title}: ${offenders.length} offender(s)\n${offenders.join('\n')}`);
      }
      expect(offenders).toEqual([]);
    });
  }
});
