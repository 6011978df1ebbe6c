// One thin client on the server's socket, from its HELLO to its end. Its RESIZE frames are the
// size. Its terminal is, when the server can open it (client-tty.ts), read and written by the
// server itself; otherwise this connection relays it: INPUT frames are the keys and what the
// client's dashboard draws goes back as OUTPUT. A terminal that stops reading (a SIGSTOPped relaying
// client, a dead SSH link, XOFF) must cost the server nothing but a bounded buffer: past the backlog
// limit its output is dropped, and once it reads again it gets one full redraw — the rows never
// wait for it.
import type { Socket } from 'node:net';
import type { ReadStream } from 'node:tty';
import {
  CLIENT_WIRE,
  encodeFrame,
  encodeJsonFrame,
  FRAME,
  FrameDecoder,
  FrameError,
  FROM_CLIENT,
  MAX_HELLO_BYTES,
  MAX_TERMINAL_BYTES,
  MAX_TERMINAL_QUERY_MS,
  parseClientTerminal,
  parseSize,
  parseTerminalFrame,
  TERMINAL_HANDOVER_GRACE_MS,
  type ByeFrame,
  type ClientTerminalReport,
  type HelloFrame,
  type WelcomeFrame,
} from '../protocol/client-wire.js';
import { systemClock, type Clock } from '../util/clock.js';
import { Emitter } from '../util/event.js';
import type { Disposable } from '../util/lifecycle.js';
import { TimerSlot } from '../util/timer-slot.js';
import type { ClientSession, ClientTerminal } from './client-session.js';
import { ttyWriter } from './client-tty.js';
import { ttyKeyRelay, type TtyKeyRelay } from './tty-key-relay.js';
import { markFirstCall, startMark } from '../util/start-trace.js';

/** Output a client may leave unread before the server stops writing to it (then redraws once it reads). */
export const CLIENT_BACKLOG_BYTES = 2 * 1024 * 1024;
/** A connection that has not said HELLO by then is closed. */
const HELLO_TIMEOUT_MS = 10_000;
/** How long a leaving client's terminal may take to take its last bytes (the restore) before its BYE. */
const TTY_FLUSH_MS = 500;
/** How long a closed connection's socket may take to carry the BYE before it is cut. */
const BYE_GRACE_MS = 1000;

export interface ClientConnectionOptions {
  socket: Socket;
  /** The server's version, for WELCOME. */
  version: string;
  /** Why this peer may not be a client (another uid, a process in a row), or null. */
  refusal: () => string | null;
  /** Starts the client's dashboard; a string refuses it with that sentence. */
  /** The session, or why not: a sentence (INTERNAL), or a code with its sentence (USAGE: a bad command line). */
  open: (hello: HelloFrame, terminal: ClientTerminal, connection: ClientConnection) => ClientSession | string | { code: string; message: string };
  /** Opens the client's terminal for the server to use itself (`onKeys` gets what is typed there), or says why not (it then relays). */
  openTty?: (onKeys: (chunk: Buffer) => void) => ReadStream | string;
  onClose: (connection: ClientConnection) => void;
  log: (line: string) => void;
  /** Times HELLO, the terminal's flush and the BYE's grace (default: the system clock). */
  clock?: Clock;
}

export class ClientConnection {
  private readonly decoder = new FrameDecoder(FROM_CLIENT);
  private session: ClientSession | null = null;
  private readonly inputEmitter = new Emitter<Buffer>();
  private sizeValue = { cols: 80, rows: 24 };
  private readonly resizeEmitter = new Emitter<void>();
  /** The terminal named itself after HELLO (TERMINAL): its whole report, HELLO's part with the answer. */
  private readonly namedEmitter = new Emitter<ClientTerminalReport>();
  /**
   * 'reading': the client still reads its terminal for its query's replies (HELLO's terminalQueryMs)
   * and relays the keys; a terminal the server holds is read only once it hands over (TERMINAL).
   */
  private query: 'none' | 'reading' | 'handed over' = 'none';
  /** Takes the terminal from a client that announced a query and never sent its TERMINAL. */
  private readonly handoverTimer: TimerSlot;
  private helloTerminal: ClientTerminalReport = {};
  private dropping = false;
  private closed = false;
  private helloReceived = false;
  /** A BYE is on its way (after the terminal took its last bytes). */
  private leaving = false;
  /** The client's terminal when the server holds it; null while the connection relays. */
  private tty: ReadStream | null = null;
  /** Carries plain keys to an attached row while the server holds the terminal (tty-key-relay.ts). */
  private keyRelay: TtyKeyRelay | null = null;
  /** Writes to `tty` (see ttyWriter). */
  private writeTty: (data: string) => void = () => {};
  private readonly clock: Clock;
  private readonly helloTimer: Disposable;
  /** Bytes of output dropped while the client did not read (for the log). */
  private droppedBytes = 0;

