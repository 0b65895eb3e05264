/**
 * The architecture check from the command line: `npm run check --workspace @x/architecture` (or
 * `npx tsx tools/architecture/src/main.ts`). Prints each rule's offenders and exits 1 if there is any;
 * `npm test` runs the same rules as test/architecture.test.ts.
 */
import { fileURLToPath } from 'node:url';
import { RULES } from './index.js';
import { loadTree } from './tree.js';

const root = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');
const tree = loadTree(root);
let failed = 0;
for (const rule of RULES) {
  const offenders = rule.check(tree);
  console.log(
    `${offenders.length === 0 ? 'ok  ' : 'FAIL'} (${rule.id}) ${rule.title}: ${offenders.length} offender(s)`,
  );
  for (const o of offenders) console.log(`  ${o.replace(/\n/g, '\n  ')}`);
  if (offenders.length > 0) failed++;
}
console.log(`${tree.files.length} files in ${tree.workspaces.length} workspaces; ${failed} rule(s) failed`);
process.exit(failed === 0 ? 0 : 1);
