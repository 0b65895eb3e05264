/**
 * The repository as the architecture check sees it: its workspaces (from the root package.json's
 * `workspaces` globs, `dir/*` only), and each workspace's files outside tests (`src/`, `scripts/` and
 * `bench/`, without test folders, fixtures, builds or `*.test.*` files), each parsed by ./parse.ts.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { type Parsed, parseSource } from './parse.js';

export interface Workspace {
  name: string;
  /** Relative to the repository root, with `/`: `packages/cbc`. */
  dir: string;
  /** dependencies, peerDependencies and optionalDependencies. */
  runtime: Set<string>;
  /** devDependencies. */
  dev: Set<string>;
}

export interface SourceFile extends Parsed {
  /** Relative to the repository root, with `/`: `packages/cbc/src/index.ts`. */
  path: string;
  workspace: Workspace;
}

export interface Tree {
  /** The repository root, absolute. */
  root: string;
  workspaces: Workspace[];
  files: SourceFile[];
}

interface Manifest {
  name?: string;
  workspaces?: string[];
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** The folders of a workspace whose files are checked. */
export const CHECKED_FOLDERS = ['src', 'scripts', 'bench'];
/** Folders never entered: tests, their data, builds and installs. */
const SKIPPED_FOLDERS = new Set([
  'node_modules',
  'dist',
  'build',
  'prebuilds',
  'coverage',
  'test',
  'tests',
  '__tests__',
  'fixtures',
  'vectors',
]);
const SOURCE = /\.[cm]?[jt]sx?$/;
const NOT_SOURCE = /\.d\.[cm]?ts$|\.(?:test|spec)\.[cm]?[jt]sx?$/;

const readJson = (file: string): Manifest => JSON.parse(readFileSync(file, 'utf8')) as Manifest;

function workspaceOf(root: string, dir: string): Workspace | undefined {
  const file = path.join(root, dir, 'package.json');
  if (!existsSync(file)) return undefined;
  const m = readJson(file);
  if (!m.name) return undefined;
  return {
    name: m.name,
    dir,
    runtime: new Set(Object.keys({ ...m.dependencies, ...m.peerDependencies, ...m.optionalDependencies })),
    dev: new Set(Object.keys(m.devDependencies ?? {})),
  };
}

/** The workspaces named by the root package.json (`packages/*`, `tools/*`, …), sorted by folder. */
export function readWorkspaces(root: string): Workspace[] {
  const found: Workspace[] = [];
  for (const glob of readJson(path.join(root, 'package.json')).workspaces ?? []) {
    const parent = glob.replace(/\/\*$/, '');
    if (parent === glob) {
      const ws = workspaceOf(root, glob);
      if (ws) found.push(ws);
      continue;
    }
    if (!existsSync(path.join(root, parent))) continue;
    for (const name of readdirSync(path.join(root, parent))) {
      const ws = workspaceOf(root, `${parent}/${name}`);
      if (ws) found.push(ws);
    }
  }
  return found.sort((a, b) => a.dir.localeCompare(b.dir));
}

/** Every checked source file under `dir` (relative to root), recursively, sorted. */
function walk(root: string, dir: string, out: string[]): void {
  const abs = path.join(root, dir);
  for (const name of readdirSync(abs).sort()) {
    const rel = `${dir}/${name}`;
    if (statSync(path.join(abs, name)).isDirectory()) {
      if (!SKIPPED_FOLDERS.has(name) && !name.startsWith('.')) walk(root, rel, out);
    } else if (SOURCE.test(name) && !NOT_SOURCE.test(name)) {
      out.push(rel);
    }
  }
}

/** The checked files of one workspace, relative to the root. */
export function filesOf(root: string, ws: Workspace): string[] {
  const out: string[] = [];
  for (const folder of CHECKED_FOLDERS) {
    if (existsSync(path.join(root, ws.dir, folder))) walk(root, `${ws.dir}/${folder}`, out);
  }
  return out;
}

/** Reads and parses the whole tree. */
export function loadTree(root: string): Tree {
  const workspaces = readWorkspaces(root);
  const files: SourceFile[] = [];
  for (const ws of workspaces) {
    for (const file of filesOf(root, ws)) {
      const parsed = parseSource(file, readFileSync(path.join(root, file), 'utf8'));
      files.push({ ...parsed, path: file, workspace: ws });
    }
  }
  return { root, workspaces, files };
}
