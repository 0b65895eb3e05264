// The types of ./bundle.mjs, for the tests that import it.
/**
 * Bundles `entries` (name → entry module) into `outdir` as `<name>.cjs` and `chunks/*.cjs`; `conditions`
 * are the export conditions packages are resolved with (`['source']` for the TypeScript sources).
 */
export function bundleCommands<Name extends string>(
  entries: Record<Name, string>,
  outdir: string,
  options?: { conditions?: readonly string[] },
): Promise<Record<Name, string>>;
