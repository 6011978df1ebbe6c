import { HANDLE_HINT, isValidHandle } from '../protocol/handle.js';
import { sanitize } from '../text/sanitize.js';
import type { HubClient } from '../client/hub-client.js';
import { SwbError } from '../protocol/error-codes.js';
import { UsageError, type CommandContext, type CommandDescriptor } from './command.js';
import { sleep } from '../util/clock.js';

const KINDS = ['mail', 'receipt', 'state', 'wake', 'row', 'resource', 'usage'];

export const eventsCommand: CommandDescriptor = {
  name: 'events',
  summary: 'Stream what happens: mail and receipts, row states with their rule, wakes, rows added and exited, reservations, usage.',
  usage: '[--row ROW] [--kinds mail,receipt,state,wake,row,resource,usage] [--follow]',
  maxArgs: 0,
  flags: [
    { name: 'row', type: 'string', value: 'ROW', description: 'only events about this row' },
    { name: 'kinds', type: 'string', value: 'LIST', description: `comma-separated: ${KINDS.join(', ')} (default all)` },
    { name: 'follow', type: 'boolean', description: 'keep reading across a hub or server restart (reconnects, as tail -F does)' },
  ],
  details:
    'One line per event until interrupted (with --json, one JSON object per line). The operator sees everything; inside a row, only that row\'s events. ' +
    'A reader that falls far behind is dropped by the hub with a last error saying so (the hub never waits for it). ' +
    'Without --follow the stream ends (exit 1) when the hub goes; with it, swb says so on stderr and reconnects with backoff. ' +
    'The hub keeps no log of events: those that happen while no hub runs, or before the reconnect, are not replayed.',
  async run(ctx) {
    const row = ctx.flags.row as string | undefined;
    if (row !== undefined && !isValidHandle(row)) throw new UsageError(`--row ${JSON.stringify(row)}: ${HANDLE_HINT}`);
    const kinds = ((ctx.flags.kinds as string | undefined) ?? '').split(',').map((k) => k.trim()).filter(Boolean);
    const bad = kinds.find((k) => !KINDS.includes(k));
    if (bad) throw new UsageError(`--kinds: ${JSON.stringify(bad)} is not one of ${KINDS.join(', ')}`);
    const follow = ctx.flags.follow === true;
    let interrupted: () => void = () => undefined;
    const stopped = new Promise<'stopped'>((resolve) => {
      interrupted = () => resolve('stopped');
      process.once('SIGINT', interrupted);
      process.once('SIGTERM', interrupted);
    });
    let stop = false;
    void stopped.then(() => (stop = true));
    for (let first = true; ; first = false) {
      const client = first ? await ctx.connect({ autoStart: false }) : await reconnect(ctx, () => stop);
      if (client === null) return 0;
      client.onPush((push) => {
        if (push.method !== 'event') return;
        const e = push.params as Record<string, unknown>;
        if (ctx.json) process.stdout.write(`${JSON.stringify(e)}\n`);
        else process.stdout.write(`${describe(e)}\n`);
      });
      const closed = new Promise<'closed'>((resolve) => client.onClose(() => resolve('closed')));
      const sub = await client.request<{ kinds: string[]; row: string | null }>('events.subscribe', { ...(kinds.length ? { kinds } : {}), ...(row ? { row } : {}) });
      // On stderr, so stdout stays one event per line: the stream is live from here.
      if (first) process.stderr.write(`swb events: watching ${sub.kinds.join(', ')}${sub.row ? ` of ${sub.row}` : ''}\n`);
      else process.stderr.write('swb events: reconnected; watching again (events while the hub was away are not replayed)\n');
      // Until the hub goes away (or drops a reader that fell behind) or the user interrupts.
      if ((await Promise.race([closed, stopped])) === 'stopped') {
        client.close();
        return 0;
      }
      const err = client.closeReason;
      const why = err ? `${err.code}: ${err.message}` : 'the hub closed the connection';
      if (!follow) {
        process.stderr.write(`swb events: ${why}\n`);
        return 1;
      }
      process.stderr.write(`swb events: lost the hub (${why}); reconnecting\n`);
    }
  },
};

const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 5_000;
/** Refusals a retry will not change: the caller is not who it was (a row restarted has a new token). */
const FINAL: ReadonlySet<string> = new Set(['UNAUTHENTICATED', 'SESSION_COLLISION', 'HUB_DENIED']);

/** Connects again, with backoff (doubling up to RECONNECT_MAX_MS), until it does or `stopped()`; null when stopped. */
async function reconnect(ctx: CommandContext, stopped: () => boolean): Promise<HubClient | null> {
  for (let delay = RECONNECT_FIRST_MS; ; delay = Math.min(delay * 2, RECONNECT_MAX_MS)) {
    await sleep(delay);
    if (stopped()) return null;
    try {
      const client = await ctx.connect({ autoStart: false });
      // The first answer proves the hub took us (hello is pipelined ahead of it).
      await client.request('peers.list', {});
      return client;
    } catch (err) {
      if (err instanceof SwbError && FINAL.has(err.code)) throw err;
    }
  }
}

/** One event as a line: time, kind, then its fields (peer strings sanitized). */
function describe(e: Record<string, unknown>): string {
  const clock = (ms: number) => new Date(ms).toISOString().slice(11, 23);
  const at = typeof e.at === 'number' ? clock(e.at) : '';
  // A time beside the event's own (a state's signalAt) reads as one: the gap between them is the point.
  const value = (k: string, v: unknown) => (k.endsWith('At') && typeof v === 'number' && Number.isFinite(v) ? clock(v) : typeof v === 'string' ? v : JSON.stringify(v));
  const fields = Object.entries(e)
    .filter(([k]) => k !== 'kind' && k !== 'at')
    .map(([k, v]) => `${k}=${sanitize(value(k, v), { singleLine: true, maxChars: 120 })}`);
  return `${at} ${String(e.kind).padEnd(7)} ${fields.join(' ')}`;
}
