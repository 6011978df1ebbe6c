// argv → positional args + typed flags. `--flag value`, `--flag=value`, `--` ends flags.
// Unknown flags and missing values are UsageErrors (exit 2), never silently ignored.
import { UsageError, type FlagSpec, type FlagValues } from './command.js';

export function parseFlags(argv: readonly string[], specs: readonly FlagSpec[]): { args: string[]; flags: FlagValues } {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const args: string[] = [];
  const flags: FlagValues = {};
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === '--') {
      args.push(...argv.slice(i + 1));
      break;
    }
    if (!token.startsWith('--') || token === '-') {
      if (token.startsWith('-') && token.length > 1 && !/^-\d/.test(token)) {
        if (token === '-h') {
          flags.help = true;
          continue;
        }
        throw new UsageError(`unknown option ${token} (options are long: --name)`);
      }
      args.push(token);
      continue;
    }
    const eq = token.indexOf('=');
    const name = token.slice(2, eq === -1 ? undefined : eq);
    const spec = byName.get(name);
    if (!spec) throw new UsageError(`unknown option --${name}`);
    let raw: string | undefined = eq === -1 ? undefined : token.slice(eq + 1);
    if (spec.type === 'boolean') {
      if (raw !== undefined && raw !== 'true' && raw !== 'false') throw new UsageError(`--${name} takes no value`);
      flags[name] = raw !== 'false';
      continue;
    }
    if (raw === undefined) {
      raw = argv[++i];
      if (raw === undefined) throw new UsageError(`--${name} needs a value (${spec.value ?? spec.type})`);
    }
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
