import { describe, it } from 'vitest';
import { kernels } from '@x/xts';
import { xtsConformance } from './conformance.js';

// Every conformance test, once per kernel this runtime can run.
for (const kernel of kernels()) xtsConformance(kernel, { describe, it });
