#!/usr/bin/env node
// The `x-luks` command that npm links: a committed file, so that it exists when `npm ci` links bins,
// before the build (npm skips a bin whose file is missing, and `npx x-luks` then asks the registry).
// It loads the bundled command (dist/bin/x-luks.cjs, made by scripts/bundle.mjs); CommonJS, because
// Node's CommonJS loader starts a command in less time than its ES module loader (see the README).
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const main = join(__dirname, '..', 'dist', 'bin', 'x-luks.cjs');
if (!existsSync(main)) {
  process.stderr.write('x-luks: @x/cli is not built (no dist/bin/x-luks.cjs): run npm run build first\n');
  process.exit(1);
}
require(main);
