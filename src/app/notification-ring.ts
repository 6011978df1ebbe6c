// The bell and desktop notification for new mail and delivery problems (config
// `notifications: {bell, desktop}`): BEL, and/or OSC 9 (iTerm2, WezTerm, kitty, Windows Terminal) plus
// OSC 777 (urxvt, foot, Ghostty, VTE) carrying one sanitized line. A burst rings once: at most one ring
// per `minIntervalMs`, the newest text winning.
import { sanitize } from '../text/sanitize.js';

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
    const body = `Switchboard: ${sanitize(text, { singleLine: true, placeholder: 'strip', maxChars: 200 })}`;
    out += `\x1b]9;${body}\x07\x1b]777;notify;Switchboard;${body}\x07`;
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
  const now = opts.now ?? Date.now;
  const setTimer =
    opts.setTimer ??
    ((fn: () => void, ms: number) => {
      const t = setTimeout(fn, ms);
      t.unref();
      return t;
    });
  let last = -Infinity;
  let pending: string | null = null;
  const fire = (text: string) => {
    last = now();
    write(ringSequence(config, text));
  };
  return (text: string) => {
    const wait = last + minInterval - now();
    if (wait <= 0) return fire(text);
    const scheduled = pending !== null;
    pending = text;
    if (!scheduled) {
      setTimer(() => {
        const t = pending;
        pending = null;
        if (t !== null) fire(t);
      }, wait);
    }
  };
}
