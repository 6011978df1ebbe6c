// Waiting for a reservation, for `swb run` and `swb resource request`: one request, then long-poll
// rounds (`resource.wait` with the ticket) until it is granted, refused or times out. The hub keeps
// the ticket's place while this client is away for a moment, so a lost connection (a hub restart)
// is answered by connecting again and asking about the same ticket, within the hub's grace.
import { SwbError } from '../protocol/error-codes.js';
import type { TicketView } from '../protocol/resource-name.js';
import type { HubClient } from '../client/hub-client.js';
import type { CommandContext } from './command.js';
import { describeWait } from '../text/format-ticket.js';
import { sleep, systemClock } from '../util/clock.js';

/** One round of waiting; the hub caps it at its maxWaitMs. */
const ROUND_MS = 25_000;
/** How long to keep trying to reach the hub again after the connection was lost (below the hub's grace). */
const RECONNECT_FOR_MS = 8_000;

export interface AcquireOptions {
  resources: string[];
  reason?: string;
  /** The whole wait; absent: the policy's default (none: until granted). */
  waitMs?: number;
  /** Told while waiting (who holds what, since when), once per change. */
  waiting: (line: string) => void;
  /** Told the ticket as soon as the hub made it (to cancel it on an interrupt). */
  onTicket?: (ticket: number) => void;
  /** swb run's gated command: recorded with the request, so the grant finds it held already. */
  gated?: { pid: number; command: string };
}

export async function acquireResources(ctx: CommandContext, opts: AcquireOptions): Promise<TicketView> {
  let client = await ctx.connect();
  const roundTimeout = (c: HubClient) => ({ timeoutMs: ROUND_MS + c.requestTimeoutMs });
  let view = await client.request<TicketView>(
    'resource.request',
    {
      resources: opts.resources,
      ...(opts.reason !== undefined ? { reason: opts.reason } : {}),
      ...(opts.waitMs !== undefined ? { waitMs: opts.waitMs } : {}),
      ...(opts.gated ? { pid: opts.gated.pid, command: opts.gated.command } : {}),
    },
    roundTimeout(client),
  );
  opts.onTicket?.(view.ticket);
  let said = '';
  for (;;) {
    if (view.state === 'granted' || view.state === 'held') return view;
    if (view.state !== 'queued') {
      throw new SwbError('TICKET_STATE', `Ticket ${view.ticket} was ${view.state}${view.why ? `: ${view.why}` : ''}; nothing ran.`, { ticket: view.ticket });
    }
    const line = `waiting for ${view.resources.join(', ')} (ticket ${view.ticket}): ${describeWait(view)}`;
    if (line !== said) opts.waiting((said = line));
    try {
      view = await client.request<TicketView>('resource.wait', { ticket: view.ticket, waitMs: ROUND_MS }, roundTimeout(client));
    } catch (err) {
      if (!(err instanceof SwbError) || (err.code !== 'NO_HUB' && err.code !== 'TIMEOUT')) throw err;
      client = await reconnect(ctx, err);
    }
  }
}

/** Connects again after a lost connection, for a few seconds (a hub restarting), or gives up with the first error. */
export async function reconnect(ctx: CommandContext, first: SwbError): Promise<HubClient> {
  const deadline = systemClock.now() + RECONNECT_FOR_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.connect();
    } catch (err) {
      if (systemClock.now() >= deadline || !(err instanceof SwbError) || err.code !== 'NO_HUB') throw err instanceof SwbError ? err : first;
      await sleep(Math.min(500, 25 * attempt));
    }
  }
}
