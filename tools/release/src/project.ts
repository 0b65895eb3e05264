/**
 * A user's project outside the repository: a folder with a package.json of its own and an `.npmrc` that
 * names the registry, where npm runs with its default settings. Nothing of this machine's or of the
 * calling `npm run` leaks in: the npm_* variables that `npm run` sets are dropped, the repository's
 * node_modules/.bin leaves PATH, and the user config is an empty file (this machine's ~/.npmrc turns off
 * audit and fund and sets nodedir, which npm's defaults do not).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { write } from './stage.js';

export interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end, collecting its output; `timeout` (ms) guards against a hang only. */
export function exec(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeout?: number },
): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      stdout += s;
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
    });
    const timer = setTimeout(() => {
      stderr += `\n(killed: still running after ${options.timeout} ms)\n`;
      child.kill('SIGKILL');
    }, options.timeout ?? 900_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: `${stderr}${error.message}\n` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The environment of a user's shell: this one without what `npm run` and the repository added. */
export function userEnv(repo: string, userconfig: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || key === 'INIT_CWD' || key === 'NODE' || /^X_AES_/.test(key)) continue;
    env[key] = value;
  }
  env.PATH = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((p) => !p.startsWith(repo) && !p.includes(`${path.sep}node_modules${path.sep}`))
    .join(path.delimiter);
  env.NPM_CONFIG_USERCONFIG = userconfig;
  return env;
}

export class Project {
  constructor(
    readonly dir: string,
    readonly env: NodeJS.ProcessEnv,
  ) {}

  /** A new project in `dir`, installing from the registry whose `.npmrc` lines are given. */
  static create(dir: string, npmrc: string, env: NodeJS.ProcessEnv): Project {
    write(
      path.join(dir, 'package.json'),
      `${JSON.stringify({ name: 'user-project', version: '1.0.0', private: true }, null, 2)}\n`,
    );
    writeFileSync(path.join(dir, '.npmrc'), npmrc);
    return new Project(dir, env);
  }

  /** `npm install <args>`: no flags but the caller's, so npm's defaults (install scripts on, audit on). */
  install(args: string[]): Promise<Outcome> {
    return exec('npm', ['install', ...args], { cwd: this.dir, env: this.env });
  }

  node(args: string[]): Promise<Outcome> {
    return exec(process.execPath, args, { cwd: this.dir, env: this.env });
  }

  bash(script: string): Promise<Outcome> {
    return exec('bash', ['-euo', 'pipefail', script], { cwd: this.dir, env: this.env });
  }
}

/** npm's warnings, errors and anything of node-gyp in an install's output; [] when it is clean. */
export function alarming(outcome: Outcome): string[] {
  return `${outcome.stdout}\n${outcome.stderr}`
    .split('\n')
    .filter((line) => /^npm (warn|error|ERR)|gyp|deprecated/i.test(line.trim()));
}
