#!/usr/bin/env node
// The `x-luks` executable: see ./x-luks-main.ts.
import { main } from './x-luks-main.js';

process.exitCode = await main(process.argv.slice(2));
