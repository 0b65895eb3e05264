/**
 * The release, made where it cannot touch the checkout: a copy of the workspaces (their built dist/ and
 * prebuilds/ included, tests left out) in a folder of the caller's, where `changeset version` consumes the
 * changesets and `changeset publish` publishes, exactly as a maintainer would run them in the repository.
 * The copy's node_modules is a link to the repository's, so the packages' prepack scripts find their tools.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  [field: string]: unknown;
}

export interface Workspace {
  /** Relative to the root: `packages/cbc`. */
  dir: string;
  manifest: Manifest;
}

export const readManifest = (dir: string): Manifest =>
  JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest;

/** The workspaces of the root package.json (`packages/*`, `tools/*`, `apps/*`), in name order. */
export function workspaces(root: string): Workspace[] {
  const globs = readManifest(root).workspaces as string[];
  return globs
    .flatMap((glob) => {
      const parent = glob.replace(/\/\*$/, '');
      return readdirSync(path.join(root, parent), { withFileTypes: true })
        .filter((e) => e.isDirectory() && existsSync(path.join(root, parent, e.name, 'package.json')))
        .map((e) => path.join(parent, e.name));
    })
    .map((dir) => ({ dir, manifest: readManifest(path.join(root, dir)) }))
    .sort((a, b) => a.manifest.name.localeCompare(b.manifest.name));
}

/** What of a public workspace the copy leaves out: nothing a tarball or a prepack script needs. */
const SKIP = new Set(['node_modules', '.turbo', 'test', 'bench', 'coverage', 'breaks', '.cache']);

/** Copies the repository's release inputs to `stage`; returns its workspaces. */
export function stageCopy(repo: string, stage: string): Workspace[] {
  mkdirSync(stage, { recursive: true });
  for (const file of ['package.json', 'LICENSE', 'tsconfig.base.json', 'scripts']) {
    cpSync(path.join(repo, file), path.join(stage, file), { recursive: true });
  }
  cpSync(path.join(repo, '.changeset'), path.join(stage, '.changeset'), { recursive: true });
  symlinkSync(path.join(repo, 'node_modules'), path.join(stage, 'node_modules'), 'dir');
  const all = workspaces(repo);
  for (const { dir, manifest } of all) {
    const from = path.join(repo, dir);
    const to = path.join(stage, dir);
    if (manifest.private) {
      // Private workspaces take part in the dependency graph changesets reads, nothing more.
      mkdirSync(to, { recursive: true });
      cpSync(path.join(from, 'package.json'), path.join(to, 'package.json'));
      continue;
    }
    cpSync(from, to, { recursive: true, filter: (src) => !SKIP.has(path.basename(src)) || src === from });
  }
  return all;
}

/** Runs a binary of the repository's node_modules in `cwd`; returns what it printed. */
export function run(repo: string, cwd: string, bin: string, args: string[], env: NodeJS.ProcessEnv): string {
  return execFileSync(path.join(repo, 'node_modules', '.bin', bin), args, {
    cwd,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** Writes `text` to `file` and returns `file`. */
export function write(file: string, text: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}
