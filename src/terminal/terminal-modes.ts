// Puts the operator's terminal into the input modes an attached row's program asked for, and
// back out on detach, so keys, paste and mouse reach the program exactly as they would in a
// bare terminal, and nothing it switched on leaks into the dashboard afterwards.
import type { ActiveModes, MouseEncoding, MouseTracking } from '../rows/mode-tracker.js';

/** The dashboard's own modes: everything off (the dashboard reads plain keys). */
export const DASHBOARD_MODES: ActiveModes = {
  bracketedPaste: false,
  mouseTracking: 'none',
  mouseEncoding: 'default',
  focusReporting: false,
  applicationCursorKeys: false,
  applicationKeypad: false,
  cursorVisible: false,
  alternateScreen: true,
  synchronizedOutput: false,
  kittyKeyboardFlags: 0,
  modifyOtherKeys: 0,
};

/** The dashboard with the mouse on (config `mouse`, default true): clicks and the wheel, SGR-encoded. */
export const DASHBOARD_MOUSE_MODES: ActiveModes = { ...DASHBOARD_MODES, mouseTracking: 'vt200', mouseEncoding: 'sgr' };

const TRACKING: Record<MouseTracking, number | null> = { none: null, x10: 9, vt200: 1000, drag: 1002, any: 1003 };
const ENCODING: Record<MouseEncoding, number | null> = { default: null, utf8: 1005, sgr: 1006, urxvt: 1015, 'sgr-pixels': 1016 };
const dec = (mode: number, on: boolean) => `\x1b[?${mode}${on ? 'h' : 'l'}`;

/** The sequences that take a terminal from modes `from` to modes `to` (input modes only). */
export function modeTransition(from: ActiveModes, to: ActiveModes): string {
  let out = '';
  if (from.bracketedPaste !== to.bracketedPaste) out += dec(2004, to.bracketedPaste);
  if (from.focusReporting !== to.focusReporting) out += dec(1004, to.focusReporting);
  if (from.applicationCursorKeys !== to.applicationCursorKeys) out += dec(1, to.applicationCursorKeys);
  if (from.applicationKeypad !== to.applicationKeypad) out += to.applicationKeypad ? '\x1b=' : '\x1b>';
  if (from.mouseEncoding !== to.mouseEncoding) {
    const off = ENCODING[from.mouseEncoding];
    const on = ENCODING[to.mouseEncoding];
    if (off !== null) out += dec(off, false);
    if (on !== null) out += dec(on, true);
  }
  if (from.mouseTracking !== to.mouseTracking) {
    const off = TRACKING[from.mouseTracking];
    const on = TRACKING[to.mouseTracking];
    if (off !== null) out += dec(off, false);
    if (on !== null) out += dec(on, true);
  }
  if (from.kittyKeyboardFlags !== to.kittyKeyboardFlags) {
    // Set (not push) so that detaching cannot leave a stack entry behind.
    out += `\x1b[=${to.kittyKeyboardFlags};1u`;
  }
  if (from.modifyOtherKeys !== to.modifyOtherKeys) out += `\x1b[>4;${to.modifyOtherKeys}m`;
  return out;
}
