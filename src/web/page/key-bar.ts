// The phone's on-screen keys, for what a phone keyboard lacks: Esc, Tab, Ctrl-C, the arrows and
// Enter. Each button sends its terminal bytes to the attached row; the arrows follow the row's
// cursor-key mode (application mode sends ESC O, as a real terminal's keys would).
import type { Terminal } from '@xterm/xterm';

const KEYS: ReadonlyArray<{ label: string; title: string; bytes: (appCursor: boolean) => string }> = [
  { label: 'Esc', title: 'Escape', bytes: () => '\x1b' },
  { label: 'Tab', title: 'Tab', bytes: () => '\t' },
  { label: '^C', title: 'Ctrl-C', bytes: () => '\x03' },
  { label: '←', title: 'Left', bytes: (a) => (a ? '\x1bOD' : '\x1b[D') },
  { label: '↑', title: 'Up', bytes: (a) => (a ? '\x1bOA' : '\x1b[A') },
  { label: '↓', title: 'Down', bytes: (a) => (a ? '\x1bOB' : '\x1b[B') },
  { label: '→', title: 'Right', bytes: (a) => (a ? '\x1bOC' : '\x1b[C') },
  { label: '⏎', title: 'Enter', bytes: () => '\r' },
];

export function keyBar(send: (bytes: string) => void, terminal: () => Terminal | null): HTMLElement {
  const bar = document.createElement('div');
  bar.className = 'key-bar';
  for (const key of KEYS) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = key.label;
    button.title = key.title;
    button.setAttribute('aria-label', key.title);
    // Keep the terminal's focus (and the phone's keyboard) where it is.
    button.addEventListener('mousedown', (e) => e.preventDefault());
    button.addEventListener('click', () => send(key.bytes(terminal()?.modes.applicationCursorKeysMode ?? false)));
    bar.append(button);
  }
  return bar;
}
