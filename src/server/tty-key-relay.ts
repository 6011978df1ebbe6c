// The operator's plain keystrokes go from their terminal to the attached row's pty on a thread of
// their own (native/key-relay.c), for a terminal the server reads itself (client-tty.ts): the
// event loop is not woken on the keystroke's way in, only on its echo's way out. The input router
// decides when the path runs (InputRouter, KeyPath); this is the terminal's half of it.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ReadStream } from 'node:tty';
import type { KeyPath, KeyPathHandlers } from '../terminal/input-router.js';
import { packageRoot } from '../util/package-root.js';
import { handleFd } from './client-tty.js';

/** What the thread did since the last look (native/key-relay.c, take()). */
interface RelayNews {
  /** Reads it wrote to the pty. */
  typed: number;
  /** The read it stopped on, not written (a screened byte, a pty that took only part), or null. */
  held: Buffer | null;
  /** Why it stopped otherwise: the terminal ended ('EOF') or failed (an errno name), the row's pty hung up ('ROW_GONE'); or null. */
  ended: string | null;
}

interface NativeRelay {
  start(ttyFd: number, ptyFd: number, screened: Uint8Array): void;
  stop(): void;
  take(): RelayNews;
  close(): void;
}

type NativeRelayClass = new (notify: () => void) => NativeRelay;

// undefined: not tried yet (only a server with a terminal of a client's loads it).
let relayClass: NativeRelayClass | null | undefined;
let unavailable = '';

function loadRelay(): NativeRelayClass | null {
  if (relayClass !== undefined) return relayClass;
  const path = join(packageRoot(), 'build', 'Release', 'key_relay.node');
  try {
    relayClass = (createRequire(import.meta.url)(path) as { KeyRelay?: NativeRelayClass }).KeyRelay ?? null;
    if (!relayClass) unavailable = `the key relay is not built for ${process.platform}`;
  } catch (err) {
    unavailable = `cannot load the key relay (${path}): ${(err as Error).message.split('\n')[0]}`;
    relayClass = null;
  }
  return relayClass;
}

/**
 * A KeyPath over `tty`, which must read in `onread` mode (openClientTty with onKeys): its pause()
 * then stops the stream's reads at once, and the thread is the terminal's only reader while it
 * runs. A string says why there is none (the router then routes every key itself).
 */
export function ttyKeyRelay(tty: ReadStream): TtyKeyRelay | string {
  const Relay = loadRelay();
  if (!Relay) return unavailable;
  const fd = handleFd(tty);
  if (fd === undefined) return 'the terminal stream has no descriptor to hand over';
  return new TtyKeyRelay(tty, fd, Relay);
}

export class TtyKeyRelay implements KeyPath {
  private readonly relay: NativeRelay;
  /** Set while the thread runs. */
  private on: KeyPathHandlers | null = null;
  private closed = false;

  constructor(
    private readonly tty: ReadStream,
    private readonly ttyFd: number,
    Relay: NativeRelayClass,
  ) {
    this.relay = new Relay(() => this.news());
  }

  get running(): boolean {
    return this.on !== null;
  }

  start(ptyFd: number, screened: Uint8Array, on: KeyPathHandlers): boolean {
    if (this.closed || this.on !== null || this.tty.destroyed) return false;
    this.tty.pause();
    try {
      this.relay.start(this.ttyFd, ptyFd, screened);
    } catch {
      this.tty.resume();
      return false;
    }
    this.on = on;
    return true;
  }

  stop(): Buffer | null {
    const on = this.on;
    if (on === null) return null;
    this.on = null;
    this.relay.stop();
    const news = this.relay.take();
    this.tty.resume();
    if (news.typed > 0) on.typed();
    return news.held;
  }

  /** Stops for good (the terminal is let go). */
  close(): void {
    if (this.closed) return;
    this.stop();
    this.closed = true;
    this.relay.close();
  }

  /** The thread has news: keys written, or it stopped on its own (a read held back, the end). */
  private news(): void {
    const on = this.on;
    if (on === null) return; // a stop() took it already
    const news = this.relay.take();
    if (news.typed > 0) on.typed();
    if (news.held === null && news.ended === null) return;
    // The thread has ended: the stream reads again (and meets the terminal's end itself), and the
    // read it held back is routed next, before anything the stream reads from now on.
    this.stop();
    if (news.held !== null) on.held(news.held);
  }
}
