// Text the operator pastes into a row (the paste buffer, `p` on the dashboard) goes to the program as
// text and never as terminal control: whatever a buffer holds — a row's history, its lines sanitized
// once already — is cleaned again here, keeping its line breaks and nothing else that is not text.
// Then it is sent as a terminal sends a paste: line breaks as CR (the Enter key), and wrapped in the
// bracketed-paste markers when the program asked for them (DECSET 2004), so it can tell a paste from
// typing. Without ESC in the text, nothing inside can end the bracket early.
import { sanitize } from './sanitize.js';

/** The most a paste buffer holds (UTF-16 code units); more is cut, with sanitize's marker. */
export const MAX_PASTE_CHARS = 256 * 1024;

/** The buffer's text: plain lines (tabs as spaces), no escapes, no control characters. */
export function pasteText(text: string): string {
  return sanitize(text.replace(/\r\n?/g, '\n'), { placeholder: 'strip', maxChars: MAX_PASTE_CHARS, maxLines: MAX_PASTE_CHARS });
}

/** The bytes that paste `text` into a program: CR line breaks, bracketed when it asked for that. */
export function pasteBytes(text: string, bracketed: boolean): string {
  const body = pasteText(text).replace(/\n/g, '\r');
  return bracketed ? `\x1b[200~${body}\x1b[201~` : body;
}
