/**
 * Compiles and links a native kernel's binary, as the native kernel packages' build scripts do: the
 * kernel's C sources together with @x/aes-native-addon's Node-API glue (its native/addon.c), against the Node-API
 * headers of the npm package node-api-headers. Node-API functions stay undefined in the shared object and
 * bind to the node binary when it is loaded (the default for -shared), so one binary serves every Node
 * version with Node-API 8. Monorepo-only (not published): users get the prebuilt binaries, and nothing is
 * ever compiled on their machine.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
/** The glue: its include directory (aes_native.h) and its C source. */
export const ADDON_INCLUDE = path.join(path.dirname(require.resolve('@x/aes-native-addon/package.json')), 'native');
export const ADDON_SOURCE = path.join(ADDON_INCLUDE, 'addon.c');

/** `cc` with `cflags`, the glue and `sources` into the shared object `out`; returns `out`. */
export function compileAddon({ cc, cflags, sources, out }) {
  const headers = path.join(path.dirname(require.resolve('node-api-headers/package.json')), 'include');
  mkdirSync(path.dirname(out), { recursive: true });
  const args = [
    ...cflags,
    '-shared',
    '-s',
    '-Wl,-z,relro,-z,now,-z,noexecstack',
    `-I${headers}`,
    `-I${ADDON_INCLUDE}`,
    '-o',
    out,
    ADDON_SOURCE,
    ...sources,
  ];
  execFileSync(cc, args, { stdio: 'inherit' });
  return out;
}
