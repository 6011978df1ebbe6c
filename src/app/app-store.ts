// The UI state store: named actions produce new immutable states; subscribers (the Ink tree via
// useAppState) are told at most once per `minIntervalMs`, so a burst of row events costs one
// chrome render, not one per event.
import { Emitter } from '../util/event.js';
import type { Disposable } from '../util/lifecycle.js';
import { MAX_NOTES, type AppState, type Note, type NoteKind, type Overlay, type RowView } from './app-state.js';
import type { LayoutMode } from './layout.js';

export class AppStore implements Disposable {
  private state: AppState;
  private readonly changed = new Emitter<AppState>();
  private timer: NodeJS.Timeout | null = null;
  private lastEmit = 0;
  private nextNoteId = 1;
  readonly onChange = this.changed.event;

  constructor(
    initial: AppState,
    private readonly minIntervalMs = 40,
    private readonly now: () => number = Date.now,
  ) {
    this.state = initial;
  }

  getState = (): AppState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    const d = this.changed.event(listener);
    return () => d.dispose();
  };

  private set(next: AppState): void {
    if (next === this.state) return;
    this.state = next;
    this.schedule();
  }

  private schedule(): void {
    if (this.timer) return;
    const wait = Math.max(0, this.lastEmit + this.minIntervalMs - this.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.lastEmit = this.now();
      this.changed.fire(this.state);
    }, wait);
  }

  /** Emits now (tests, and the first frame). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.lastEmit = this.now();
    this.changed.fire(this.state);
  }

  // --- actions -------------------------------------------------------------------------------

  resize(cols: number, rows: number): void {
    if (cols === this.state.size.cols && rows === this.state.size.rows) return;
    this.set({ ...this.state, size: { cols, rows } });
  }

  addRow(row: RowView): void {
    const rows = [...this.state.rows.filter((r) => r.name !== row.name), row];
    this.set({ ...this.state, rows, focused: this.state.focused ?? row.name });
  }

  updateRow(name: string, patch: Partial<RowView>): void {
    let changed = false;
    const rows = this.state.rows.map((r) => {
      if (r.name !== name) return r;
      for (const k of Object.keys(patch) as (keyof RowView)[]) {
        if (r[k] !== patch[k]) {
          changed = true;
          break;
        }
      }
      return changed ? { ...r, ...patch } : r;
    });
    if (changed) this.set({ ...this.state, rows });
  }

  removeRow(name: string): void {
    const index = this.state.rows.findIndex((r) => r.name === name);
    if (index < 0) return;
    const rows = this.state.rows.filter((r) => r.name !== name);
    let focused = this.state.focused;
    if (focused === name) focused = rows[Math.min(index, rows.length - 1)]?.name ?? null;
    const attached = this.state.attached === name ? null : this.state.attached;
    this.set({ ...this.state, rows, focused, attached, zoomed: rows.length > 0 && this.state.zoomed });
  }

  focus(name: string | null): void {
    if (name === null || name === this.state.focused || !this.state.rows.some((r) => r.name === name)) return;
    this.set({ ...this.state, focused: name });
  }

  focusBy(offset: number): void {
    const rows = this.state.rows;
    if (rows.length === 0) return;
    const i = rows.findIndex((r) => r.name === this.state.focused);
    const next = rows[(((i < 0 ? 0 : i) + offset) % rows.length + rows.length) % rows.length]!;
    this.focus(next.name);
  }

  toggleZoom(): void {
    if (!this.state.focused) return;
    this.set({ ...this.state, zoomed: !this.state.zoomed });
  }

  setLayout(mode: LayoutMode): void {
    if (mode !== this.state.layoutMode) this.set({ ...this.state, layoutMode: mode });
  }

  setTheme(name: string): void {
    if (name !== this.state.themeName) this.set({ ...this.state, themeName: name });
  }

  attach(name: string): void {
    if (!this.state.rows.some((r) => r.name === name)) return;
    this.set({ ...this.state, attached: name, overlay: null, focused: name });
  }

  detach(): void {
    if (this.state.attached !== null) this.set({ ...this.state, attached: null });
  }

  openOverlay(overlay: Overlay, explainText = this.state.explainText): void {
    this.set({ ...this.state, overlay, explainText });
  }

  notify(kind: NoteKind, text: string, row: string | null = null): Note {
    const note: Note = { id: this.nextNoteId++, at: this.now(), kind, text, row };
    const notes = [note, ...this.state.notes].slice(0, MAX_NOTES);
    this.set({ ...this.state, notes, strip: note });
    return note;
  }

  dismissStrip(): void {
    if (this.state.strip) this.set({ ...this.state, strip: null });
  }

  clearNotes(): void {
    this.set({ ...this.state, notes: [], strip: null });
  }

  tick(now: number): void {
    this.set({ ...this.state, now });
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.changed.dispose();
  }
}
