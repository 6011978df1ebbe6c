// The paste buffer as one client uses it: `y` in a row's history view fills the server's buffer,
// `p` on the dashboard pastes it into the focused row (as a terminal pastes: bracketed when the
// program asked for it; text only, never control sequences: paste-text.ts), and the buffer's text is
// mirrored into this client's store so its composer can paste it too (Ctrl-Y). A paste is the
// operator typing into that row: its wake holds off as for any key.
import type { Row } from '../rows/row.js';
import { pasteBytes } from '../text/paste-text.js';
import type { Event } from '../util/event.js';
import type { Disposable } from '../util/lifecycle.js';
import type { NoteKind } from './app-state.js';
import type { AppStore } from './app-store.js';

/** The server's paste buffer (src/server/paste-buffer.ts), as a client sees it. */
export interface PasteBufferPort {
  readonly text: string | null;
  set(text: string): void;
  readonly onChange: Event<string | null>;
}

/** The row a paste goes to: its program's input and whether it asked for bracketed paste. */
export interface PasteTarget {
  readonly running: boolean;
  readonly bracketedPaste: boolean;
  write(bytes: string): void;
}

/** The rows' side of a paste: the named row's program, and whether it asked for bracketed paste. */
export function pasteTargetIn(rows: { get(name: string): Row | undefined }): (name: string) => PasteTarget | undefined {
  return (name) => {
    const row = rows.get(name);
    return row && { running: row.state === 'running', bracketedPaste: row.screen.activeModes.bracketedPaste, write: (b: string) => row.write(b) };
  };
}

export interface PasteControllerOptions {
  store: AppStore;
  buffer: PasteBufferPort;
  target: (row: string) => PasteTarget | undefined;
  operatorTyped: (row: string) => void;
  note: (kind: NoteKind, text: string, row: string | null) => void;
  /** The key that pastes, for the words that say so ("p"). */
  pasteKey: string;
}

const lineCount = (text: string) => text.split('\n').length;
const lines = (n: number) => `${n} line${n === 1 ? '' : 's'}`;

export class PasteController implements Disposable {
  private readonly subscription: Disposable;

  constructor(private readonly o: PasteControllerOptions) {
    o.store.setPasteBuffer(o.buffer.text);
    this.subscription = o.buffer.onChange((text) => o.store.setPasteBuffer(text));
  }

  /** The history view's y: the copied lines become the buffer. Words for the copy's news. */
  keep(text: string): string {
    this.o.buffer.set(text);
    return `in the paste buffer: ${this.o.pasteKey} pastes it into a row`;
  }

  /** `p` on the dashboard: the buffer into the focused row. */
  pasteInto(row: string | null): void {
    const text = this.o.buffer.text;
    if (text === null) return this.o.note('info', 'the paste buffer is empty: y in a row’s history view fills it', row);
    const target = row === null ? undefined : this.o.target(row);
    if (row === null || !target) return this.o.note('info', 'no row to paste into', null);
    if (!target.running) return this.o.note('info', `@${row} has exited: nothing to paste into`, row);
    this.o.operatorTyped(row);
    target.write(pasteBytes(text, target.bracketedPaste));
    this.o.note('info', `pasted ${lines(lineCount(text))} into @${row}${target.bracketedPaste ? ' (bracketed paste)' : ''}`, row);
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
