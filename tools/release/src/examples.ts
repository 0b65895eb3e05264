/**
 * The README examples: the code blocks a user can paste and run, found in `README.md`, the pages of
 * `docs/` (`docs/*.md`, where the root README's further examples live), `packages/*\/README.md`,
 * `apps/*\/README.md` and `tools/*\/README.md`.
 *
 * The convention (src/release.ts installs and runs what this finds; src/examples-local.ts runs it on the
 * workspace build):
 *
 * - A runnable example is a fenced block whose info string is `js` and whose first line is
 *   `// npm install @x/a @x/b …`, or whose info string is `sh` and whose first line is
 *   `# npm install @x/a …`: the packages a user installs for it, and nothing else on that line. It runs in a
 *   fresh project after exactly that install, in a folder that holds `sample-luks2.img`; a `js` example as
 *   `node example.mjs`, an `sh` example as `bash -euo pipefail example.sh`. Exit status 0 is a pass.
 * - Every other block is a fragment (`ts`, `text`, or an `sh` block of repository commands) and never
 *   starts with an install line.
 *
 * What is refused, with the README's file and line, all at once: an install line in any other block or
 * in any other form (`npm i`, flags, versions, a trailing comment); a `js` block without one; a package
 * that is unknown, private, named twice, or not `@x/…` (a third-party package only where an `@x` package
 * on the same line depends on it, e.g. `@noble/hashes` for `@x/kdf`'s hash functions); a `js` import of a
 * package the line does not name, of a subpath its `exports` lacks, or of a relative file; an `sh` command
 * of a package the line does not name, or one not run through `npx`; a package named but never used.
 */
import { builtinModules } from 'node:module';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface Example {
  /** The README (or docs page), relative to the repository root: `packages/cbc/README.md`. */
  file: string;
  /** The 1-based line of the opening fence. */
  line: number;
  lang: 'js' | 'sh';
  /** What the first line says to install, in its order. */
  packages: string[];
  /** The block's text, its first line included, ending with a newline. */
  code: string;
}

interface Manifest {
  name: string;
  private?: boolean;
  bin?: string | Record<string, string>;
  exports?: unknown;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** A public workspace as a user installs it. */
interface Published {
  name: string;
  /** The subpaths a user may import: `.`, `./portable`, … */
  subpaths: Set<string>;
  bins: string[];
  /** Its dependencies and peer dependencies: what an install line may name beside it. */
  dependencies: string[];
}

interface Block {
  line: number;
  info: string;
  lines: string[];
}

const PARENTS = ['packages', 'apps', 'tools'];

/** The README files, root first, then the docs/ pages by name, then by folder. */
function readmes(repoRoot: string): string[] {
  const files = existsSync(path.join(repoRoot, 'README.md')) ? ['README.md'] : [];
  const docs = path.join(repoRoot, 'docs');
  if (existsSync(docs)) {
    for (const name of readdirSync(docs).sort()) if (name.endsWith('.md')) files.push(`docs/${name}`);
  }
  for (const parent of PARENTS) {
    const dir = path.join(repoRoot, parent);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      const file = path.posix.join(parent, name, 'README.md');
      if (existsSync(path.join(repoRoot, file))) files.push(file);
    }
  }
  return files;
}

function subpathsOf(manifest: Manifest): Set<string> {
  const { exports } = manifest;
  if (exports === undefined) return new Set(['.']);
  if (typeof exports === 'string' || Array.isArray(exports)) return new Set(['.']);
  const keys = Object.keys(exports as object);
  return new Set(keys.some((k) => k.startsWith('.')) ? keys : ['.']);
}

