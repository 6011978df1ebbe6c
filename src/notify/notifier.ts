// The notifier: events in, notifications out, through the channels the policy routes each kind to.
// Per channel and per row + kind a burst becomes one notification (BurstCoalescer); a muted row and
// quiet hours are asked at the moment a notification would go out, so a burst held across the
// start of quiet hours, or a row muted meanwhile, stays silent. The terminal channel hands a
// TerminalNotice to its writer (the server renders it per client with terminalNotificationBytes,
// each client's terminal being its own kind); the command channel runs notify.command without
// waiting. notify() never throws and never blocks: it is called from the places events happen.
import { systemClock, type Clock } from '../util/clock.js';
import type { Disposable } from '../util/lifecycle.js';
import { BurstCoalescer } from './burst-coalescer.js';
import { CommandChannel, type NotifyCommandRunner } from './command-channel.js';
import type { NotifyEvent } from './notify-event.js';
import type { NotifyPolicy } from './notify-policy.js';
import type { NotifyChannel } from '../config/notify-settings.js';
import { notificationPayload } from './notification-payload.js';
import { notificationText } from './notification-text.js';
import { isQuietMinute, localMinuteOfDay } from './quiet-hours.js';
import type { TerminalNotice } from './terminal-sequences.js';

export interface NotifierOptions {
  policy: NotifyPolicy;
  /** Where terminal notifications go (every attached client's terminal); absent: none are made. */
  writeTerminal?: (notice: TerminalNotice) => void;
  /** Runs notify.command; made from the policy (a CommandChannel) when absent and a command is configured. */
  commands?: NotifyCommandRunner;
  /** Failures (a command that failed or timed out), one line each. */
  log?: (line: string) => void;
  clock?: Clock;
  /** Local minute of the day at a clock time (default: the system's time zone). */
  minuteOfDay?: (ms: number) => number;
  /** The environment a command's few variables come from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** Why a notification did not go out on a channel (for `swb notify test` and explain-like views). */
export type HeldBecause = 'not-routed' | 'muted' | 'quiet-hours';

/** The id of an event's terminal notice: one per row and kind, so kitty shows a burst in one place. */
export const terminalNoticeId = (event: NotifyEvent): string => `swb-${event.kind}-${event.row}`;

export class Notifier implements Disposable {
  private readonly clock: Clock;
  private readonly minuteOfDay: (ms: number) => number;
  private readonly mutedRows = new Set<string>();
  private readonly commands: NotifyCommandRunner | null;
  private readonly ownChannel: CommandChannel | null;
  private readonly bursts: Record<NotifyChannel, BurstCoalescer<NotifyEvent>>;
  private readonly log: (line: string) => void;

  constructor(private readonly o: NotifierOptions) {
    this.clock = o.clock ?? systemClock;
    this.minuteOfDay = o.minuteOfDay ?? localMinuteOfDay;
    const log = (this.log = o.log ?? (() => undefined));
    this.ownChannel =
      !o.commands && o.policy.command
        ? new CommandChannel({ argv: o.policy.command, timeoutMs: o.policy.commandTimeoutMs, log, clock: this.clock, ...(o.env ? { env: o.env } : {}) })
        : null;
    this.commands = o.commands ?? this.ownChannel;
    const window = () => o.policy.coalesceMs;
    this.bursts = {
      terminal: new BurstCoalescer(window, (e, n) => this.deliver('terminal', e, n), this.clock),
      command: new BurstCoalescer(window, (e, n) => this.deliver('command', e, n), this.clock),
    };
  }

  /** The command channel this notifier made (its onFinished, idle()), or null (none configured, or one given). */
  get commandChannel(): CommandChannel | null {
    return this.ownChannel;
  }

  notify(event: NotifyEvent): void {
    for (const channel of this.o.policy.routes[event.kind]) {
      if (this.heldBecause(channel, event.row) === null) this.bursts[channel].offer(`${event.row}\n${event.kind}`, event);
    }
  }

  /** Why `channel` would not notify about `row` now, or null when it would. */
  heldBecause(channel: NotifyChannel, row: string, kind?: NotifyEvent['kind']): HeldBecause | null {
    if (kind !== undefined && !this.o.policy.routes[kind].has(channel)) return 'not-routed';
    if (this.mutedRows.has(row)) return 'muted';
    const quiet = this.o.policy.quietHours;
    if (quiet && (channel === 'terminal' || quiet.command === 'silent') && isQuietMinute(quiet, this.minuteOfDay(this.clock.now()))) return 'quiet-hours';
    return null;
  }

  /** Silences one row (its held notifications are dropped too) until unmute(). */
  mute(row: string): void {
    this.mutedRows.add(row);
    for (const b of Object.values(this.bursts)) b.forget((key) => key.startsWith(`${row}\n`));
  }

  unmute(row: string): void {
    this.mutedRows.delete(row);
  }

  muted(row: string): boolean {
    return this.mutedRows.has(row);
  }

  private deliver(channel: NotifyChannel, event: NotifyEvent, count: number): void {
    if (this.heldBecause(channel, event.row) !== null) return;
    const body = this.o.policy.body;
    try {
      if (channel === 'terminal') this.o.writeTerminal?.({ id: terminalNoticeId(event), text: notificationText(event, { body, count }) });
      else this.commands?.run(notificationPayload(event, { body, count }));
    } catch (err) {
      // A writer that failed (a client gone mid-write) must not fail the place the event came from.
      this.log(`notify ${channel}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  dispose(): void {
    this.bursts.terminal.dispose();
    this.bursts.command.dispose();
    // A runner given from outside belongs to its giver.
    this.ownChannel?.dispose();
  }
}
