// The commands as npm links them: x-disk and x-luks bundled into CommonJS files, split at every dynamic
// import (dist/bin/x-disk.cjs, dist/bin/x-luks.cjs and dist/bin/chunks/*.cjs), which the committed shims
// bin/x-disk.cjs and bin/x-luks.cjs load.
//
// Why: on Node 20 a command's start-up was mostly the ES module loader (resolving, reading and linking each
// of the 36 modules a LUKS2 dump loads, about a millisecond each), not our code. Node's CommonJS loader
// costs a fraction of that per file, and a chunk holds many modules. What a command loads is still decided
// by its dynamic imports (a format's package when it is detected, the kernels when a key is opened), now
// one chunk each. The optional native kernels stay outside (@x/aes-kernels requires them at run time from
// node_modules); so does everything `node:`. The library entry points (`@x/cli/x-disk`, `@x/cli/x-luks`)
// stay the unbundled ES modules of dist/.
//
//   node scripts/bundle.mjs          after tsc: bundles dist/x-disk.js and dist/x-luks.js into dist/bin
//
// The tests (test/helpers.ts) bundle the TypeScript sources with the same function and the "source"
// condition, so what they run is made as what users run.
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

/** Imports left to Node at run time: its built-ins and the native kernels (prebuilt addons, optional). */
const EXTERNAL = [/^node:/, /^@x\/aes-native-(x64|arm64)$/];

/**
 * Bundles `entries` (name → entry module) into `outdir` as `<name>.cjs` and `chunks/*.cjs`; `conditions`
 * are the export conditions packages are resolved with (`['source']` for the TypeScript sources).
 *
 * @returns each name's bundled file.
 */
export async function bundleCommands(entries, outdir, { conditions = [] } = {}) {
  const options = {
    platform: 'node',
    external: EXTERNAL,
    resolve: { conditionNames: [...conditions, 'node', 'import', 'default'] },
    logLevel: 'warn',
    onLog(level, log, handler) {
      if (level === 'warn') throw new Error(`bundle: ${log.message}`);
      handler(level, log);
    },
  };
  const bundle = await rolldown({ ...options, input: entries });
  try {
    await bundle.write({
      dir: outdir,
      format: 'cjs',
      entryFileNames: '[name].cjs',
      chunkFileNames: 'chunks/[name]-[hash].cjs',
    });
  } finally {
    await bundle.close();
  }
  // @x/tcrypt's key derivation thread: its chunk starts `new Worker(new URL('./kdf-worker.js', …))` next to
  // itself, so the thread's module (one ES module file, nothing shared) sits beside the chunks
  const worker = await rolldown({ ...options, input: { 'kdf-worker': '@x/tcrypt/kdf-worker' } });
  try {
    await worker.write({ dir: `${outdir}/chunks`, format: 'es', entryFileNames: '[name].js', codeSplitting: false });
  } finally {
    await worker.close();
  }
  return Object.fromEntries(Object.keys(entries).map((name) => [name, `${outdir}/${name}.cjs`]));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dist = fileURLToPath(new URL('../dist/', import.meta.url));
  await rm(`${dist}bin`, { recursive: true, force: true });
  await bundleCommands({ 'x-disk': `${dist}x-disk.js`, 'x-luks': `${dist}x-luks.js` }, `${dist}bin`);
}
