// The bell and desktop notification for new mail and delivery problems (config
// `notifications: {bell, desktop}`): BEL, and/or OSC 9 (iTerm2, WezTerm, Windows Terminal) plus
// OSC 777 (urxvt, foot, Ghostty, VTE) carrying one sanitized line. A burst rings once: at most one ring
// per `minIntervalMs`, the newest text winning.
// The older form of what src/notify/ does for every event: its sequences and its burst rule are
// src/notify's (terminal-sequences.ts, burst-coalescer.ts), and the config key maps onto the
// `notify` section there (notifySettingsFromLegacy). It stays until the server hands the dashboard's
// mail and problems to the Notifier (issue #37, phase 2); its bytes are kept as they were (both
// sequences at once, whatever the terminal), since configs rely on them.
import { BurstCoalescer } from '../notify/burst-coalescer.js';
import { NOTIFICATION_TITLE } from '../notify/notification-text.js';
import { osc777Sequence, osc9Sequence } from '../notify/terminal-sequences.js';
import { sanitize } from '../text/sanitize.js';
import { systemClock, type Clock } from '../util/clock.js';
import { toDisposable } from '../util/lifecycle.js';

export interface RingConfig {
  bell?: boolean;
  desktop?: boolean;
}

export const RING_INTERVAL_MS = 2000;

/** The bytes to write for one ring ('' when neither is configured). */
export function ringSequence(config: RingConfig, text: string): string {
  let out = '';
  if (config.desktop) {
    // Single line, no control characters, and never starting with a digit: ConEmu reads "OSC 9;<n>;" as a command.
    const body = `${NOTIFICATION_TITLE}: ${sanitize(text, { singleLine: true, placeholder: 'strip', maxChars: 200 })}`;
    out += osc9Sequence(body) + osc777Sequence(NOTIFICATION_TITLE, body);
  }
  if (config.bell) out += '\x07';
  return out;
}

/**
 * A `ring` callback for the dashboard controller, or undefined when nothing is configured. `write` gets
 * the sequences (the dashboard writes them to the real terminal between frames).
 */
export function createRinger(
  config: RingConfig | undefined,
  write: (sequence: string) => void,
  opts: { minIntervalMs?: number; now?: () => number; setTimer?: (fn: () => void, ms: number) => unknown } = {},
): ((text: string) => void) | undefined {
  if (!config || (!config.bell && !config.desktop)) return undefined;
  const minInterval = opts.minIntervalMs ?? RING_INTERVAL_MS;
  // The caller's own time, as a Clock (its timers cannot be cancelled; the ringer never needs to).
  const given = opts.setTimer;
  const clock: Clock = {
    now: opts.now ?? systemClock.now,
    setTimer: given
      ? (fn, ms) => {
          given(fn, ms);
          return toDisposable(() => undefined);
        }
      : systemClock.setTimer,
  };
  const bursts = new BurstCoalescer<string>(() => minInterval, (text) => write(ringSequence(config, text)), clock);
  return (text: string) => bursts.offer('ring', text);
}
