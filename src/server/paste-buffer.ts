// The server's paste buffer, one for every client, as tmux keeps its buffers in the server: `y` in a
// row's history view puts the copied lines here, and `p` on any dashboard (or Ctrl-Y in a composer)
// pastes them into another row. It holds text already made safe (paste-text.ts); the newest copy
// replaces the one before. Lives as long as the server: nothing is written to disk.
import { pasteText } from '../text/paste-text.js';
import { Emitter, type Event } from '../util/event.js';
import type { Disposable } from '../util/lifecycle.js';

export class PasteBuffer implements Disposable {
  private value: string | null = null;
  private readonly changed = new Emitter<string | null>();
  /** The buffer's new text (every client's composer offers it). */
  readonly onChange: Event<string | null> = this.changed.event;

  get text(): string | null {
    return this.value;
  }

  set(text: string): void {
    const clean = pasteText(text);
    this.value = clean === '' ? null : clean;
    this.changed.fire(this.value);
  }

  dispose(): void {
    this.changed.dispose();
  }
}
