// The hub's socket: it listens (0600, under the lock the hub already holds, so a leftover socket
// file is stale), publishes the operator token for trusted local tools, and accepts connections —
// answering HUB_BUSY past the connection limit, refusing another uid — and bounds what they hold
// together: unfinished frames across all connections, and how many may sit with answers unread.
// Each connection's own framing and backpressure are HubConnection's; its frames go to `onFrame`,
// and what a closed connection leaves behind elsewhere (its session, waits, subscriptions) to
// `onClosed`.
import { createServer, type Server, type Socket as NetSocket } from 'node:net';
import { renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { swbError } from '../protocol/error-codes.js';
import type { HubLimits } from '../protocol/limits.js';
import type { DecodedFrame } from '../protocol/ndjson-decoder.js';
import { systemClock, type Clock } from '../util/clock.js';
import { toDisposable, type Disposable } from '../util/lifecycle.js';
import { myUid } from '../util/private-path.js';
import { HubConnection, type ConnectionEvents } from './hub-connection.js';
import { peerOf } from './peer-guard.js';
import { isOwnSocket } from './private-dir.js';
import { listenOnSocketPath } from './listen-socket-path.js';

/** How long a connection answered HUB_BUSY may take to read the answer before it is cut. */
const BUSY_ANSWER_GRACE_MS = 1000;

export interface ListenerOptions {
  socketPath: string;
  operatorTokenFile: string;
  operatorToken: string;
  limits: HubLimits;
  /** Every live connection: filled and emptied here, read by the fan-out. */
  connections: Set<HubConnection>;
  /** Times the connections' deadlines and a refused one's cut (default: the system clock). */
  clock?: Clock;
  onFrame(conn: HubConnection, frame: DecodedFrame): void;
  onClosed(conn: HubConnection): void;
}

export class HubListener {
  private server: Server | null = null;
  private accepting = true;
  private unfinishedBytes = 0;
  private readonly stalled = new Set<HubConnection>();
  /** What every connection reports to: one object for all of them. */
  private readonly connectionEvents: ConnectionEvents;

  constructor(private readonly o: ListenerOptions) {
    this.connectionEvents = {
      onFrame: o.onFrame,
      onClose: (c) => this.closed(c),
      onUnfinished: (c, delta) => this.onUnfinished(c, delta),
      onStalled: (c, stalled) => this.onStalled(c, stalled),
    };
  }

  /** Listens; the returned disposable removes the socket file (if it is still ours). */
  async listen(): Promise<Disposable> {
    const { socketPath, operatorTokenFile, limits } = this.o;
    // Publish the operator token for trusted local tools (same uid, 0600, written atomically) before
    // the socket accepts anyone: a client that connects at once (the command that started this hub)
    // reads the token right after its connect succeeds, and must find this hub's, not none.
    const tmp = `${operatorTokenFile}.${process.pid}.tmp`;
    writeFileSync(tmp, this.o.operatorToken, { mode: 0o600 });
    renameSync(tmp, operatorTokenFile);
    const server = createServer({ allowHalfOpen: false }, (socket) => this.accept(socket));
    this.server = server;
    // We hold the lock, so no live hub can own this socket: a leftover is stale and is replaced. A
    // burst of clients (every row's CLI at once) queues in the backlog instead of seeing EAGAIN.
    await listenOnSocketPath(server, socketPath, Math.min(4096, Math.max(511, limits.maxConnections)));
    const removeSocket = toDisposable(() => {
      try {
        if (isOwnSocket(socketPath)) unlinkSync(socketPath);
      } catch {
        // already gone
      }
    });
    return removeSocket;
  }

  /** From now on new connections are closed at once (the hub is stopping). */
  stopAccepting(): void {
    this.accepting = false;
  }

  /** Closes every connection and the socket. */
  async close(): Promise<void> {
    this.accepting = false;
    for (const c of this.o.connections) c.destroy();
    const server = this.server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(socket: NetSocket): void {
    const { connections, limits } = this.o;
    if (!this.accepting) {
      socket.destroy();
      return;
    }
    if (connections.size >= limits.maxConnections) {
      // Answered, not dropped: the client learns the hub is alive and full, not that there is none.
      const busy = swbError('HUB_BUSY', `The hub has ${connections.size} connections, its limit; try again shortly.`);
      socket.on('error', () => socket.destroy());
      socket.end(`${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: busy.message, data: { code: busy.code } } })}\n`);
      (this.o.clock ?? systemClock).setTimer(() => socket.destroy(), BUSY_ANSWER_GRACE_MS);
      return;
    }
    const peer = peerOf(socket);
    if (peer && peer.uid !== myUid() && peer.uid !== 0) {
      // The socket is 0600 in a 0700 dir, so this takes a misconfigured system; refuse it anyway.
      socket.destroy();
      return;
    }
    const conn = new HubConnection(socket, limits, this.connectionEvents, this.o.clock);
    conn.peer = peer;
    connections.add(conn);
  }

  private closed(conn: HubConnection): void {
    this.o.connections.delete(conn);
    this.stalled.delete(conn);
    this.o.onClosed(conn);
  }

  /** Unfinished frames of all connections together stay under a cap; the one that passes it goes. */
  private onUnfinished(conn: HubConnection, delta: number): void {
    const { maxUnfinishedBytes } = this.o.limits;
    this.unfinishedBytes += delta;
    if (delta > 0 && this.unfinishedBytes > maxUnfinishedBytes) {
      conn.closeWithError(
        swbError('HUB_BUSY', `The hub holds ${this.unfinishedBytes} bytes of unfinished frames, over its limit of ${maxUnfinishedBytes}; this connection was closed.`),
      );
    }
  }

  /**
   * Connections with answers piling up unread hold up to maxPendingWriteBytes each until their
   * stall timeout; past maxStalledConnections of them at once, the newest is closed at once, so
   * many such clients together cannot fill the hub's memory either.
   */
  private onStalled(conn: HubConnection, stalled: boolean): void {
    if (!stalled) {
      this.stalled.delete(conn);
      return;
    }
    this.stalled.add(conn);
    if (this.stalled.size > this.o.limits.maxStalledConnections) {
      conn.closeWithError(swbError('HUB_BUSY', `Too many connections leave their answers unread (${this.stalled.size}); this one was closed.`));
      conn.destroy();
    }
  }
}
