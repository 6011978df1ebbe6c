// `swb run --resource NAME[,NAME...] -- CMD [ARG...]` (issue #35): the command admission gate. It
// waits for the grants (saying on stderr who holds what, and since when), and only then lets the
// command run, in a process group of its own with this terminal's stdio; it tells the hub the pid
// (the hub reads the start time and the group from /proc for its launch ledger), passes the
// command's exit status through, and releases once the whole group has exited — not just the
// direct child. INT, TERM and HUP are passed on to the group.
//
// Nothing runs before the ledger has it: the command is started at once behind a one-line gate
// (`sh` waiting on a pipe, so the spawn is off the hand-over's path), and its pid — which `exec`
// keeps, start time included — goes with the request: the hub records it in the launch ledger then,
// and its grant makes the ticket held at once (one commit between a release and the next command,
// and no window in which a policy change could void a grant about to be used). Only a granted
// answer opens the gate; if the wait runs out or swb run dies, the gate reads end-of-file instead and
// the command never starts. (Against a hub that answers `granted`, not `held`, swb run records the
// pid with `resource.launched` before opening the gate.)
//
// Exit status: the command's (128 + the signal's number when a signal ended it); 75 when the wait
// ran out (RESOURCE_WAIT_TIMEOUT, nothing ran); 1 when the hub refused or failed (nothing ran); 2
// for usage; 127 when the command could not be started.
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import type { Writable } from 'node:stream';
import { SwbError } from '../protocol/error-codes.js';
import { MAX_REASON_CHARS, MAX_RESOURCES_PER_REQUEST, RESOURCE_NAME_HINT, isValidResourceName, type TicketView } from '../protocol/resource-name.js';
import { linuxProc } from '../resources/process-evidence.js';
import { shellQuote } from '../util/shell-quote.js';
import { acquireResources, reconnect } from './acquire-resources.js';
import { UsageError, type CommandContext, type CommandDescriptor } from './command.js';
import { sleep } from '../util/clock.js';

export const EXIT_WAIT_TIMEOUT = 75;
const EXIT_NOT_STARTED = 127;
const FORWARDED: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** Waits for the command's process group to empty: first at once, then at growing intervals. */
const GROUP_POLL_MS = [0, 2, 5, 10, 20, 50];
/** The gate: wait for "go" on fd 3, close it, become the command. EOF (swb run gone) runs nothing. */
const GATE_SCRIPT = 'IFS= read -r go <&3 && [ "$go" = go ] || exit 125; exec 3<&-; exec "$@"';

export const runCommand: CommandDescriptor = {
  name: 'run',
  summary: 'Run a command once the resources it needs are reserved for it; release them when its process group has exited.',
  usage: '--resource NAME[,NAME...] [--wait S] [--reason TEXT] -- CMD [ARG...]',
  minArgs: 1,
  json: false,
  flags: [
    { name: 'resource', type: 'string', value: 'NAME[,NAME...]', description: 'resources to reserve, all or none (a name: the handle rule plus `:`, e.g. db, port:3000)', repeatable: true },
    { name: 'wait', type: 'number', value: 'S', description: "give up after S seconds of waiting: exit 75 (RESOURCE_WAIT_TIMEOUT), nothing ran (default: the policy's, else until granted)" },
    { name: 'reason', type: 'string', value: 'TEXT', description: 'why, shown to whoever waits behind you' },
  ],
  details:
    'While it waits it says on stderr who holds each resource and since when. The command runs in a process group of its own with this terminal; ' +
    'INT, TERM and HUP are passed on to that group. Exit status: the command\'s (128+N for signal N); 75 when the wait ran out (nothing ran); ' +
    '1 when the hub refused (nothing ran); 127 when the command could not be started. If swb run itself is killed, the hub releases the resources ' +
    'once the command\'s process and group are gone (pid + start time from /proc).',
  async run(ctx) {
    const resources = resourceFlag(ctx);
    const reason = ctx.flags.reason as string | undefined;
    if (reason !== undefined && reason.length > MAX_REASON_CHARS) throw new UsageError(`--reason is at most ${MAX_REASON_CHARS} characters`);
    const waitS = ctx.flags.wait as number | undefined;
    const say = (line: string) => process.stderr.write(`swb run: ${line}\n`);

    // The gate starts now, while we wait: once granted, only the ledger's round trip and an exec
    // stand between the grant and the command (the spawn is off the hand-over's path).
    const gated = startGated(ctx.args);
    // An interrupt while waiting withdraws the request (so nobody waits behind a ticket nobody wants).
    let ticket: number | null = null;
    let interrupted: NodeJS.Signals | null = null;
    const onWaitSignal = (signal: NodeJS.Signals) => {
      interrupted = signal;
      gated.gate?.end();
      void cancelAndExit(ctx, ticket, signal);
    };
    for (const s of FORWARDED) process.on(s, onWaitSignal);
    let granted;
    try {
      granted = await acquireResources(ctx, {
        resources,
        ...(reason !== undefined ? { reason } : {}),
        ...(waitS !== undefined ? { waitMs: Math.round(waitS * 1000) } : {}),
        waiting: say,
        ...(gated.child.pid !== undefined ? { gated: { pid: gated.child.pid, command: ctx.args.map(shellQuote).join(' ') } } : {}),
        onTicket: (t) => {
          ticket = t;
          if (interrupted) void cancelAndExit(ctx, t, interrupted);
        },
      });
    } catch (err) {
      // Nothing runs: the gate reads end-of-file and exits.
      gated.gate?.end();
      if (err instanceof SwbError && err.code === 'RESOURCE_WAIT_TIMEOUT') {
        say(`RESOURCE_WAIT_TIMEOUT: ${err.message}`);
        return EXIT_WAIT_TIMEOUT;
      }
      throw err;
    } finally {
      for (const s of FORWARDED) process.off(s, onWaitSignal);
    }
    return runGranted(ctx, granted, gated, ctx.args, say);
  },
};