  constructor(private readonly o: ClientConnectionOptions) {
    const { socket } = o;
    this.clock = o.clock ?? systemClock;
    this.handoverTimer = new TimerSlot(this.clock);
    socket.on('data', (chunk: Buffer) => this.received(chunk));
    socket.on('drain', () => {
      if (!this.tty) this.drained(); // with the terminal held, only the terminal's drain counts
    });
    socket.on('error', () => this.close());
    socket.on('close', () => this.close());
    this.helloTimer = this.clock.setTimer(() => this.bye({ reason: 'refused', code: 'TIMEOUT', message: 'no HELLO within 10 s' }), HELLO_TIMEOUT_MS);
  }

  get attached(): boolean {
    return this.session !== null;
  }

  /**
   * Whether this peer ever said HELLO: a client, accepted or refused. A connection that never did
   * (a probe that connects and closes, a stranger's garbage) was never anyone's dashboard.
   */
  get saidHello(): boolean {
    return this.helloReceived;
  }

  private received(chunk: Buffer): void {
    if (this.closed) return;
    try {
      for (const frame of this.decoder.push(chunk)) {
        if (this.closed) return;
        this.frame(frame.type, frame.payload);
      }
    } catch (err) {
      if (!(err instanceof FrameError)) throw err;
      this.bye({ reason: 'refused', code: 'BAD_REQUEST', message: `the client sent a bad frame: ${err.message}` });
    }
  }

  private frame(type: number, payload: Buffer): void {
    if (type === FRAME.HELLO) {
      if (this.session) return this.bye({ reason: 'refused', code: 'BAD_REQUEST', message: 'HELLO was sent twice' });
      return this.hello(payload);
    }
    if (!this.session) return this.bye({ reason: 'refused', code: 'BAD_REQUEST', message: 'the first frame must be HELLO' });
    if (type === FRAME.INPUT) {
      this.inputEmitter.fire(payload);
      return;
    }
    if (type === FRAME.TERMINAL) return this.terminalNamed(payload);
    if (type === FRAME.DETACH) {
      this.session!.leave();
      return;
    }
    if (type === FRAME.RESIZE) {
      const size = parseSize(safeJson(payload));
      if (!size) return; // a nonsense size changes nothing
      if (size.cols === this.sizeValue.cols && size.rows === this.sizeValue.rows) return;
      // The terminal reflows: no echo at a cursor that was.
      this.keyRelay?.disarmEcho();
      this.sizeValue = size;
      this.resizeEmitter.fire();
    }
  }

  private hello(payload: Buffer): void {
    this.helloReceived = true;
    this.helloTimer.dispose();
    const refusal = this.o.refusal();
    if (refusal) return this.bye({ reason: 'refused', code: 'UNAUTHENTICATED', message: refusal });
    if (payload.length > MAX_HELLO_BYTES) return this.bye({ reason: 'refused', code: 'BAD_REQUEST', message: 'HELLO is too large' });
    const hello = parseHello(safeJson(payload));
    if (typeof hello === 'string') return this.bye({ reason: 'refused', code: 'BAD_REQUEST', message: hello });
    if (hello.wire !== CLIENT_WIRE) {
      return this.bye({
        reason: 'refused',
        code: 'VERSION_MISMATCH',
        message: `the running server is swb ${this.o.version} (wire ${CLIENT_WIRE}) and this client speaks wire ${hello.wire}; end it with swb kill-server (its rows end too) and start swb again`,
      });
    }
    this.sizeValue = { cols: hello.cols, rows: hello.rows };
    this.helloTerminal = hello.terminal ?? {};
    if (hello.terminalQueryMs !== undefined) {
      this.query = 'reading';
      this.handoverTimer.set(() => {
        this.o.log(`client sent no TERMINAL within ${hello.terminalQueryMs} ms of its query: the server reads its terminal now`);
        this.handOver();
      }, hello.terminalQueryMs + TERMINAL_HANDOVER_GRACE_MS);
    }
    if (hello.directTty && this.o.openTty) {
      this.holdTty(
        this.o.openTty((chunk) => {
          if (!this.closed && !this.leaving) this.inputEmitter.fire(chunk);
        }),
      );
    }
    const welcome: WelcomeFrame = {
      wire: CLIENT_WIRE,
      version: this.o.version,
      pid: process.pid,
      directTty: this.tty !== null,
      ...(this.query === 'reading' ? { terminalQuery: true } : {}),
    };
    this.send(encodeJsonFrame(FRAME.WELCOME, welcome));
    const terminal: ClientTerminal = {
      write: markFirstCall('first output to the client', (data: string) => this.output(data)),
      size: () => this.sizeValue,
      onResize: this.resizeEmitter.event,
      input: this.inputEmitter.event,
      named: this.namedEmitter.event,
      ...(this.keyRelay ? { keyPath: this.keyRelay, echoPath: this.keyRelay } : {}),
    };
    let opened: ClientSession | string | { code: string; message: string };
    try {
      opened = this.o.open(hello, terminal, this);
    } catch (err) {
      this.o.log(`client dashboard failed to open: ${(err as Error).stack ?? String(err)}`);
      opened = `the dashboard could not open: ${(err as Error).message}`;
    }
    if (typeof opened === 'string') return this.bye({ reason: 'refused', code: 'INTERNAL', message: opened });
    if ('code' in opened && typeof opened.code === 'string') return this.bye({ reason: 'refused', code: opened.code, message: opened.message });
    this.session = opened as ClientSession;
  }

