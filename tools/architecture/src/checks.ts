/**
 * The five rules of the architecture check, each a function of the tree that returns its offenders, one
 * line each, with file:line and what to do; an empty list is a pass.
 *
 * (a) undeclaredImports: every import of a workspace package is declared in the importing workspace's
 *     dependencies, peerDependencies or optionalDependencies (devDependencies count for files under
 *     `bench/` and `scripts/`, and for every file of a `tools/*` workspace).
 * (b) packageCycles: the graph of workspace packages built from those imports has no cycle.
 * (c) relativeEscapes: no relative import leaves its workspace's folder.
 * (d) fileCycles: no import circle between files, through relative imports; an import of types only
 *     (`import type`, gone at run time) is not an edge.
 * (e) longFunctions: no function (declaration, method, arrow, function expression, constructor, accessor)
 *     longer than `max` lines outside generated files.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ImportSite } from './parse.js';
import type { SourceFile, Tree, Workspace } from './tree.js';

/** The longest function allowed, in lines (the issue: "no function over about 120 lines"). */
export const MAX_FUNCTION_LINES = 120;

/** The package a bare specifier names: `@x/cbc/portable` → `@x/cbc`, `typescript` → `typescript`. */
export function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return parts.slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
}

const isRelative = (specifier: string) => specifier === '.' || specifier === '..' || /^\.\.?\//.test(specifier);

/** May this file use its workspace's devDependencies? Benchmarks, scripts and tools may. */
function devAllowed(file: SourceFile): boolean {
  const inside = file.path.slice(file.workspace.dir.length + 1);
  return file.workspace.dir.startsWith('tools/') || /^(?:bench|scripts)\//.test(inside);
}

interface PackageImport {
  file: SourceFile;
  site: ImportSite;
  target: Workspace;
}

/** Every import of another workspace package, in file and line order. */
function packageImports(tree: Tree): PackageImport[] {
  const byName = new Map(tree.workspaces.map((w) => [w.name, w]));
  const out: PackageImport[] = [];
  for (const file of tree.files) {
    for (const site of file.imports) {
      if (isRelative(site.specifier)) continue;
      const target = byName.get(packageName(site.specifier));
      if (target && target !== file.workspace) out.push({ file, site, target });
    }
  }
  return out;
}

/** (a) Imports of workspace packages that the importer's package.json does not declare. */
export function undeclaredImports(tree: Tree): string[] {
  const out: string[] = [];
  for (const { file, site, target } of packageImports(tree)) {
    const ws = file.workspace;
    if (ws.runtime.has(target.name)) continue;
    const dev = devAllowed(file);
    if (dev && ws.dev.has(target.name)) continue;
    const where = dev ? 'dependencies or devDependencies' : 'dependencies, peerDependencies or optionalDependencies';
    const hint =
      !dev && ws.dev.has(target.name)
        ? ` (it is only a devDependency, and ${file.path} is not a bench, script or tool)`
        : '';
    out.push(
      `${file.path}:${site.line}: imports '${site.specifier}', but ${ws.dir}/package.json lacks ${target.name} in its ${where}${hint}`,
    );
  }
  return out;
}

/** Tarjan's strongly connected components of a graph given as adjacency sets; only those that hold a cycle. */
export function cycles<T>(nodes: T[], edges: Map<T, Set<T>>): T[][] {
  let index = 0;
  const indexOf = new Map<T, number>();
  const low = new Map<T, number>();
  const stack: T[] = [];
  const onStack = new Set<T>();
  const found: T[][] = [];
  const connect = (v: T): void => {
    indexOf.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!indexOf.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) as number, indexOf.get(w) as number));
      }
    }
    if (low.get(v) !== indexOf.get(v)) return;
    const component: T[] = [];
    let w: T;
    do {
      w = stack.pop() as T;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || edges.get(v)?.has(v)) found.push(component);
  };
  for (const v of nodes) if (!indexOf.has(v)) connect(v);
  return found;
}

