// The page's WebSocket protocol (/ws): JSON text frames, one message each, shared by the server
// (src/web/) and the page (src/web/page/, bundled for the browser). Types only: the page bundle
// must not carry zod; the server checks every frame's shape before it acts (page-frames.ts).
//
// Rows: the page says which rows it shows (`view`); for each, the server sends the current screen
// first (`screen`, serialized from @xterm/headless, which resets the page's terminal) and then the
// row's output as it comes (`out`, coalesced per frame). A row the page stops showing costs the
// server nothing more; a row whose backlog outgrows its bound gets a fresh `screen` instead.
// Tools: a `req` gets exactly one `res` with the same id; `push` frames carry what a page follows.
import type { RowView, Note } from '../app/app-state.js';

export const PAGE_PROTOCOL_VERSION = 1;

/** The header that carries the page key on the page's own HTTP requests (web-tokens.ts says why). */
export const PAGE_KEY_HEADER = 'x-swb-page-key';

export interface ToolError {
  code: string;
  message: string;
}

/** A row's header data as the page shows it (the dashboard's RowView, already sanitized). */
export type PageRow = RowView;
export type PageNote = Note;

export type ServerToPage =
  | { t: 'hello'; version: number; workspace: string; readOnly: boolean; serverVersion: string }
  /** Every row, in the dashboard's order (sent on open and whenever the set or order changes). */
  | { t: 'rows'; rows: PageRow[] }
  /** One row's header changed. */
  | { t: 'row'; name: string; row: PageRow }
  /** Resets the page's terminal of `name` to this screen (serialized, with its size and cursor). */
  | { t: 'screen'; name: string; cols: number; rows: number; data: string }
  /** The row's output since the last frame, to write into the page's terminal as is. */
  | { t: 'out'; name: string; data: string }
  /** The row's size changed (the client whose keys came last decides, as for terminal clients). */
  | { t: 'size'; name: string; cols: number; rows: number }
  /** A rows frame (view/attach/input/resize) the server would not act on: why (e.g. READ_ONLY, NOT_ATTACHED, BAD_FRAME). */
  | { t: 'refused'; frame: string; code: string; message: string }
  | { t: 'res'; id: number; ok?: unknown; error?: ToolError }
  | { t: 'push'; topic: string; data: unknown };

export type PageToServer =
  /** The rows the page shows now (visible views); every other row is sent nothing. */
  | { t: 'view'; rows: string[] }
  /** The page attaches to a row (its keys go there and its size takes part) or lets go (null). */
  | { t: 'attach'; name: string | null; cols?: number; rows?: number }
  /** Keys or a paste for the attached row, as the terminal bytes xterm.js produced. */
  | { t: 'input'; name: string; data: string }
  | { t: 'resize'; name: string; cols: number; rows: number }
  | { t: 'req'; id: number; method: string; params?: unknown };
