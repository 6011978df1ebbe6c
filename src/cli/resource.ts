// `swb resource` (issue #35): reservations by hand. `status` shows each resource's policy, holders
// (with the process recorded for them, or why they are uncertain) and queue; `request` waits for a
// grant and keeps it after exiting (release it when done); `release`, `cancel`, `grant` and
// `policy` act on tickets and policies with the caller's own authority (a row: its own tickets;
// the operator or a resource's controller: any of that resource's, and its policy).
import { HANDLE_HINT, isValidHandle } from '../protocol/handle.js';
import {
  MAX_CAPACITY,
  MAX_REASON_CHARS,
  MAX_RESOURCES_PER_REQUEST,
  RESOURCE_NAME_HINT,
  isValidResourceName,
  type ResourceStatus,
  type TicketView,
} from '../protocol/resource-name.js';
import { acquireResources } from './acquire-resources.js';
import { UsageError, type CommandContext, type CommandDescriptor } from './command.js';
import { formatStatus, formatTicket } from '../text/format-ticket.js';

const USAGE =
  'status [NAME] | request NAME[,NAME...] [--wait S] [--reason T] | release TICKET [--force] | cancel TICKET | ' +
  'policy NAME [--capacity N] [--controller HANDLE|none] [--wait S|none] | grant TICKET';

export const resourceCommand: CommandDescriptor = {
  name: 'resource',
  summary: 'Reservations between agents: status, request, release, cancel, policy, grant.',
  usage: USAGE,
  minArgs: 1,
  flags: [
    { name: 'wait', type: 'string', value: 'S', description: 'request: give up after S seconds (RESOURCE_WAIT_TIMEOUT); policy: the default wait (none: until granted)' },
    { name: 'reason', type: 'string', value: 'TEXT', description: 'request: why (shown to whoever waits)' },
    { name: 'force', type: 'boolean', description: "release: anyone's ticket, or an uncertain one (operator or controller only)" },
    { name: 'capacity', type: 'number', value: 'N', description: `policy: how many may hold it at once (1-${MAX_CAPACITY})` },
    { name: 'controller', type: 'string', value: 'HANDLE', description: 'policy: the row that grants by hand (none: the hub grants in order)' },
  ],
  details:
    'A request that is granted stays granted after swb exits: release it when done (swb run releases by itself). A resource with a controller is ' +
    'granted only by hand (grant); a policy change voids grants not yet in use (STALE_POLICY). An uncertain holder (it went away with no process ' +
    'recorded) keeps the resource until the operator or the controller runs release --force.',
  async run(ctx) {
    const [sub, ...rest] = ctx.args;
    switch (sub) {
      case 'status':
        return status(ctx, rest);
      case 'request':
        return request(ctx, rest);
      case 'release':
        return ticketOp(ctx, rest, 'resource.release', ctx.flags.force === true ? { force: true } : {});
      case 'cancel':
        return ticketOp(ctx, rest, 'resource.cancel', {});
      case 'grant':
        return ticketOp(ctx, rest, 'resource.grant', {});
      case 'policy':
        return policy(ctx, rest);
      default:
        throw new UsageError(`unknown subcommand ${JSON.stringify(sub)}; expected ${USAGE}`);
    }
  },
};

function names(args: string[]): string[] {
  const list = args.flatMap((a) => a.split(',')).map((a) => a.trim()).filter(Boolean);
  if (list.length === 0) throw new UsageError('name a resource');
  if (list.length > MAX_RESOURCES_PER_REQUEST) throw new UsageError(`at most ${MAX_RESOURCES_PER_REQUEST} resources at once`);
  const bad = list.find((n) => !isValidResourceName(n));
  if (bad !== undefined) throw new UsageError(`${JSON.stringify(bad)}: ${RESOURCE_NAME_HINT}`);
  return list;
}

function ticketArg(args: string[]): number {
  if (args.length !== 1) throw new UsageError('name one TICKET (a number)');
  const n = Number(args[0]);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`TICKET is a number, not ${JSON.stringify(args[0])}`);
  return n;
}

/** `--wait S` as ms; `none` (where allowed) as null. */
function waitFlag(ctx: CommandContext, noneAllowed: boolean): number | null | undefined {
  const raw = ctx.flags.wait as string | undefined;
  if (raw === undefined) return undefined;
  if (noneAllowed && raw === 'none') return null;
  const s = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(s) || s < 0 || s > 86_400) throw new UsageError(`--wait takes seconds (0-86400)${noneAllowed ? ' or none' : ''}, not ${JSON.stringify(raw)}`);
  return Math.round(s * 1000);
}

async function status(ctx: CommandContext, args: string[]): Promise<number> {
  if (args.length > 1) throw new UsageError('status takes at most one NAME');
  const name = args[0];
  if (name !== undefined && !isValidResourceName(name)) throw new UsageError(`${JSON.stringify(name)}: ${RESOURCE_NAME_HINT}`);
  const client = await ctx.connect();
  const r = await client.request<{ resources: ResourceStatus[] }>('resource.status', name !== undefined ? { name } : {});
  ctx.result(r);
  if (r.resources.length === 0) ctx.print('No resources are reserved or have a policy.');
  for (const s of r.resources) for (const line of formatStatus(s)) ctx.print(line);
  return 0;
}

async function request(ctx: CommandContext, args: string[]): Promise<number> {
  const resources = names(args);
  const reason = ctx.flags.reason as string | undefined;
  if (reason !== undefined && reason.length > MAX_REASON_CHARS) throw new UsageError(`--reason is at most ${MAX_REASON_CHARS} characters`);
  const waitMs = waitFlag(ctx, false) ?? undefined;
  const view = await acquireResources(ctx, {
    resources,
    ...(reason !== undefined ? { reason } : {}),
    ...(waitMs !== undefined ? { waitMs } : {}),
    waiting: (line) => process.stderr.write(`swb resource: ${line}\n`),
  });
  ctx.result(view);
  ctx.print(`granted ticket ${view.ticket}: ${view.resources.join(', ')} (release it with: swb resource release ${view.ticket})`);
  return 0;
}

async function ticketOp(ctx: CommandContext, args: string[], method: string, extra: Record<string, unknown>): Promise<number> {
  const ticket = ticketArg(args);
  const client = await ctx.connect();
  const view = await client.request<TicketView>(method, { ticket, ...extra });
  ctx.result(view);
  ctx.print(formatTicket(view));
  return 0;
}

async function policy(ctx: CommandContext, args: string[]): Promise<number> {
  if (args.length !== 1) throw new UsageError('policy takes one NAME');
  const name = args[0]!;
  if (!isValidResourceName(name)) throw new UsageError(`${JSON.stringify(name)}: ${RESOURCE_NAME_HINT}`);
  const params: Record<string, unknown> = { name };
  const capacity = ctx.flags.capacity as number | undefined;
  if (capacity !== undefined) {
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > MAX_CAPACITY) throw new UsageError(`--capacity is a whole number 1-${MAX_CAPACITY}`);
    params.capacity = capacity;
  }
  const controller = ctx.flags.controller as string | undefined;
  if (controller !== undefined) {
    if (controller !== 'none' && !isValidHandle(controller)) throw new UsageError(`--controller ${JSON.stringify(controller)}: ${HANDLE_HINT} (or none)`);
    params.controller = controller === 'none' ? null : controller;
  }
  const wait = waitFlag(ctx, true);
  if (wait !== undefined) params.waitMs = wait;
  const client = await ctx.connect();
  const s = await client.request<ResourceStatus>('resource.policy', params);
  ctx.result(s);
  for (const line of formatStatus(s)) ctx.print(line);
  return 0;
}

