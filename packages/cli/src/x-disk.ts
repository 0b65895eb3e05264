#!/usr/bin/env node
// The `x-disk` executable: see ./x-disk-main.ts.
import { main } from './x-disk-main.js';

process.exitCode = await main(process.argv.slice(2));
