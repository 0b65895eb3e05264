// The command line as cryptsetup reads it: `--name VALUE`, `--name=VALUE`, `-x VALUE`, `-xVALUE`, `--`
// ending the options. An option that takes a value takes the next argument whatever it is (`-d -` reads
// stdin, `--threads -1` is a bad number of threads, as popt reads them); one that does not refuses
// `--json=yes`. Each option has one name (cryptsetup's spelling) and may have other spellings (`--keyslot`).
// Mistakes are UsageErrors of one line: `unknown option --foo`, `--type needs a value`.
import { UsageError } from './io.js';

/**
 * One option of a command: its name (`key-file`), its one-letter form (`d`), other spellings, the value it
 * takes (`FILE`; none: a switch), and its line of help.
 *
 * @example
 * ```ts
 * const keyFile: OptionDef = { name: 'key-file', short: 'd', value: 'FILE', help: 'the passphrase: every byte of FILE' };
 * ```
 */
export interface OptionDef {
  readonly name: string;
  readonly short?: string;
  readonly aliases?: readonly string[];
  readonly value?: string;
  readonly help: string;
}

/** The options given, by name: a value, `true` for a switch (the last of an option given twice). */
export type OptionValues = Readonly<Record<string, string | true | undefined>>;

/** Every value of each option that takes one, in the order given (`-d kf1 -d kf2`: TrueCrypt keyfiles). */
export type OptionLists = Readonly<Record<string, readonly string[]>>;

/**
 * What a command line holds: the options given (the last value of each), every value of each option in
 * order (`lists`), how each was spelled (`--keyslot`), and the rest.
 */
export interface ParsedArgs {
  readonly values: OptionValues;
  readonly lists: OptionLists;
  readonly spelled: Readonly<Record<string, string>>;
  readonly positionals: readonly string[];
}

/**
 * Reads `argv` against `defs`.
 *
 * @throws UsageError for an option not in `defs`, a value missing or given to a switch.
 * @example
 * ```ts
 * const { values, positionals } = parseOptions(['dump', 'disk.img', '--json'], [{ name: 'json', help: '' }]);
 * ```
 */
export function parseOptions(argv: readonly string[], defs: readonly OptionDef[]): ParsedArgs {
  const byName = new Map<string, OptionDef>();
  for (const d of defs) for (const n of [d.name, ...(d.aliases ?? [])]) byName.set(`--${n}`, d);
  for (const d of defs) if (d.short) byName.set(`-${d.short}`, d);
  const values: Record<string, string | true> = {};
  const lists: Record<string, string[]> = {};
  const spelledAs: Record<string, string> = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === '-' || !arg.startsWith('-')) {
      positionals.push(arg);
      continue;
    }
    // --name=value, -xVALUE, or the option alone
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const spelled = eq >= 0 ? arg.slice(0, eq) : arg.startsWith('--') ? arg : arg.slice(0, 2);
    const attached = eq >= 0 ? arg.slice(eq + 1) : arg.startsWith('--') || arg.length === 2 ? undefined : arg.slice(2);
    const def = byName.get(spelled);
    if (!def) throw new UsageError(`unknown option ${spelled}`);
    spelledAs[def.name] = spelled;
    if (def.value === undefined) {
      if (attached !== undefined) throw new UsageError(`${spelled} takes no value`);
      values[def.name] = true;
    } else {
      if (attached === undefined && i + 1 >= argv.length)
        throw new UsageError(`${spelled} needs a value (${def.value})`);
      const value = attached ?? argv[++i];
      values[def.name] = value;
      lists[def.name] = [...(lists[def.name] ?? []), value];
    }
  }
  return { values, lists, spelled: spelledAs, positionals };
}

/**
 * The help lines of `defs`: `  -d, --key-file FILE   what it is`, the help aligned, continued lines indented.
 *
 * @example
 * ```ts
 * optionHelp([{ name: 'json', help: 'the header as JSON' }]); // '  --json    the header as JSON'
 * ```
 */
export function optionHelp(defs: readonly OptionDef[]): string {
  const heads = defs.map((d) => `  ${d.short ? `-${d.short}, ` : ''}--${d.name}${d.value ? ` ${d.value}` : ''}`);
  const width = Math.max(...heads.map((h) => h.length)) + 2;
  return defs.map((d, i) => heads[i].padEnd(width) + d.help.replaceAll('\n', `\n${' '.repeat(width)}`)).join('\n');
}