  private holdTty(opened: ReadStream | string): void {
    if (typeof opened === 'string') {
      this.o.log(`client relays its terminal: ${opened}`);
      return;
    }
    const tty = opened;
    this.tty = tty;
    this.writeTty = ttyWriter(tty);
    const relay = ttyKeyRelay(tty, (data) => this.writeTty(data));
    if (typeof relay === 'string') this.o.log(`keys reach attached rows through the event loop: ${relay}`);
    else this.keyRelay = relay;
    // The keys come to openTty's onKeys; reading starts here, or once the client stops reading.
    if (this.query === 'reading') this.keyRelay?.waitForHandover();
    else tty.resume();
    tty.on('drain', () => this.drained());
    // The terminal hung up (SSH gone) or failed: the client is gone with it.
    tty.on('error', () => this.close());
    tty.on('end', () => this.close());
  }

  /** TERMINAL: the terminal's name, and the end of the client's reading of it. */
  private terminalNamed(payload: Buffer): void {
    if (this.query !== 'reading') return this.bye({ reason: 'refused', code: 'BAD_REQUEST', message: 'TERMINAL came without a query announced in HELLO, or twice' });
    if (payload.length > MAX_TERMINAL_BYTES) return this.bye({ reason: 'refused', code: 'BAD_REQUEST', message: `TERMINAL is over ${MAX_TERMINAL_BYTES} bytes` });
    const named = parseTerminalFrame(safeJson(payload));
    if (typeof named === 'string') return this.bye({ reason: 'refused', code: 'BAD_REQUEST', message: named });
    this.handOver();
    if (named.xtversion !== undefined) {
      startMark('terminal named');
      this.namedEmitter.fire({ ...this.helloTerminal, xtversion: named.xtversion });
    }
  }

  /** The client reads its terminal no more: the server reads a terminal it holds from here on. */
  private handOver(): void {
    if (this.query !== 'reading') return;
    this.query = 'handed over';
    this.handoverTimer.clear();
    if (!this.tty || this.closed || this.leaving) return;
    this.keyRelay?.handedOver();
    this.tty.resume();
  }

  private output(data: string): void {
    if (this.closed) return;
    // An echo armed on the key relay's thread writes at a cursor this write may move: disarmed first.
    this.keyRelay?.disarmEcho(true);
    const pending = this.tty ? this.tty.writableLength : this.o.socket.writableLength;
    if (this.dropping || pending > CLIENT_BACKLOG_BYTES) {
      // Not reading: drop, and paint everything again once it does.
      if (!this.dropping) this.o.log(`client ${this.tty ? 'terminal' : 'connection'} is not reading; its output is dropped until it does`);
      this.dropping = true;
      this.droppedBytes += data.length;
      return;
    }
    if (this.tty) this.writeTty(data);
    else this.send(encodeFrame(FRAME.OUTPUT, data));
  }

  private drained(): void {
    if (!this.dropping || this.closed) return;
    this.dropping = false;
    this.o.log(`client reads again after ${this.droppedBytes} dropped bytes: full redraw`);
    this.droppedBytes = 0;
    this.session?.redraw();
  }

  private send(frame: Buffer): void {
    if (!this.closed && !this.o.socket.destroyed) this.o.socket.write(frame);
  }