interface Gated {
  child: ChildProcess;
  /** Writing "go" lets the command run; closing it unopened ends the gate with nothing run. */
  gate: Writable | null;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  spawnError: Promise<Error>;
}

/** The command behind its gate, in a process group (and session) of its own, with this terminal's stdio. */
function startGated(argv: string[]): Gated {
  const child = spawn('/bin/sh', ['-c', GATE_SCRIPT, 'swb-run', ...argv], { stdio: ['inherit', 'inherit', 'inherit', 'pipe'], detached: true });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
  const gate = (child.stdio[3] as Writable | null) ?? null;
  gate?.on('error', () => undefined);
  return { child, gate, exited, spawnError };
}

function resourceFlag(ctx: CommandContext): string[] {
  const raw = (ctx.flags.resource as string[] | undefined) ?? [];
  const names = raw.flatMap((r) => r.split(',')).map((r) => r.trim()).filter(Boolean);
  if (names.length === 0) throw new UsageError('--resource NAME is required');
  if (names.length > MAX_RESOURCES_PER_REQUEST) throw new UsageError(`at most ${MAX_RESOURCES_PER_REQUEST} resources at once`);
  const bad = names.find((n) => !isValidResourceName(n));
  if (bad !== undefined) throw new UsageError(`--resource ${JSON.stringify(bad)}: ${RESOURCE_NAME_HINT}`);
  return names;
}

async function cancelAndExit(ctx: CommandContext, ticket: number | null, signal: NodeJS.Signals): Promise<void> {
  if (ticket !== null) {
    try {
      const client = await ctx.connect({ autoStart: false });
      await client.request('resource.cancel', { ticket });
    } catch {
      // the hub drops it after its grace anyway
    }
  }
  process.exit(128 + (constants.signals[signal] ?? 0));
}

/** Records the gated command, opens the gate, waits for the group, releases. */
async function runGranted(ctx: CommandContext, granted: TicketView, gated: Gated, argv: string[], say: (line: string) => void): Promise<number> {
  const ticket = granted.ticket;
  const { child, exited, spawnError } = gated;
  if (child.pid === undefined || gated.gate === null) {
    say(`${argv[0]} could not be started: ${(await spawnError).message}`);
    await release(ctx, ticket, say);
    return EXIT_NOT_STARTED;
  }
  const pgid = child.pid;
  const gate = gated.gate;
  const forward = (signal: NodeJS.Signals) => signalGroup(pgid, signal);
  for (const s of FORWARDED) process.on(s, forward);
  try {
    try {
      // Recorded with the request already (held from its grant on); else tell the hub now.
      if (granted.state !== 'held') {
        const client = await ctx.connect();
        await client.request('resource.launched', { ticket, pid: child.pid, command: argv.map(shellQuote).join(' ') });
      }
    } catch (err) {
      // Not recorded: close the gate (the command never starts) and say why.
      gate.end();
      await exited;
      await release(ctx, ticket, say);
      throw err;
    }
    gate.end('go\n');
    const end = await exited;
    await groupGone(pgid);
    await release(ctx, ticket, say);
    if (end.code === 125 && end.signal === null && !gateOpened(child)) return EXIT_NOT_STARTED;
    return end.code ?? 128 + (constants.signals[end.signal!] ?? 0);
  } finally {
    for (const s of FORWARDED) process.off(s, forward);
  }
}

function gateOpened(child: ChildProcess): boolean {
  return child.stdio[3] !== null && (child.stdio[3] as Writable).writableFinished;
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // the group is gone already
  }
}

/** Resolves once no live process is left in the group (its helpers included). */
async function groupGone(pgid: number): Promise<void> {
  for (let i = 0; linuxProc.groupMembers(pgid).length > 0; i++) {
    await sleep(GROUP_POLL_MS[Math.min(i, GROUP_POLL_MS.length - 1)]!);
  }
}

async function release(ctx: CommandContext, ticket: number, say: (line: string) => void): Promise<void> {
  try {
    let client;
    try {
      client = await ctx.connect();
    } catch (err) {
      if (!(err instanceof SwbError)) throw err;
      client = await reconnect(ctx, err);
    }
    await client.request('resource.release', { ticket });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    say(`ticket ${ticket} could not be released (${why}); the hub releases it once it sees the command's processes gone.`);
  }
}
