// Driving Ink components in tests: keys as the bytes a terminal sends, frames without colours, and
// turns of the event loop; conditions are waited on with test/helpers/wait-until.ts, never a sleep.
import { loadTheme, type Theme } from '../../../src/config/theme.js';

export const KEYS = {
  enter: '\r',
  escape: '\x1b',
  tab: '\t',
  shiftTab: '\x1b[Z',
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  pageUp: '\x1b[5~',
  pageDown: '\x1b[6~',
  backspace: '\x7f',
} as const;

export function darkTheme(): Theme {
  const t = loadTheme('dark', { env: {} });
  if (!t.ok) throw new Error(t.error.message);
  return t.theme;
}

// eslint-disable-next-line no-control-regex
const SGR = /\x1b\[[0-9;]*m/g;

export function plain(frame: string | undefined): string {
  return (frame ?? '').replace(SGR, '');
}

/** A few turns of the event loop: effects run (useInput subscribes in one) and Ink flushes a lone ESC. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
}

/** Writes keys one event at a time, letting Ink handle each. */
export async function press(stdin: { write: (s: string) => void }, ...keys: string[]): Promise<void> {
  for (const k of keys) {
    stdin.write(k);
    await settle();
  }
}
