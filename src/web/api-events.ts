// /api/ws: what `swb events` streams, pushed over a WebSocket as one JSON object per frame. Each
// socket has a hub connection of its own, subscribed as the caller (the operator sees everything, a
// row only what concerns it: the hub's `events.subscribe` decides), with the same filters as the
// command (?kinds=mail,receipt&row=NAME). Nothing is buffered here: a socket that does not read is
// closed by its own bound (page-socket.ts), and the hub drops a connection that falls behind.
import { SwbError } from '../protocol/error-codes.js';
import { toDisposable, type Disposable } from '../util/lifecycle.js';
import { asError, type ApiHub } from './api-hub.js';
import { CLOSE_POLICY, type BoundedPageSocket } from './page-socket.js';
import type { WebCaller } from './web-server.js';

/** Event sockets open at once, over all callers (each holds a hub connection). */
const MAX_EVENT_SOCKETS = 64;
/** The close code when the hub went away or refused (RFC 6455: server error / try again later). */
const CLOSE_HUB_GONE = 1011;

export class ApiEvents {
  private open_ = 0;

  constructor(private readonly hub: ApiHub) {}

  open(socket: BoundedPageSocket, caller: WebCaller, url: URL): Disposable {
    if (this.open_ >= MAX_EVENT_SOCKETS) {
      socket.send({ error: { code: 'HUB_BUSY', message: `${this.open_} event sockets are open, the limit; try again shortly.` } });
      socket.close(1013, 'busy');
      return toDisposable(() => undefined);
    }
    this.open_ += 1;
    let gone = false;
    let client: Awaited<ReturnType<ApiHub['open']>> | null = null;
    const kinds = (url.searchParams.get('kinds') ?? '').split(',').map((k) => k.trim()).filter(Boolean);
    const row = url.searchParams.get('row');
    const fail = (err: unknown): void => {
      const e = err instanceof SwbError ? err.toValue() : asError(err, 'The event stream failed');
      socket.send({ error: { code: e.code, message: e.message } });
      socket.close(e.code === 'UNAUTHENTICATED' || e.code === 'BAD_REQUEST' ? CLOSE_POLICY : CLOSE_HUB_GONE, e.code);
    };
    void (async () => {
      try {
        const c = await this.hub.open(caller);
        if (gone) return c.destroy();
        client = c;
        c.onPush((push) => {
          if (push.method !== 'event') return;
          if (!socket.send(push.params as object)) c.destroy();
        });
        c.onClose(() => {
          if (!gone) fail(c.closeReason ?? new SwbError('NO_HUB', 'The hub closed the event stream.'));
        });
        const sub = await c.request<{ kinds: string[]; row: string | null }>('events.subscribe', { ...(kinds.length ? { kinds } : {}), ...(row !== null ? { row } : {}) });
        socket.send({ subscribed: sub });
      } catch (err) {
        if (!gone) fail(err);
      }
    })();
    return toDisposable(() => {
      if (gone) return;
      gone = true;
      this.open_ -= 1;
      client?.destroy();
    });
  }
}
