// The bytes that put a notification on the operator's own terminal, as pure functions: written by
// the server to each attached client's terminal between frames (so they cross SSH like any output).
//   OSC 9   ESC ] 9 ; text BEL                                iTerm2, WezTerm, Windows Terminal
//   OSC 777 ESC ] 777 ; notify ; title ; body BEL             urxvt's notify extension, Ghostty, foot
//   OSC 99  ESC ] 99 ; i=ID:d=0 ; title ST, then ...:p=body   kitty's desktop notification protocol
//   BEL     the bell, where none of them is known to work
// Every text goes in as one line with no control characters (nothing in it can end the sequence
// early or start another), bounded, and an OSC 9 text never starts with a digit: ConEmu reads
// "OSC 9 ; <n>" as one of its own commands.
import { sanitize } from '../text/sanitize.js';
import type { TerminalNotifyKind } from '../config/notify-settings.js';
import { NOTIFICATION_TEXT_MAX, NOTIFICATION_TITLE } from './notification-text.js';

const BEL = '\x07';
const ST = '\x1b\\';

/** One terminal-safe line: no control characters (C0, C1, DEL, escapes), bounded, never a leading digit. */
export function terminalSafeLine(text: string, maxChars = NOTIFICATION_TEXT_MAX): string {
  const line = sanitize(text, { singleLine: true, placeholder: 'strip', maxChars }).trim();
  return /^\d/.test(line) ? `${NOTIFICATION_TITLE}: ${line}` : line;
}

export const osc9Sequence = (line: string): string => `\x1b]9;${line}${BEL}`;

/** The title ends at the first ";", so a title never holds one. */
export const osc777Sequence = (title: string, body: string): string => `\x1b]777;notify;${title.replaceAll(';', ',')};${body}${BEL}`;

/**
 * kitty: the title, then the body under the same id (d=0: more follows; d=1: done). A later
 * notification with the same id replaces this one, so one id per row and kind keeps a burst in one
 * place. Ids may hold only [A-Za-z0-9-_+.].
 */
export function osc99Sequence(id: string, title: string, body: string): string {
  const safeId = id.replace(/[^A-Za-z0-9_+.-]/g, '_').slice(0, 64) || 'swb';
  return `\x1b]99;i=${safeId}:d=0;${title}${ST}\x1b]99;i=${safeId}:d=1:p=body;${body}${ST}`;
}

/** A notification for a terminal: one line of text, and the id that groups repeats (kitty). */
export interface TerminalNotice {
  id: string;
  text: string;
}

/** The bytes of `notice` for a terminal of `kind`. */
export function terminalNotificationBytes(kind: TerminalNotifyKind, notice: TerminalNotice): string {
  // The title leads OSC 9's one text, so it never starts with a digit.
  if (kind === 'osc9') return osc9Sequence(terminalSafeLine(`${NOTIFICATION_TITLE}: ${notice.text}`, NOTIFICATION_TITLE.length + 2 + NOTIFICATION_TEXT_MAX));
  const text = terminalSafeLine(notice.text);
  switch (kind) {
    case 'osc777':
      return osc777Sequence(NOTIFICATION_TITLE, text);
    case 'osc99':
      return osc99Sequence(notice.id, NOTIFICATION_TITLE, text);
    case 'bell':
      return BEL;
  }
}