/** Every public workspace of the repository, by name. */
function publishedPackages(repoRoot: string): { published: Map<string, Published>; privateNames: Set<string> } {
  const published = new Map<string, Published>();
  const privateNames = new Set<string>();
  for (const parent of PARENTS) {
    const dir = path.join(repoRoot, parent);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name, 'package.json');
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
      if (manifest.private) {
        privateNames.add(manifest.name);
        continue;
      }
      const bin = manifest.bin;
      published.set(manifest.name, {
        name: manifest.name,
        subpaths: subpathsOf(manifest),
        bins: typeof bin === 'string' ? [manifest.name.split('/').pop() as string] : Object.keys(bin ?? {}),
        dependencies: Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }),
      });
    }
  }
  return { published, privateNames };
}

const OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/;

/** The fenced code blocks of a Markdown text (CommonMark's fences, indented up to 3 spaces). */
function blocks(text: string, file: string, problems: string[]): Block[] {
  const lines = text.split(/\r?\n/);
  const found: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = OPEN.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, info] = open;
    if (fence[0] === '`' && info.includes('`')) continue; // an inline code span, not a fence
    const close = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !close.test(lines[j])) {
      body.push(lines[j].replace(new RegExp(`^ {0,${indent.length}}`), ''));
      j++;
    }
    if (j === lines.length) problems.push(`${file}:${i + 1}: this code fence is never closed`);
    found.push({ line: i + 1, info: info.trim(), lines: body });
    i = j;
  }
  return found;
}

