// The seam between the page's shell (web-rows) and its tools (web-tools: mail, notifications,
// composer, explain, wake policy, new row / restart / close, review): the shell owns the socket,
// the rows and the panel the tools draw into; the tools ask the server through `request` and hear
// what they follow through `onPush`. mountTools (./mount-tools.ts) is the tools' one entry.
import type { PageRow } from '../../page-protocol.js';

export interface ToolsDisposable {
  dispose(): void;
}

export interface ToolsHost {
  /** A `req` frame; resolves with its `res`'s ok, rejects with an Error carrying `code` (ToolError). */
  request(method: string, params?: unknown): Promise<unknown>;
  /** `push` frames of one topic (mail, receipts, notes, peers ...), until disposed. */
  onPush(topic: string, fn: (data: unknown) => void): ToolsDisposable;
  /** Where the tools draw (the side panel on a desktop, a full-screen sheet on a phone). */
  readonly panel: HTMLElement;
  /** The rows as the server last told them, in the dashboard's order. */
  rows(): readonly PageRow[];
  /** Hears the rows change (the set, order, or a header). */
  onRows(fn: (rows: readonly PageRow[]) => void): ToolsDisposable;
  /** The row the operator looks at now (the focused tile, the phone's open row), or null. */
  focusedRow(): string | null;
  /** Brings a row to the operator (focuses its tile; on a phone, opens it). */
  focusRow(name: string): void;
  /** Opens the panel (e.g. the composer, addressed to `to`) or closes it. */
  showPanel(open: boolean): void;
  /** The page was opened read-only: the tools offer nothing that changes anything (the server refuses it anyway). */
  readonly readOnly: boolean;
}

/** The tools' entry: draws into host.panel and follows what it needs until disposed. */
export type MountTools = (host: ToolsHost) => ToolsDisposable;
