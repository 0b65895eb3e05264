#!/usr/bin/env node
// The `x-luks` executable: see ./cli.ts.
import { main } from './cli.js';

process.exitCode = await main(process.argv.slice(2));
