// The few terminal control sequences Switchboard itself writes to the operator's terminal.
export const CSI = '\x1b[';
export const SGR_RESET = '\x1b[0m';
export const ERASE_LINE_RIGHT = '\x1b[K';
export const CLEAR_SCREEN = '\x1b[H\x1b[2J';
export const HIDE_CURSOR = '\x1b[?25l';
export const SHOW_CURSOR = '\x1b[?25h';
export const ALT_SCREEN_ON = '\x1b[?1049h';
export const ALT_SCREEN_OFF = '\x1b[?1049l';
/** Synchronized output (DECSET 2026): the terminal shows the frame at once, no tearing. */
export const BEGIN_SYNC = '\x1b[?2026h';
export const END_SYNC = '\x1b[?2026l';

export function moveTo(row0: number, col0: number): string {
  return `${CSI}${row0 + 1};${col0 + 1}H`;
}
