// The row this page types into, if any: its terminal takes the keys (xterm.js onData — typed keys,
// a paste, Ctrl-C, Esc — sent as `input`), and its shown size is offered to the server (`attach`
// with cols/rows, `resize` after), which applies it only while this page's keys came last (the
// fleet's rule for every client). A read-only page never attaches: the server would refuse it.
import type { Connection } from './connection.js';
import type { RowsModel } from './rows-model.js';

/** Chars of keys or paste per frame. */
const INPUT_PIECE = 8192;

export class Attachment {
  private name: string | null = null;
  private typing: { dispose(): void } | null = null;
  private sentSize = '';
  private readonly listeners = new Set<(name: string | null) => void>();

  constructor(
    private readonly connection: Connection,
    private readonly model: RowsModel,
    private readonly readOnly: () => boolean,
  ) {
    window.addEventListener('resize', () => this.offerSize());
  }

  get attached(): string | null {
    return this.name;
  }

  onChange(fn: (name: string | null) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  attach(name: string): void {
    if (this.readOnly() || this.name === name) return;
    this.detach();
    this.name = name;
    const term = this.model.term(name);
    this.typing = term.terminal.onData((data) => this.input(data));
    // Ctrl-] lets go (the key no program needs; Esc and Ctrl-C are the row's).
    term.terminal.attachCustomKeyEventHandler((e) => {
      if (e.type === 'keydown' && e.ctrlKey && e.key === ']') {
        this.detach();
        return false;
      }
      return true;
    });
    term.setTyping(true);
    this.listeners.forEach((fn) => fn(name));
    this.tell();
  }

  detach(): void {
    const was = this.name;
    if (was === null) return;
    this.name = null;
    this.typing?.dispose();
    this.typing = null;
    this.sentSize = '';
    if (this.model.hasTerm(was)) this.model.term(was).setTyping(false);
    this.connection.send({ t: 'attach', name: null });
    this.listeners.forEach((fn) => fn(null));
  }

  /** Keys (or a key bar's sequence) for the attached row. */
  input(data: string): void {
    if (this.name === null) return;
    // A long paste goes in pieces: the server bounds a frame (64 KiB), and JSON may grow a char to 6 bytes.
    for (let i = 0; i < data.length; i += INPUT_PIECE) this.connection.send({ t: 'input', name: this.name, data: data.slice(i, i + INPUT_PIECE) });
  }

  /** A fresh socket, or the attached row's box changed: the server hears the attachment and its size again. */
  tell(): void {
    if (this.name === null) return;
    this.sentSize = '';
    const size = this.model.term(this.name).proposedSize();
    if (this.connection.send({ t: 'attach', name: this.name, ...(size ?? {}) }) && size) this.sentSize = `${size.cols}x${size.rows}`;
  }

  /** The page's box changed: offer the attached row its new size. */
  offerSize(): void {
    if (this.name === null) return;
    const size = this.model.term(this.name).proposedSize();
    if (!size || `${size.cols}x${size.rows}` === this.sentSize) return;
    if (this.connection.send({ t: 'resize', name: this.name, cols: size.cols, rows: size.rows })) this.sentSize = `${size.cols}x${size.rows}`;
  }
}
