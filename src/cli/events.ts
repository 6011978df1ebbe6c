import { HANDLE_HINT, isValidHandle } from '../protocol/handle.js';
import { sanitize } from '../text/sanitize.js';
import { UsageError, type CommandDescriptor } from './command.js';

const KINDS = ['mail', 'receipt', 'state', 'wake', 'row', 'resource'];

export const eventsCommand: CommandDescriptor = {
  name: 'events',
  summary: 'Stream what happens: mail and receipts, row states with their rule, wakes, rows added and exited, reservations.',
  usage: '[--row ROW] [--kinds mail,receipt,state,wake,row,resource]',
  maxArgs: 0,
  flags: [
    { name: 'row', type: 'string', value: 'ROW', description: 'only events about this row' },
    { name: 'kinds', type: 'string', value: 'LIST', description: `comma-separated: ${KINDS.join(', ')} (default all)` },
  ],
  details:
    'One line per event until interrupted (with --json, one JSON object per line). The operator sees everything; inside a row, only that row\'s events. ' +
    'A reader that falls far behind is dropped by the hub with a last error saying so (the hub never waits for it).',
  async run(ctx) {
    const row = ctx.flags.row as string | undefined;
    if (row !== undefined && !isValidHandle(row)) throw new UsageError(`--row ${JSON.stringify(row)}: ${HANDLE_HINT}`);
    const kinds = ((ctx.flags.kinds as string | undefined) ?? '').split(',').map((k) => k.trim()).filter(Boolean);
    const bad = kinds.find((k) => !KINDS.includes(k));
    if (bad) throw new UsageError(`--kinds: ${JSON.stringify(bad)} is not one of ${KINDS.join(', ')}`);
    const client = await ctx.connect({ autoStart: false });
    client.onPush((push) => {
      if (push.method !== 'event') return;
      const e = push.params as Record<string, unknown>;
      if (ctx.json) process.stdout.write(`${JSON.stringify(e)}\n`);
      else process.stdout.write(`${describe(e)}\n`);
    });
    const sub = await client.request<{ kinds: string[]; row: string | null }>('events.subscribe', { ...(kinds.length ? { kinds } : {}), ...(row ? { row } : {}) });
    // On stderr, so stdout stays one event per line: the stream is live from here.
    process.stderr.write(`swb events: watching ${sub.kinds.join(', ')}${sub.row ? ` of ${sub.row}` : ''}\n`);
    // Until the hub goes away (or drops a reader that fell behind) or the user interrupts.
    const code = await new Promise<number>((resolve) => {
      client.onClose(() => {
        const err = client.closeReason;
        process.stderr.write(`swb events: ${err ? `${err.code}: ${err.message}` : 'the hub closed the connection'}\n`);
        resolve(1);
      });
      process.once('SIGINT', () => resolve(0));
      process.once('SIGTERM', () => resolve(0));
    });
    return code;
  },
};

/** One event as a line: time, kind, then its fields (peer strings sanitized). */
function describe(e: Record<string, unknown>): string {
  const at = typeof e.at === 'number' ? new Date(e.at).toISOString().slice(11, 23) : '';
  const fields = Object.entries(e)
    .filter(([k]) => k !== 'kind' && k !== 'at')
    .map(([k, v]) => `${k}=${sanitize(typeof v === 'string' ? v : JSON.stringify(v), { singleLine: true, maxChars: 120 })}`);
  return `${at} ${String(e.kind).padEnd(7)} ${fields.join(' ')}`;
}
