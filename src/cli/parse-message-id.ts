import { UsageError } from './command.js';

/** Message ids as shown by `swb inbox` (`#12` or `12`). */
export function parseMessageId(arg: string): number {
  const digits = arg.startsWith('#') ? arg.slice(1) : arg;
  if (!/^[1-9][0-9]{0,15}$/.test(digits)) throw new UsageError(`${JSON.stringify(arg)} is not a message id (like 12 or #12)`);
  return Number(digits);
}

export function parseMessageIds(args: readonly string[]): number[] {
  return args.map(parseMessageId);
}