/** One shortest circle through `start` inside `component`: start → … → start. */
export function circleThrough<T>(start: T, component: Set<T>, edges: Map<T, Set<T>>): T[] {
  const from = new Map<T, T>();
  const queue: T[] = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i];
    for (const w of edges.get(v) ?? []) {
      if (!component.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(from.get(path[0]) as T);
        return [...path, start];
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

function addEdge<T>(edges: Map<T, Set<T>>, from: T, to: T): void {
  const set = edges.get(from) ?? new Set<T>();
  set.add(to);
  edges.set(from, set);
}

/** (b) Cycles between workspace packages, each with one circle and every import that makes its edges. */
export function packageCycles(tree: Tree): string[] {
  const edges = new Map<string, Set<string>>();
  const sites = new Map<string, string[]>();
  for (const { file, site, target } of packageImports(tree)) {
    addEdge(edges, file.workspace.name, target.name);
    const key = `${file.workspace.name} → ${target.name}`;
    sites.set(key, [...(sites.get(key) ?? []), `${file.path}:${site.line} imports '${site.specifier}'`]);
  }
  const names = tree.workspaces.map((w) => w.name);
  return cycles(names, edges).map((component) => {
    const members = new Set(component);
    const first = names.find((n) => members.has(n)) as string;
    const circle = circleThrough(first, members, edges);
    const lines = [];
    for (let i = 0; i + 1 < circle.length; i++) {
      const key = `${circle[i]} → ${circle[i + 1]}`;
      lines.push(`  ${key}: ${(sites.get(key) ?? []).join('; ')}`);
    }
    return `package cycle ${circle.join(' → ')} (remove one of these imports, or move the code it needs down):\n${lines.join('\n')}`;
  });
}

const RESOLVE_SUFFIXES = ['', '.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs', '/index.ts', '/index.js'];

/** The file a relative specifier names, relative to the root (TypeScript's `.js` → `.ts` included), if any. */
export function resolveRelative(root: string, from: string, specifier: string): string | undefined {
  const base = path.posix.join(path.posix.dirname(from), specifier);
  const stems = [base];
  const js = /\.([cm]?)js(x?)$/.exec(base);
  if (js) stems.unshift(`${base.slice(0, -js[0].length)}.${js[1]}ts${js[2]}`);
  for (const stem of stems) {
    for (const suffix of RESOLVE_SUFFIXES) {
      const candidate = stem + suffix;
      const abs = path.join(root, candidate);
      if (existsSync(abs) && statSync(abs).isFile()) return candidate;
    }
  }
  return undefined;
}

/** (c) Relative imports whose target lies outside the importer's workspace folder. */
export function relativeEscapes(tree: Tree): string[] {
  const out: string[] = [];
  for (const file of tree.files) {
    for (const site of file.imports) {
      if (!isRelative(site.specifier)) continue;
      const target = path.posix.join(path.posix.dirname(file.path), site.specifier);
      if (target === file.workspace.dir || target.startsWith(`${file.workspace.dir}/`)) continue;
      out.push(
        `${file.path}:${site.line}: imports '${site.specifier}' (${target}), outside ${file.workspace.dir}: import the package by its name, declared in package.json`,
      );
    }
  }
  return out;
}

/** (d) Circles of imports between files (relative imports that exist at run time). */
export function fileCycles(tree: Tree): string[] {
  const edges = new Map<string, Set<string>>();
  const sites = new Map<string, number>();
  const checked = new Set(tree.files.map((f) => f.path));
  for (const file of tree.files) {
    for (const site of file.imports) {
      if (site.typeOnly || !isRelative(site.specifier)) continue;
      const target = resolveRelative(tree.root, file.path, site.specifier);
      if (!target || !checked.has(target)) continue;
      addEdge(edges, file.path, target);
      const key = `${file.path} → ${target}`;
      if (!sites.has(key)) sites.set(key, site.line);
    }
  }
  const order = [...checked];
  return cycles(order, edges).map((component) => {
    const members = new Set(component);
    const first = order.find((f) => members.has(f)) as string;
    const circle = circleThrough(first, members, edges);
    const steps = [];
    for (let i = 0; i + 1 < circle.length; i++) {
      steps.push(`  ${circle[i]}:${sites.get(`${circle[i]} → ${circle[i + 1]}`)} imports ${circle[i + 1]}`);
    }
    const more =
      component.length > circle.length - 1
        ? ` (${component.length} files are in this knot: ${[...component].sort().join(', ')})`
        : '';
    return `import circle of ${circle.length - 1} file(s)${more}; move what both need into a file both import:\n${steps.join('\n')}`;
  });
}

/** (e) Functions longer than `max` lines, outside generated files; the longest first. */
export function longFunctions(tree: Tree, max = MAX_FUNCTION_LINES): string[] {
  const found: { text: string; lines: number }[] = [];
  for (const file of tree.files) {
    if (file.generated) continue;
    for (const fn of file.functions) {
      if (fn.lines > max) {
        found.push({
          lines: fn.lines,
          text: `${file.path}:${fn.line}: ${fn.name} is ${fn.lines} lines (at most ${max}): split it`,
        });
      }
    }
  }
  return found.sort((a, b) => b.lines - a.lines).map((f) => f.text);
}
