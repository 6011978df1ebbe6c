// The page's rows as the server tells them: their headers (`rows`, `row`) and, for each, the
// terminal that shows it (`screen`, `out` written into a RowTerm). One place holds them, so the
// desktop board, the phone's list and the tools all read the same rows and hear the same changes.
import type { PageRow, ServerToPage } from '../page-protocol.js';
import { RowTerm } from './row-term.js';

export class RowsModel {
  private list: PageRow[] = [];
  private readonly terms = new Map<string, RowTerm>();
  private readonly listeners = new Set<(rows: readonly PageRow[]) => void>();
  private readonly outputListeners = new Set<(name: string) => void>();

  get rows(): readonly PageRow[] {
    return this.list;
  }

  row(name: string): PageRow | undefined {
    return this.list.find((r) => r.name === name);
  }

  /** The row's terminal (made the first time it is asked for; written to whether or not it is shown). */
  term(name: string): RowTerm {
    let term = this.terms.get(name);
    if (!term) {
      term = new RowTerm(name);
      term.onWritten = () => this.outputListeners.forEach((fn) => fn(name));
      this.terms.set(name, term);
    }
    return term;
  }

  hasTerm(name: string): boolean {
    return this.terms.has(name);
  }

  /** Hears the rows' set, order or headers change. */
  onRows(fn: (rows: readonly PageRow[]) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Hears a row's terminal take new output (after xterm.js parsed it). */
  onOutput(fn: (name: string) => void): () => void {
    this.outputListeners.add(fn);
    return () => this.outputListeners.delete(fn);
  }

  receive(message: ServerToPage): void {
    switch (message.t) {
      case 'rows': {
        this.list = message.rows;
        const names = new Set(message.rows.map((r) => r.name));
        for (const [name, term] of this.terms) {
          if (names.has(name)) continue;
          term.dispose();
          this.terms.delete(name);
        }
        return this.tell();
      }
      case 'row': {
        const i = this.list.findIndex((r) => r.name === message.name);
        if (i < 0) return;
        this.list = this.list.slice();
        this.list[i] = message.row;
        return this.tell();
      }
      case 'screen':
        return this.term(message.name).screen(message.cols, message.rows, message.data);
      case 'out': {
        const row = this.row(message.name);
        if (row) row.lastOutputAt = Date.now();
        return this.term(message.name).out(message.data);
      }
      case 'size':
        return this.term(message.name).terminal.resize(message.cols, message.rows);
      default:
        return;
    }
  }

  private tell(): void {
    for (const fn of this.listeners) fn(this.list);
  }
}
