// The config's `notify` section resolved once into what the notifier asks per event: which channels
// take each kind, how the terminal is reached, the body mode, the burst window, quiet hours and the
// command with its timeout. The older `notifications: {bell, desktop}` key maps onto it when no
// `notify` section is given: it rang for new mail, so it becomes mail → terminal ("desktop" lets
// the terminal be detected, "bell" alone is the bell).
import { NOTIFY_EVENT_KINDS, type NotifyEventKind } from '../config/notify-settings.js';
import { NOTIFY_DEFAULTS, type LegacyNotifications, type NotifyBodyMode, type NotifyChannel, type NotifySettings, type TerminalNotifySetting } from '../config/notify-settings.js';
import { minuteOfClockTime, type QuietSpan } from './quiet-hours.js';

export interface NotifyPolicy {
  /** "off": no terminal channel. */
  terminal: TerminalNotifySetting;
  /** The command's argv, or null: no command channel. */
  command: readonly string[] | null;
  /** Per kind, the channels it goes to (only channels that exist). */
  routes: Readonly<Record<NotifyEventKind, ReadonlySet<NotifyChannel>>>;
  body: NotifyBodyMode;
  coalesceMs: number;
  commandTimeoutMs: number;
  quietHours: (QuietSpan & { command: 'silent' | 'send' }) | null;
}

const NONE: ReadonlySet<NotifyChannel> = new Set();

/** Nothing goes anywhere: no `notify` section and no older key. */
export const SILENT_POLICY: NotifyPolicy = {
  terminal: 'off',
  command: null,
  routes: Object.fromEntries(NOTIFY_EVENT_KINDS.map((k) => [k, NONE])) as NotifyPolicy['routes'],
  body: 'none',
  coalesceMs: NOTIFY_DEFAULTS.coalesceMs,
  commandTimeoutMs: NOTIFY_DEFAULTS.commandTimeoutS * 1000,
  quietHours: null,
};

/** The section mapped from `notifications: {bell, desktop}`, or undefined when it rings nothing. */
export function notifySettingsFromLegacy(legacy: LegacyNotifications | undefined): NotifySettings | undefined {
  if (!legacy || (!legacy.bell && !legacy.desktop)) return undefined;
  return { terminal: legacy.desktop ? 'auto' : 'bell', events: { mail: ['terminal'] } };
}

/**
 * The policy for a config. `notify` wins over the older `notifications` key when both are given. The
 * terminal channel is on ("auto") once a `notify` section exists unless it says "off"; the command
 * channel exists when `command` is given. Without `events`, the default kinds go to every channel.
 */
export function resolveNotifyPolicy(notify: NotifySettings | undefined, legacy?: LegacyNotifications): NotifyPolicy {
  const settings = notify ?? notifySettingsFromLegacy(legacy);
  if (!settings) return SILENT_POLICY;
  const terminal = settings.terminal ?? 'auto';
  const command = settings.command && settings.command.length > 0 ? settings.command : null;
  const present = (c: NotifyChannel) => (c === 'terminal' ? terminal !== 'off' : command !== null);
  const channelsOf = (kind: NotifyEventKind): readonly NotifyChannel[] =>
    settings.events ? (settings.events[kind] ?? []) : NOTIFY_DEFAULTS.events.includes(kind) ? ['terminal', 'command'] : [];
  const routes = {} as Record<NotifyEventKind, ReadonlySet<NotifyChannel>>;
  for (const kind of NOTIFY_EVENT_KINDS) routes[kind] = new Set(channelsOf(kind).filter(present));
  const from = settings.quietHours ? minuteOfClockTime(settings.quietHours.from) : null;
  const to = settings.quietHours ? minuteOfClockTime(settings.quietHours.to) : null;
  return {
    terminal,
    command,
    routes,
    body: settings.body ?? 'none',
    coalesceMs: settings.coalesceMs ?? NOTIFY_DEFAULTS.coalesceMs,
    commandTimeoutMs: (settings.commandTimeoutS ?? NOTIFY_DEFAULTS.commandTimeoutS) * 1000,
    quietHours: from !== null && to !== null ? { fromMinute: from, toMinute: to, command: settings.quietHours?.command ?? 'silent' } : null,
  };
}
