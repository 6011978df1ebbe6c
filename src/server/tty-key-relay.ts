// The operator's plain keystrokes go from their terminal to the attached row's pty on a thread of
// their own (native/key-relay.c), for a terminal the server reads itself (client-tty.ts), and
// their echo comes back onto the terminal the same way: the event loop is woken by neither, only
// afterwards, to parse. The input router decides when the keys run there (KeyPath), the painter
// when an echo may (EchoPath); this is the terminal's half of both.
import type { ReadStream } from 'node:tty';
import type { OutputLender, OutputLoan } from '../rows/pty-output-loan.js';
import type { EchoPath } from '../terminal/dashboard-painter.js';
import type { KeyPath, KeyPathHandlers } from '../terminal/input-router.js';
import { handleFd, requireNativeAddon } from '../util/native-addon.js';

/** What the thread did since the last look (native/key-relay.c, take()). */
interface RelayNews {
  /** Reads it wrote to the pty. */
  typed: number;
  /** The read it stopped on, not written (a screened byte, a pty that took only part), or null. */
  held: Buffer | null;
  /** Why it stopped otherwise: the terminal ended ('EOF') or failed (an errno name), the row's pty hung up ('ROW_GONE'); or null. */
  ended: string | null;
}

/** The row's output the thread read while armed (native/key-relay.c, output()). */
interface RelayOutput {
  /** Oldest first; echoed: it went to the terminal ahead. */
  chunks: Array<{ data: Buffer; echoed: boolean }>;
  /** Armed still: each read was an echo that fit. */
  armed: boolean;
  /** The part of an echo the terminal has not taken yet (written before anything else), or null. */
  rest: Buffer | null;
}

interface NativeRelay {
  start(ttyFd: number, ptyFd: number, screened: Uint8Array): void;
  stop(): void;
  take(): RelayNews;
  close(): void;
  arm(columns: number): boolean;
  output(disarm: boolean): RelayOutput;
}

type NativeRelayClass = new (notify: () => void) => NativeRelay;

// undefined: not tried yet (only a server with a terminal of a client's loads it).
let relayClass: NativeRelayClass | null | undefined;
let unavailable = '';

function loadRelay(): NativeRelayClass | null {
  if (relayClass !== undefined) return relayClass;
  const loaded = requireNativeAddon<{ KeyRelay?: NativeRelayClass }>('key_relay.node', 'the key relay');
  if (typeof loaded === 'string') {
    unavailable = loaded;
    return (relayClass = null);
  }
  relayClass = loaded.KeyRelay ?? null;
  if (!relayClass) unavailable = `the key relay is not built for ${process.platform}`;
  return relayClass;
}

/**
 * A KeyPath over `tty`, which must read in `onread` mode (openClientTty with onKeys): its pause()
 * then stops the stream's reads at once, and the thread is the terminal's only reader while it
 * runs. A string says why there is none (the router then routes every key itself).
 */
export function ttyKeyRelay(tty: ReadStream, writeTerminal: (data: string) => void): TtyKeyRelay | string {
  const Relay = loadRelay();
  if (!Relay) return unavailable;
  const fd = handleFd(tty);
  if (fd === undefined) return 'the terminal stream has no descriptor to hand over';
  return new TtyKeyRelay(tty, fd, Relay, writeTerminal);
}

/** An echo armed: the row whose output the thread reads, and who hears of it. */
interface ArmedEcho {
  source: OutputLender;
  loan: OutputLoan;
  landed: (chunk: Buffer, echoed: boolean) => void;
}

export class TtyKeyRelay implements KeyPath, EchoPath {
  private readonly relay: NativeRelay;
  /** Set while the thread runs. */
  private on: KeyPathHandlers | null = null;
  private echo: ArmedEcho | null = null;
  private closed = false;
  /** The client still reads the terminal for its query's replies (client-wire TERMINAL): the thread may not. */
  private clientReads = false;

  constructor(
    private readonly tty: ReadStream,
    private readonly ttyFd: number,
    Relay: NativeRelayClass,
    /** Writes to the terminal straight (the connection's own writer, not one that disarms). */
    private readonly writeTerminal: (data: string) => void,
  ) {
    this.relay = new Relay(() => this.news());
  }

  /**
   * While the keys run on the thread: it reads `source`'s next output itself (node-pty's reads
   * stop meanwhile) and, when that can only mean "print these characters here" with `columns`
   * left on the cursor's line, writes it onto the terminal before the event loop wakes. `landed`
   * hears of it (echoed or not) before the row gets it. Any write to the terminal disarms it
   * first (disarmEcho). False when it cannot be armed now.
   */
  arm(source: OutputLender, columns: number, landed: (chunk: Buffer, echoed: boolean) => void): boolean {
    if (this.on === null) return false;
    if (this.echo !== null) {
      if (this.echo.source !== source) return false;
      this.echo.landed = landed;
      return this.relay.arm(columns);
    }
    const loan = source.lendOutput(() => this.disarmEcho());
    if (!loan) return false;
    if (!this.relay.arm(columns)) {
      loan.end();
      return false;
    }
    this.echo = { source, loan, landed };
    return true;
  }

  /**
   * The thread reads no more output; what it read lands now — or, `later`, in a microtask (a paint
   * is being written: the row must not paint again inside it), still ahead of anything node-pty
   * reads, since the loan ends only then. What the terminal did not take of an echo goes first.
   */
  disarmEcho(later = false): void {
    const echo = this.echo;
    if (echo === null) return;
    this.echo = null;
    this.land(echo, this.relay.output(true), true, later);
  }

  /** What the thread read so far lands now (and goes on to the row); it reads on if still armed. */
  landEcho(): void {
    const echo = this.echo;
    if (echo === null) return;
    const out = this.relay.output(false);
    // Not armed any more (output that was no echo, a full hold, the pty's end): the loan ends.
    if (!out.armed) this.echo = null;
    this.land(echo, out, !out.armed, false);
  }

  /** The output read lands (and goes on to the row), in order; `end`: the loan with it. */
  private land(echo: ArmedEcho, out: RelayOutput, end: boolean, later: boolean): void {
    if (out.rest) this.writeTerminal(out.rest.toString('latin1'));
    const finish = (): void => {
      for (const { data, echoed } of out.chunks) {
        echo.landed(data, echoed);
        echo.loan.deliver(data);
      }
      if (end) echo.loan.end();
    };
    if (later) queueMicrotask(finish);
    else finish();
  }

  get running(): boolean {
    return this.on !== null;
  }

  /** The thread starts no reads until handedOver(): the client reads the terminal meanwhile. */
  waitForHandover(): void {
    this.clientReads = true;
  }

  /** The client reads its terminal no more: the next key read may start the thread. */
  handedOver(): void {
    this.clientReads = false;
  }

  start(ptyFd: number, screened: Uint8Array, on: KeyPathHandlers): boolean {
    if (this.closed || this.clientReads || this.on !== null || this.tty.destroyed) return false;
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
    this.disarmEcho();
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
    this.landEcho();
    if (news.held === null && news.ended === null) return;
    // The thread has ended: the stream reads again (and meets the terminal's end itself), and the
    // read it held back is routed next, before anything the stream reads from now on.
    this.stop();
    if (news.held !== null) on.held(news.held);
  }
}
