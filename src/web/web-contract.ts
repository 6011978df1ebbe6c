// The seams inside the browser client (issue #32), fixed first so its three parts can be built
// side by side: the listener (web-server.ts: HTTP, TLS, the token and cookie, Host/Origin, the
// Intercom API), the page session (page-session.ts: rows to and from the page) and the page's tools
// (mail, notifications, composer, explain, wake policy, new row / restart / close, review). The
// listener authenticates and bounds every socket before a session sees it; the session never
// trusts a frame's claims about who sent it — `who` comes from the credential the listener checked.
import type { Disposable } from '../util/lifecycle.js';
import type { Event } from '../util/event.js';
import type { PageToServer, ServerToPage, ToolError } from './page-protocol.js';

/** Who a web credential speaks as. The web token is the operator; a view-only token is a viewer. */
export interface WebIdentity {
  /** 'operator' for the web token (and the view-only token); a row's handle for its own SWB_TOKEN (API only). */
  handle: string;
  /** Sees everything, changes nothing: typing, sending, closing ... are refused by the server. */
  readOnly: boolean;
}

/**
 * One page's WebSocket, already authenticated, its upgrade's Host and Origin checked. Frames in are
 * bounded in size and rate by the listener (an over-limit frame closes the socket); frames out are
 * JSON text. A page that does not read is dropped, never waited for.
 */
export interface PageSocket {
  /** Queues a frame; false when the page was too slow and the socket is closing (the frame is dropped). */
  send(message: ServerToPage): boolean;
  /** Bytes queued and not yet written to the page (the session sheds work above its bound). */
  readonly bufferedBytes: number;
  /** One parsed frame (JSON, within the size bound; its shape is not yet checked). */
  readonly onMessage: Event<unknown>;
  readonly onClose: Event<void>;
  close(code?: number, reason?: string): void;
}

/** What the listener hands each page socket to. */
export interface PageService {
  open(socket: PageSocket, who: WebIdentity): Disposable;
}

/**
 * The page's tools, server side: named requests (`req` frames) and the pushes a page follows. The
 * page session routes to it; a mutating method asked by a read-only page is refused before it runs.
 */
export interface PageTools {
  /** Whether `method` changes anything (refused to a read-only page); unknown methods are not mutating and fail in handle(). */
  mutates(method: string): boolean;
  handle(method: string, params: unknown, who: WebIdentity): Promise<{ ok: unknown } | { error: ToolError }>;
  /** Starts the pushes one page follows (mail, receipts, notes, peers ...); disposed when the page goes. */
  follow(push: (message: ServerToPage) => void, who: WebIdentity): Disposable;
}

export type { PageToServer, ServerToPage };