/** A first line that means "install these" in any spelling, so that a wrong spelling is refused, not missed. */
const LOOKS_LIKE_INSTALL = /^\s*(?:\/\/+|#+|<!--|--|;)?\s*(?:npm|pnpm|yarn|bun)\s+(?:i|in|install|isntall|add)(?:\s|$)/;
const INSTALL = { js: /^\/\/ npm install ((?:\S+ )*\S+)$/, sh: /^# npm install ((?:\S+ )*\S+)$/ } as const;
/** Spellings of JavaScript that are neither the runnable `js` nor the fragment `ts`. */
const OTHER_JS = new Set(['javascript', 'mjs', 'cjs', 'jsx', 'node']);
const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/;

/** The package a module specifier names: `@x/cbc/portable` → `@x/cbc`, `hash-wasm/x` → `hash-wasm`. */
function packageOf(specifier: string): { name: string; subpath: string } {
  const parts = specifier.split('/');
  const n = specifier.startsWith('@') ? 2 : 1;
  const rest = parts.slice(n).join('/');
  return { name: parts.slice(0, n).join('/'), subpath: rest ? `./${rest}` : '.' };
}

const BUILTINS = new Set(builtinModules);

/** Every module specifier a JavaScript text imports: static and dynamic `import`, `require`. */
function specifiers(code: string): string[] {
  const found = new Set<string>();
  const patterns = [
    /\bfrom\s*['"]([^'"]+)['"]/g,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of code.matchAll(pattern)) found.add(m[1]);
  return [...found];
}

/** Checks one example against the packages it names; returns what is wrong. */
function checkUse(example: Example, published: Map<string, Published>): string[] {
  const problems: string[] = [];
  const named = new Set(example.packages);
  const used = new Set<string>();
  const body = example.code.split('\n').slice(1).join('\n');
  if (example.lang === 'js') {
    for (const spec of specifiers(body)) {
      if (spec.startsWith('node:') || BUILTINS.has(spec)) continue;
      if (spec.startsWith('.') || spec.startsWith('/')) {
        problems.push(`imports the file '${spec}': an example is one self-contained module`);
        continue;
      }
      const { name, subpath } = packageOf(spec);
      used.add(name);
      if (!named.has(name)) {
        problems.push(`imports '${spec}', but its install line does not name ${name}`);
        continue;
      }
      const pkg = published.get(name);
      if (pkg && !pkg.subpaths.has(subpath)) {
        problems.push(`imports '${spec}', which ${name} does not export (it has ${[...pkg.subpaths].join(', ')})`);
      }
    }
  } else {
    const binOwner = new Map<string, string>();
    for (const pkg of published.values()) for (const bin of pkg.bins) binOwner.set(bin, pkg.name);
    for (const raw of body.split('\n')) {
      const line = raw.replace(/(^|\s)#.*$/, '');
      for (const m of line.matchAll(/(?:^|[;&|(]\s*|\s)(npx\s+(?:-\S*\s+)*)?([a-z][\w-]*)(?=\s|$)/g)) {
        const owner = binOwner.get(m[2]);
        if (!owner) continue;
        used.add(owner);
        if (!named.has(owner)) problems.push(`runs ${m[2]}, but its install line does not name ${owner}`);
        if (!m[1]) problems.push(`runs ${m[2]} without npx: a user's node_modules/.bin is not on PATH`);
      }
    }
    // An sh example may also use a package through node -e / --input-type=module.
    for (const spec of specifiers(body)) used.add(packageOf(spec).name);
  }
  for (const name of example.packages) {
    if (!used.has(name)) problems.push(`names ${name} on its install line but never uses it`);
  }
  return problems;
}

/**
 * Every runnable example of the repository's READMEs, in file order and then line order.
 *
 * @throws Error listing every malformed block (`file:line: reason`), when there is one.
 */
export function findExamples(repoRoot: string): Example[] {
  const { published, privateNames } = publishedPackages(repoRoot);
  const examples: Example[] = [];
  const problems: string[] = [];
  for (const file of readmes(repoRoot)) {
    const text = readFileSync(path.join(repoRoot, file), 'utf8');
    for (const block of blocks(text, file, problems)) {
      const where = `${file}:${block.line}`;
      const lang = block.info.split(/\s+/)[0] ?? '';
      const first = block.lines[0] ?? '';
      const looks = LOOKS_LIKE_INSTALL.test(first);
      if (lang !== 'js' && lang !== 'sh') {
        if (OTHER_JS.has(lang)) {
          problems.push(`${where}: a \`${lang}\` block: a runnable example is \`js\`, a fragment \`ts\``);
        } else if (looks) {
          problems.push(
            `${where}: a \`${lang || '(no language)'}\` block starts with an install line; a runnable example is \`js\` (// npm install …) or \`sh\` (# npm install …), a fragment has no install line`,
          );
        }
        continue;
      }
      if (!looks) {
        if (lang === 'js') {
          problems.push(
            `${where}: a \`js\` block must start with \`// npm install @x/…\`; a fragment is \`ts\` or \`text\``,
          );
        }
        continue; // an sh block of repository commands: a fragment
      }
      const install = INSTALL[lang].exec(first);
      if (!install) {
        problems.push(
          `${where}: the install line must read exactly \`${lang === 'js' ? '//' : '#'} npm install <package> …\` (package names only), not \`${first}\``,
        );
        continue;
      }
      const packages = install[1].split(' ');
      const bad: string[] = [];
      for (const [i, name] of packages.entries()) {
        if (packages.indexOf(name) !== i) bad.push(`${name} is named twice`);
        else if (!NPM_NAME.test(name)) bad.push(`'${name}' is not a package name (no versions, flags or paths)`);
        else if (privateNames.has(name)) bad.push(`${name} is a private workspace, never published`);
        else if (name.startsWith('@x/')) {
          if (!published.has(name)) bad.push(`${name} is not a package of this repository`);
        } else if (!packages.some((x) => published.get(x)?.dependencies.includes(name))) {
          bad.push(`${name} is not an @x package, nor a dependency of one named on the line`);
        }
      }
      if (bad.length > 0) {
        problems.push(...bad.map((b) => `${where}: ${b}`));
        continue;
      }
      const example: Example = { file, line: block.line, lang, packages, code: `${block.lines.join('\n')}\n` };
      const wrong = checkUse(example, published);
      if (wrong.length > 0) problems.push(...wrong.map((w) => `${where}: ${w}`));
      else examples.push(example);
    }
  }
  if (problems.length > 0) {
    throw new Error(`malformed README examples:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
  return examples;
}
