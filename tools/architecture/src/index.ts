/**
 * The architecture check: the rules, in the order they are reported. See ./checks.ts for each.
 */
import {
  fileCycles,
  longFunctions,
  MAX_FUNCTION_LINES,
  packageCycles,
  relativeEscapes,
  undeclaredImports,
} from './checks.js';
import type { Tree } from './tree.js';

export interface Rule {
  id: 'a' | 'b' | 'c' | 'd' | 'e';
  title: string;
  check: (tree: Tree) => string[];
}

export const RULES: Rule[] = [
  { id: 'a', title: 'every import of a workspace package is declared', check: undeclaredImports },
  { id: 'b', title: 'no cycle between workspace packages', check: packageCycles },
  { id: 'c', title: 'no relative import leaves its package', check: relativeEscapes },
  { id: 'd', title: 'no import circle between files', check: fileCycles },
  {
    id: 'e',
    title: `no function over ${MAX_FUNCTION_LINES} lines outside generated code`,
    check: (tree) => longFunctions(tree),
  },
];

export * from './checks.js';
export { isGenerated, parseSource } from './parse.js';
export { loadTree, readWorkspaces } from './tree.js';
