#!/usr/bin/env node
// The `x-disk` executable: see ./x-disk-main.ts.
import { endOnClosedPipe } from './io.js';
import { main } from './x-disk-main.js';
import { stopOnSignals } from './signals.js';

stopOnSignals(); // first: before anything can make a temporary file
endOnClosedPipe(process.stdout);

// no top-level await: the command is bundled as CommonJS (scripts/bundle.mjs)
void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
