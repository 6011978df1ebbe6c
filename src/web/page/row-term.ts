// One row's terminal in the page: an xterm.js Terminal fed with the server's screen (a `screen`
// frame resets it, at the row's size) and then the row's output (`out`). It is the only way a
// row's screen text reaches the page, so what xterm.js would do with it is fenced: OSC 52 (the
// clipboard) is swallowed and links are inert (no link provider, OSC 8 links never opened). The
// row's history is xterm's scrollback, searched with addon-search. A terminal is written to
// before it is shown (the phone's list reads its last line), and opened into a tile when shown
// and its first screen is in.
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';

/** History lines the page keeps per row (the server keeps its own deeper history). */
const PAGE_SCROLLBACK = 5000;

/**
 * Terminals whose first screen is parsed, opened together in the next frame: a page loading many
 * rows lays out and paints once for all of them, not once per terminal as each screen comes in.
 */
const dueToOpen = new Set<RowTerm>();
function openAtNextFrame(term: RowTerm): void {
  if (dueToOpen.size === 0) {
    requestAnimationFrame(() => {
      const due = [...dueToOpen];
      dueToOpen.clear();
      for (const t of due) t.openNow();
    });
  }
  dueToOpen.add(term);
}

export class RowTerm {
  readonly terminal: Terminal;
  private readonly fit = new FitAddon();
  private readonly search = new SearchAddon();
  private opened = false;
  /** Where the terminal is to be shown (it opens there once its first screen is parsed). */
  private parent: HTMLElement | null = null;
  private hasScreen = false;
  private disposed = false;
  /** Called once per write burst, when the screen the page shows has changed (painted next frame). */
  onWritten: (() => void) | null = null;

  constructor(readonly name: string) {
    this.terminal = new Terminal({
      cols: 80,
      rows: 24,
      scrollback: PAGE_SCROLLBACK,
      allowProposedApi: true,
      fontSize: 12,
      fontFamily: 'ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace',
      cursorBlink: false,
      disableStdin: true,
      // OSC 8 links: never opened (no confirm, no window.open).
      linkHandler: { activate: () => undefined, allowNonHttpProtocols: false },
      theme: { background: '#111418', foreground: '#d8dee9' },
    });
    this.terminal.loadAddon(this.fit);
    this.terminal.loadAddon(this.search);
    // The clipboard is not the program's to set (OSC 52): swallowed.
    this.terminal.parser.registerOscHandler(52, () => true);
  }

  /**
   * Shows the terminal in `parent`: opened once its first screen is parsed (so the renderer starts
   * at the row's size with its screen, and paints once, instead of an empty 80x24 box, a resize and
   * a second paint — a page loading many rows pays each terminal's paint once); moved after.
   */
  mount(parent: HTMLElement): void {
    this.parent = parent;
    if (!this.opened) {
      if (this.hasScreen) this.open(parent);
    } else if (this.terminal.element && this.terminal.element.parentElement !== parent) {
      parent.append(this.terminal.element);
    }
  }

  private open(parent: HTMLElement): void {
    this.terminal.open(parent);
    this.opened = true;
  }

  /** Opens into the tile it was mounted in, if it is still due (openAtNextFrame). */
  openNow(): void {
    if (!this.opened && this.parent && !this.disposed) this.open(this.parent);
  }

  /** Resets to the server's screen at the row's size. */
  screen(cols: number, rows: number, data: string): void {
    this.terminal.reset();
    if (cols !== this.terminal.cols || rows !== this.terminal.rows) this.terminal.resize(cols, rows);
    this.terminal.write(data, () => {
      if (!this.hasScreen) {
        this.hasScreen = true;
        if (this.parent && !this.opened) openAtNextFrame(this);
      }
      this.onWritten?.();
    });
  }

  out(data: string): void {
    this.terminal.write(data, () => this.onWritten?.());
  }

  /** The size that fills the terminal's shown box (null when it is not shown). */
  proposedSize(): { cols: number; rows: number } | null {
    if (!this.opened) return null;
    const size = this.fit.proposeDimensions();
    return size && size.cols > 1 && size.rows > 0 ? { cols: Math.min(size.cols, 1000), rows: Math.min(size.rows, 500) } : null;
  }

  setTyping(on: boolean): void {
    // The cursor stays steady: xterm.js's blinking cursor delays a keystroke's echo paint by a
    // frame or two (bench:web, page echo against its floor: p50 painted 8.6 → 33 ms with blinking).
    this.terminal.options.disableStdin = !on;
    if (on) this.terminal.focus();
    else this.terminal.blur();
  }

  find(text: string, backwards = false): boolean {
    if (!text) {
      this.search.clearDecorations();
      return false;
    }
    return backwards ? this.search.findPrevious(text) : this.search.findNext(text);
  }

  /** The last line on the screen that is not blank (the phone's list shows it). */
  lastLine(): string {
    const buffer = this.terminal.buffer.active;
    for (let y = buffer.baseY + this.terminal.rows - 1; y >= 0; y--) {
      const text = buffer.getLine(y)?.translateToString(true).trim();
      if (text) return text;
    }
    return '';
  }

  /** Every line of the screen and its history, as text (tests and the page's own find). */
  text(): string {
    const buffer = this.terminal.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < buffer.length; y++) lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
    return lines.join('\n');
  }

  dispose(): void {
    this.disposed = true;
    this.terminal.dispose();
  }
}
