// The smoke suite's vectors are node:crypto's answers, made by src/make-vectors.ts: the committed file
// must be what the generator makes now, and the suite must pass in this Node (every runtime in
// `npm run test:runtimes`).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeVectors } from '../src/make-vectors.js';

const smoke = new URL('../smoke/', import.meta.url);

describe('the smoke suite', () => {
  it('smoke/vectors.json is what src/make-vectors.ts writes now (rerun it: npm run vectors -w @x/runtimes)', () => {
    const committed = JSON.parse(readFileSync(new URL('vectors.json', smoke), 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(makeVectors())));
  });

  it('passes in this Node on every kernel it has, against those vectors', () => {
    const env = { ...process.env };
    delete env.X_AES_KERNEL;
    const r = spawnSync(process.execPath, [fileURLToPath(new URL('suite.mjs', smoke))], { encoding: 'utf8', env });
    const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
    expect(line, r.stdout + r.stderr).toBeDefined();
    const result = JSON.parse(line!.slice('RESULT '.length)) as { results: { name: string; ok: boolean }[] };
    expect(result.results.filter((c) => !c.ok)).toEqual([]);
    expect(result.results.length).toBeGreaterThanOrEqual(6);
    expect(r.status).toBe(0);
  });
});
