// The server's client socket, listened on before the server can serve a client. The server says
// it is ready as soon as it listens (under the workspace's lock) and builds its core — mail.db,
// the hub, the rows' manager: 20-40 ms — while the client that launched it hears that, connects
// and sends its HELLO (7-14 ms from the ready line to the client's HELLO, which the server used to
// sit idle through; `bench/render.mjs --only=first`'s trace). A connection that comes meanwhile
// waits unread: its HELLO stays in the socket until the server serves (serve), which then takes
// the waiting ones in the order they came. A server whose core failed answers each client with a
// BYE that says why (refuse): the client prints it and exits non-zero.
import { unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { listenOnSocketPath } from '../hub/listen-socket-path.js';
import { isOwnSocket } from '../hub/private-dir.js';
import type { RuntimePaths } from '../hub/runtime-paths.js';
import { encodeJsonFrame, FRAME, type ByeFrame } from '../protocol/client-wire.js';
import { checkDirectoryChain, myUid } from '../util/private-path.js';

/** How long a refused client may take to read its BYE before its connection is cut. */
const BYE_GRACE_MS = 1000;
/** How long a server whose core failed waits for the client it said "ready" to (which connects in ms). */
const CLIENT_DUE_MS = 5000;

export class ClientListener {
  /** Connections that came before the server could serve them, each with what forgets it (null once it serves, or refuses). */
  private waiting: Map<Socket, () => void> | null = new Map();
  private accept: ((socket: Socket) => void) | null = null;
  /** Every connection not yet closed (a refusing server cuts those that never spoke). */
  private readonly open = new Set<Socket>();
  private closed = false;

  private constructor(
    private readonly listener: Server,
    private readonly path: string,
  ) {}

  /** Listens on the server's socket. The caller holds the workspace's lock (take-workspace-lock.ts). */
  static async listen(paths: RuntimePaths): Promise<ClientListener> {
    checkDirectoryChain(paths.socketDir, myUid(), 'The server will not listen there: no client would trust it.');
    let self: ClientListener | null = null;
    const listener = createServer({ allowHalfOpen: false }, (socket) => self!.connected(socket));
    self = new ClientListener(listener, paths.serverSocketPath);
    // We hold the workspace's lock, so no live server can own this socket: a leftover is stale.
    await listenOnSocketPath(listener, paths.serverSocketPath);
    return self;
  }

  private connected(socket: Socket): void {
    this.open.add(socket);
    socket.once('close', () => this.open.delete(socket));
    if (this.accept) return this.accept(socket);
    if (!this.waiting) return void socket.destroy();
    // Not read until served: no 'data' listener, so what the client sends stays buffered.
    const waiting = this.waiting;
    const gone = () => waiting.delete(socket);
    const failed = () => socket.destroy();
    waiting.set(socket, () => {
      socket.off('close', gone);
      socket.off('error', failed);
    });
    socket.on('error', failed);
    socket.once('close', gone);
  }

  /** Hands every waiting connection to `accept`, in the order they came, and each new one after. */
  serve(accept: (socket: Socket) => void): void {
    const waiting = this.takeWaiting();
    this.accept = accept;
    for (const socket of waiting) if (!socket.destroyed) accept(socket);
  }

  /**
   * The server cannot serve (its core failed): every client that says something — the waiting
   * ones, and those still to come — is answered with `bye`, which its client prints before it exits
   * 1. A server a client launched said "ready" to that client, which may not have connected yet
   * (its HELLO comes 7-14 ms after the ready line; longer on a loaded machine): it listens on until one
   * client has been told, or CLIENT_DUE_MS. Resolves once the socket is closed.
   */
  async refuse(bye: ByeFrame, o: { clientDue: boolean }): Promise<void> {
    const waiting = this.takeWaiting();
    const spoke = new Set<Socket>();
    let told!: () => void;
    const oneTold = new Promise<void>((resolve) => (told = resolve));
    this.accept = (socket) => {
      socket.on('error', () => socket.destroy());
      // Answered once it has spoken: a BYE written before its HELLO could meet the HELLO's write as
      // a broken pipe, and the client would never read it.
      socket.once('data', () => {
        spoke.add(socket);
        socket.end(encodeJsonFrame(FRAME.BYE, bye));
        socket.once('close', told);
        // What it sends after is read and dropped (its end is seen, the socket closes); a client that
        // does not close is cut.
        setTimeout(() => socket.destroy(), BYE_GRACE_MS).unref();
      });
    };
    for (const socket of waiting) if (!socket.destroyed) this.accept(socket);
    if (o.clientDue || waiting.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([oneTold, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLIENT_DUE_MS)))]);
      clearTimeout(timer);
    }
    this.close();
    // Connections that never spoke hear nothing more (their clients see the server gone).
    for (const socket of [...this.open]) if (!spoke.has(socket)) socket.destroy();
  }

  private takeWaiting(): Socket[] {
    const waiting = [...(this.waiting ?? new Map<Socket, () => void>())];
    this.waiting = null;
    for (const [, forget] of waiting) forget();
    return waiting.map(([socket]) => socket);
  }

  /** Stops listening and removes the socket (if it is still ours). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.listener.close();
    try {
      if (isOwnSocket(this.path)) unlinkSync(this.path);
    } catch {
      // gone already
    }
  }
}
