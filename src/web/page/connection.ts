// The page's one WebSocket to its server (/ws), kept open: on a drop it reconnects with backoff
// (RECONNECT_MIN_MS doubling to RECONNECT_MAX_MS, reset once the server says hello), and each
// fresh socket is told what the page views and is attached to again (onOpen). Frames are JSON,
// one message each (page-protocol.ts); the server is trusted for their shape, the page shows
// their text only through textContent and xterm.js.
//
// A browser is told nothing of why an upgrade failed (a 401 reads as a bare close), so after a close
// the page asks the server once, over plain HTTP, whether its credentials still hold (CREDENTIAL_PROBE):
// a 401 there means `swb web --rotate` revoked them, and retrying would never succeed — the page says
// so and goes to its login page (onRevoked) instead of reconnecting forever.
import { PAGE_KEY_HEADER, type PageToServer, type ServerToPage } from '../page-protocol.js';

const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 10_000;
/** The cheapest request that needs the page's credentials (the peers list; any credential may read it). */
const CREDENTIAL_PROBE = '/api/peers';

export type ConnectionState = 'connecting' | 'open' | 'closed' | 'revoked';

export class Connection {
  private socket: WebSocket | null = null;
  private delay = RECONNECT_MIN_MS;
  private readonly listeners = new Set<(message: ServerToPage) => void>();
  private readonly stateListeners = new Set<(state: ConnectionState, why?: string) => void>();

  /**
   * @param url the WebSocket's address (with its `?pageKey=`)
   * @param key the page key, sent with the credential probe
   * @param onRevoked called once when the server refuses the page's credentials
   */
  constructor(
    private readonly url: string,
    private readonly key: string,
    private readonly onRevoked: () => void,
  ) {}

  start(): void {
    this.connect();
  }

  onMessage(fn: (message: ServerToPage) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  onState(fn: (state: ConnectionState, why?: string) => void): () => void {
    this.stateListeners.add(fn);
    return () => this.stateListeners.delete(fn);
  }

  get open(): boolean {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  /** Sends a frame if the socket is open (a frame sent while it is down is dropped: onOpen re-sends the page's state). */
  send(frame: PageToServer): boolean {
    if (!this.open) return false;
    this.socket!.send(JSON.stringify(frame));
    return true;
  }

  private tellState(state: ConnectionState, why?: string): void {
    for (const fn of this.stateListeners) fn(state, why);
  }

  private connect(): void {
    this.tellState('connecting');
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.onmessage = (event) => {
      if (typeof event.data !== 'string') return;
      let message: ServerToPage;
      try {
        message = JSON.parse(event.data) as ServerToPage;
      } catch {
        return;
      }
      if (message.t === 'hello') {
        this.delay = RECONNECT_MIN_MS;
        this.tellState('open');
      }
      for (const fn of this.listeners) fn(message);
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.tellState('closed', event.reason || (event.code === 1008 ? 'refused' : ''));
      void this.credentialsHold().then((hold) => {
        if (!hold) {
          this.tellState('revoked', 'credentials revoked');
          this.onRevoked();
          return;
        }
        setTimeout(() => this.connect(), this.delay);
        this.delay = Math.min(RECONNECT_MAX_MS, this.delay * 2);
      });
    };
  }

  /** False only on a 401: a server that cannot be reached (restarting, network down) may still take us back. */
  private async credentialsHold(): Promise<boolean> {
    try {
      const res = await fetch(CREDENTIAL_PROBE, { headers: { [PAGE_KEY_HEADER]: this.key }, credentials: 'same-origin', cache: 'no-store' });
      return res.status !== 401;
    } catch {
      return true;
    }
  }
}
