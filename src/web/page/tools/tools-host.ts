// What the page's shell (web-rows' main.ts) hands the tools panel: the one WebSocket's requests and
// pushes, a place to draw, the rows it shows, and whether this page is read-only. The tools never
// open a socket of their own and never touch the rows' terminals; they ask the shell.
import type { PageRow } from '../../page-protocol.js';

export interface ToolsDisposable {
  dispose(): void;
}

export interface ToolsHost {
  /**
   * A `req` frame; resolves with the `res` frame's `ok`, or rejects with its `error`
   * ({ code, message }, an Error carrying them, or the connection's own failure).
   */
  request(method: string, params?: unknown): Promise<unknown>;
  /** Every `push` frame of `topic`, as it comes. */
  onPush(topic: string, fn: (data: unknown) => void): ToolsDisposable;
  /** Where the tools draw (the shell shows and hides it). */
  readonly panel: HTMLElement;
  /** The rows as the shell has them now (the server's order). */
  rows(): PageRow[];
  /** Shows and focuses a row in the shell. */
  focusRow(name: string): void;
  /** The focused row, if the shell has one (the row tools start on it). */
  focused?(): string | null;
  /** The rows changed (added, gone, a header changed); the tools re-read rows(). */
  onRows?(fn: () => void): ToolsDisposable;
  /** View-only: the tools hide what changes anything (the server refuses it anyway). */
  readonly readOnly: boolean;
}
