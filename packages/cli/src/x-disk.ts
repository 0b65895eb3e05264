#!/usr/bin/env node
// The `x-disk` executable: see ./x-disk-main.ts.
import { endOnClosedPipe } from './io.js';
import { main } from './x-disk-main.js';
import { stopOnSignals } from './signals.js';

stopOnSignals(); // first: before anything can make a temporary file
endOnClosedPipe(process.stdout);

process.exitCode = await main(process.argv.slice(2));
