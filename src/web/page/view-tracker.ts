// Which rows the page shows now, told to the server (`view`) only when it changes: a row's
// output is sent only while some part of the page shows it. The board says which rows are on
// screen; a hidden page (another tab, a locked phone) views none, so its rows cost the server
// nothing beyond a bounded buffer. Told again on every fresh socket.
import type { Connection } from './connection.js';

export class ViewTracker {
  private shown = new Set<string>();
  private told: string | null = null;

  constructor(private readonly connection: Connection) {
    document.addEventListener('visibilitychange', () => this.tell());
  }

  /** The rows on screen now (the board's visible tiles, the phone's list or open row). */
  set(names: Iterable<string>): void {
    this.shown = new Set(names);
    this.tell();
  }

  /** A fresh socket: it views nothing until told. */
  reset(): void {
    this.told = null;
    this.tell();
  }

  private tell(): void {
    const rows = document.visibilityState === 'hidden' ? [] : [...this.shown].sort();
    const key = rows.join('\n');
    if (key === this.told) return;
    if (this.connection.send({ t: 'view', rows })) this.told = key;
  }
}
