#!/usr/bin/env node
// The `x-disk` command that npm links: a committed file, so that it exists when `npm ci` links bins,
// before the build (npm skips a bin whose file is missing, and `npx x-disk` then asks the registry).
import { existsSync } from 'node:fs';

const main = new URL('../dist/x-disk.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('x-disk: @x/cli is not built (no dist/x-disk.js): run npm run build first\n');
  process.exit(1);
}
await import(main.href);
