// The rows on a desktop: a tile per row (its header and its terminal), in a grid or a stack,
// one focused, the focused one zoomed on demand; attached (click or Enter), the row takes the
// whole board and the keys. Which tiles are on screen is watched (IntersectionObserver) and told
// to the server as the page's view, so rows scrolled away stream nothing.
import type { PageRow } from '../page-protocol.js';
import type { Attachment } from './attachment.js';
import { RowHeader } from './row-header.js';
import type { RowsModel } from './rows-model.js';
import type { ViewTracker } from './view-tracker.js';

export type BoardLayout = 'grid' | 'stack';

interface Tile {
  element: HTMLElement;
  header: RowHeader;
  termBox: HTMLElement;
}

export class DeskBoard {
  readonly element: HTMLElement;
  private readonly tiles = new Map<string, Tile>();
  private readonly onScreen = new Set<string>();
  private readonly observer: IntersectionObserver;
  private focusedName: string | null = null;
  private zoomed = false;
  private layoutValue: BoardLayout = 'grid';
  private active = true;
  private readonly focusListeners = new Set<(name: string | null) => void>();

  constructor(
    private readonly model: RowsModel,
    private readonly attachment: Attachment,
    private readonly views: ViewTracker,
  ) {
    this.element = document.createElement('main');
    this.element.id = 'board';
    this.element.className = 'board grid';
    this.observer = new IntersectionObserver((entries) => {
      for (const entry of entries) {
        const name = (entry.target as HTMLElement).dataset['row'];
        if (name === undefined) continue;
        if (entry.isIntersecting) this.onScreen.add(name);
        else this.onScreen.delete(name);
      }
      this.tellView();
    });
    model.onRows((rows) => this.render(rows));
    attachment.onChange((name) => {
      if (name !== null) this.focus(name);
      this.applyClasses();
      // The attached tile fills the board first; its size is measured after that layout.
      if (name !== null) requestAnimationFrame(() => this.attachment.tell());
    });
  }

  get focused(): string | null {
    return this.focusedName;
  }

  get layout(): BoardLayout {
    return this.layoutValue;
  }

  onFocus(fn: (name: string | null) => void): () => void {
    this.focusListeners.add(fn);
    return () => this.focusListeners.delete(fn);
  }

  /** The board is shown (desktop) or not (the phone's list replaced it). */
  setActive(on: boolean): void {
    this.active = on;
    this.element.hidden = !on;
    if (on) this.render(this.model.rows);
    this.tellView();
  }

  setLayout(layout: BoardLayout): void {
    this.layoutValue = layout;
    this.applyClasses();
  }

  toggleZoom(): void {
    this.zoomed = !this.zoomed;
    this.applyClasses();
  }

  focus(name: string | null): void {
    if (name === this.focusedName) return;
    this.focusedName = name;
    this.applyClasses();
    if (name) this.tiles.get(name)?.element.scrollIntoView({ block: 'nearest' });
    this.focusListeners.forEach((fn) => fn(name));
  }

  /** Moves the focus by `step` tiles (keys on the board). */
  move(step: number): void {
    const rows = this.model.rows;
    if (rows.length === 0) return;
    const i = rows.findIndex((r) => r.name === this.focusedName);
    const next = rows[(Math.max(0, i) + step + rows.length) % rows.length]!;
    this.focus(next.name);
  }

  private render(rows: readonly PageRow[]): void {
    const names = new Set(rows.map((r) => r.name));
    for (const [name, tile] of this.tiles) {
      if (names.has(name)) continue;
      this.observer.unobserve(tile.element);
      tile.element.remove();
      this.tiles.delete(name);
      this.onScreen.delete(name);
    }
    rows.forEach((row, i) => {
      const tile = this.tiles.get(row.name) ?? this.makeTile(row.name);
      tile.header.update(row);
      // Keep the server's order, moving only what is out of place: a moved element loses the focus (the attached row's keys).
      const at = this.element.children[i];
      if (at !== tile.element) this.element.insertBefore(tile.element, at ?? null);
    });
    if (rows.length > 0 && performance.getEntriesByName('swb-tiles').length === 0) performance.mark('swb-tiles');
    // The view first: the server serializes the screens while this page lays out the tiles.
    this.tellView();
    // Each terminal opens in its tile once its first screen is in (RowTerm.mount).
    if (this.active) for (const [name, tile] of this.tiles) this.model.term(name).mount(tile.termBox);
    if (this.focusedName === null || !names.has(this.focusedName)) this.focus(rows[0]?.name ?? null);
    this.applyClasses();
  }

  private makeTile(name: string): Tile {
    const element = document.createElement('section');
    element.className = 'tile';
    element.dataset['row'] = name;
    element.tabIndex = -1;
    const header = new RowHeader();
    const termBox = document.createElement('div');
    termBox.className = 'term';
    element.append(header.element, termBox);
    // A click focuses the tile; a click on the focused tile's terminal attaches to it.
    element.addEventListener('mousedown', () => {
      if (this.focusedName === name && this.attachment.attached !== name) this.attachment.attach(name);
      this.focus(name);
    });
    element.addEventListener('dblclick', () => this.attachment.attach(name));
    const tile = { element, header, termBox };
    this.tiles.set(name, tile);
    // Viewed at once (its screen is asked for with the rows, not a layout later); the observer's
    // first report, right after, takes back what is not on screen.
    this.onScreen.add(name);
    this.observer.observe(element);
    return tile;
  }

  private applyClasses(): void {
    const attached = this.attachment.attached;
    const zoomed = attached ?? (this.zoomed ? this.focusedName : null);
    this.element.className = `board ${this.layoutValue}${zoomed ? ' zoomed' : ''}`;
    for (const [name, tile] of this.tiles) {
      tile.element.classList.toggle('focused', name === this.focusedName);
      tile.element.classList.toggle('attached', name === attached);
      tile.element.classList.toggle('zoom', name === zoomed);
    }
  }

  /** The header ages move on. */
  tick(now: number): void {
    for (const [name, tile] of this.tiles) {
      const row = this.model.row(name);
      if (row) tile.header.update(row, now);
    }
  }

  private tellView(): void {
    if (!this.active) return;
    this.views.set(this.onScreen);
  }
}