  /**
   * Tells the client why it ends, restores its terminal (through its dashboard) and closes. A
   * terminal the server holds is let go first, once it took the restore: the client prints its
   * goodbye and hands the terminal back to its shell only after the BYE, and the server must not
   * read a key of the shell's by then.
   */
  bye(bye: ByeFrame): void {
    if (this.closed || this.leaving) return;
    this.leaving = true;
    this.dropping = false; // the restore the dashboard writes on its way out is worth a try
    this.disposeSession();
    this.releaseTty(() => {
      this.send(encodeJsonFrame(FRAME.BYE, bye));
      this.o.socket.end();
      this.close();
    });
  }

  private releaseTty(then: () => void): void {
    const tty = this.tty;
    if (!tty) return then();
    this.keyRelay?.close();
    tty.pause(); // keys typed from now on stay in the terminal, for whoever reads it next
    let done = false;
    const release = () => {
      if (done) return;
      done = true;
      timer.dispose();
      this.dropTty();
      then();
    };
    const timer = this.clock.setTimer(release, TTY_FLUSH_MS);
    if (tty.writableLength === 0) release();
    else tty.once('drain', release);
  }

  private dropTty(): void {
    const tty = this.tty;
    this.tty = null;
    // The thread reads and writes duplicates of its own; it is stopped before the terminal goes all the same.
    this.keyRelay?.close();
    this.keyRelay = null;
    tty?.destroy();
  }

  /** Ends the client's dashboard (its terminal restored) but keeps the connection for a BYE. */
  endDashboard(): void {
    this.disposeSession();
  }

  private disposeSession(): void {
    const s = this.session;
    this.session = null;
    try {
      s?.dispose();
    } catch (err) {
      this.o.log(`client dashboard did not close cleanly: ${(err as Error).stack ?? String(err)}`);
    }
  }

  private close(): void {
    if (this.closed) return;
    this.disposeSession();
    this.closed = true;
    this.dropTty();
    this.helloTimer.dispose();
    this.handoverTimer.dispose();
    this.resizeEmitter.dispose();
    this.namedEmitter.dispose();
    this.inputEmitter.dispose();
    // Give a polite client the BYE; a dead one is cut off at once.
    if (!this.o.socket.destroyed) this.clock.setTimer(() => this.o.socket.destroy(), BYE_GRACE_MS);
    this.o.onClose(this);
  }
}

function safeJson(payload: Buffer): unknown {
  try {
    return JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined;
  }
}

const MAX_ARGS = 256;
const MAX_ARG_BYTES = 4096;

/** A HELLO, or the sentence saying what is wrong with it. */
export function parseHello(value: unknown): HelloFrame | string {
  if (typeof value !== 'object' || value === null) return 'HELLO is not a JSON object';
  const v = value as Record<string, unknown>;
  if (typeof v.wire !== 'number' || !Number.isInteger(v.wire)) return 'HELLO has no wire number';
  if (typeof v.version !== 'string' || v.version.length > 64) return 'HELLO has no version';
  const size = parseSize(v);
  if (!size) return 'HELLO has no terminal size (cols and rows, 1-10000)';
  if (typeof v.cwd !== 'string' || !v.cwd.startsWith('/') || v.cwd.length > 4096 || v.cwd.includes('\0')) return 'HELLO has no absolute cwd';
  if (!Array.isArray(v.args) || v.args.length > MAX_ARGS) return `HELLO args must be a list of at most ${MAX_ARGS} strings`;
  for (const a of v.args) {
    if (typeof a !== 'string' || Buffer.byteLength(a) > MAX_ARG_BYTES || a.includes('\0')) return `each HELLO arg must be a string of at most ${MAX_ARG_BYTES} bytes`;
  }
  if (v.directTty !== undefined && typeof v.directTty !== 'boolean') return 'HELLO directTty must be true or false';
  const queryMs = v.terminalQueryMs;
  if (queryMs !== undefined && !(typeof queryMs === 'number' && Number.isInteger(queryMs) && queryMs >= 1 && queryMs <= MAX_TERMINAL_QUERY_MS)) {
    return `HELLO terminalQueryMs must be a whole number of ms, 1-${MAX_TERMINAL_QUERY_MS}`;
  }
  // The terminal's names only choose a notification sequence: odd ones are dropped, never refused.
  const terminal = parseClientTerminal(v.terminal);
  return {
    wire: v.wire,
    version: v.version,
    cols: size.cols,
    rows: size.rows,
    cwd: v.cwd,
    args: v.args as string[],
    ...(v.directTty === true ? { directTty: true } : {}),
    ...(Object.keys(terminal).length > 0 ? { terminal } : {}),
    ...(queryMs !== undefined ? { terminalQueryMs: queryMs } : {}),
  };
}
