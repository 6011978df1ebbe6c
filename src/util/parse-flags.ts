// argv → positional args + typed flags. node:util's parseArgs (built into Node, so `swb send` loads
// nothing more) splits the command line: `--flag value`, `--flag=value`, `--` ends flags, short
// groups. It runs with `strict: false` and hands back its tokens, and swb's own rules are applied to
// them here, in argv order, because strict mode would change what swb accepts and says: it refuses
// a value that starts with a dash (`--timeout -1` would no longer reach the number check), reads
// `-5` as an option, refuses `--json=false`, and words its errors its own way. So: options are long
// (`-h` alone is --help), a token like `-5` is an argument, unknown flags and missing values are
// UsageErrors (exit 2), never silently ignored.
import { parseArgs } from 'node:util';

export type FlagType = 'boolean' | 'string' | 'number';

export interface FlagSpec {
  name: string;
  type: FlagType;
  /** Placeholder shown in help, e.g. SECONDS. */
  value?: string;
  description: string;
  repeatable?: boolean;
}

export type FlagValues = Record<string, string | number | boolean | string[] | undefined>;

/** A mistake in how the command was called: printed with usage, exit status 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export function parseFlags(argv: readonly string[], specs: readonly FlagSpec[]): { args: string[]; flags: FlagValues } {
  const byName = new Map(specs.map((s) => [s.name, s]));
  // Only the declared types matter to the tokenizer: a string (or number) flag takes the next word
  // as its value even when it starts with a dash, as swb always did.
  const options = Object.fromEntries(specs.map((s) => [s.name, { type: s.type === 'boolean' ? ('boolean' as const) : ('string' as const) }]));
  const { tokens } = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  const args: string[] = [];
  const flags: FlagValues = {};
  let lastShort = -1; // argv index of the last short-option word seen (`-abc` is one word, three tokens)
  for (const token of tokens) {
    if (token.kind === 'positional') {
      args.push(token.value);
      continue;
    }
    if (token.kind === 'option-terminator') continue; // what follows it arrives as positionals
    if (!token.rawName.startsWith('--')) {
      if (token.index === lastShort) continue;
      lastShort = token.index;
      const word = argv[token.index]!;
      if (word === '-h') flags.help = true;
      else if (/^-\d/.test(word)) args.push(word);
      else throw new UsageError(`unknown option ${word} (options are long: --name)`);
      continue;
    }
    const name = token.name;
    const spec = byName.get(name);
    if (!spec) throw new UsageError(`unknown option --${name}`);
    const raw = token.value;
    if (spec.type === 'boolean') {
      if (raw !== undefined && raw !== 'true' && raw !== 'false') throw new UsageError(`--${name} takes no value`);
      flags[name] = raw !== 'false';
      continue;
    }
    if (raw === undefined) throw new UsageError(`--${name} needs a value (${spec.value ?? spec.type})`);
    let value: string | number = raw;
    if (spec.type === 'number') {
      value = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(value) || value < 0) throw new UsageError(`--${name} needs a non-negative number, not ${JSON.stringify(raw)}`);
    }
    if (spec.repeatable) {
      const list = (flags[name] as string[] | undefined) ?? [];
      list.push(String(value));
      flags[name] = list;
    } else {
      flags[name] = value;
    }
  }
  return { args, flags };
}
