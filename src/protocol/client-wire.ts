// The wire between a thin client (`swb`, `swb attach`) and the workspace server: length-prefixed
// frames over the server's Unix socket — one type byte, a 4-byte big-endian length, the payload.
// Terminal bytes travel as they are (no JSON, no base64: this is the echo path); the few control
// frames carry JSON. Sizes are bounded before anything is buffered.
//
// client → server: HELLO (JSON, first and once), INPUT (raw terminal bytes), RESIZE (JSON),
//   DETACH (empty: leave as the detach key does; sent on SIGTSTP to a client whose terminal the
//   server holds, so the shell taking the terminal back never shares it with the server),
//   TERMINAL (JSON, once, only after a HELLO with `terminalQueryMs`: the terminal's answer to the
//   client's query, which ran beside attaching; it also hands the terminal's keys to a server that
//   holds the terminal, since the client read them itself until then)
// server → client: WELCOME (JSON, answers HELLO), OUTPUT (bytes for the terminal), BYE (JSON, last)
// When WELCOME says `directTty`, the server reads and writes the client's terminal itself
// (server/client-tty.ts): no INPUT or OUTPUT flows, only RESIZE and BYE. An older peer on either
// side leaves the field out, and the two relay as before.
//
// The wire number only changes when a frame's meaning does; an older server that speaks another
// wire is told apart from a broken one by its BYE, so an upgraded client can say what to do.

export const CLIENT_WIRE = 1;

export const FRAME = {
  HELLO: 1,
  INPUT: 2,
  RESIZE: 3,
  DETACH: 4,
  TERMINAL: 5,
  WELCOME: 16,
  OUTPUT: 17,
  BYE: 18,
} as const;
export type FrameType = (typeof FRAME)[keyof typeof FRAME];

const HEADER = 5;
/** Largest frame either side accepts (a pasted megabyte, a full-screen frame of a huge terminal). */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;
/** Largest HELLO: a command line of rows and a few fields. */
export const MAX_HELLO_BYTES = 64 * 1024;
/** Largest TERMINAL: one short name. */
export const MAX_TERMINAL_BYTES = 1024;
/** The longest query a HELLO may announce (terminalQueryMs). */
export const MAX_TERMINAL_QUERY_MS = 60_000;
/** How much longer than the announced query a server waits for TERMINAL before it reads the terminal anyway. */
export const TERMINAL_HANDOVER_GRACE_MS = 1000;

export interface HelloFrame {
  wire: number;
  /** The client's swb version (package.json). */
  version: string;
  cols: number;
  rows: number;
  /** Where the client runs: rows named on its command line start here. */
  cwd: string;
  /** The dashboard arguments (rows, --layout, --theme), parsed by the server as `swb` would. */
  args: string[];
  /**
   * The client's stdin and stdout are one terminal, and the server may read and write it itself
   * (it opens it through the client's pid, never a path the client names). Absent: relay.
   */
  directTty?: boolean;
  /**
   * What the client's environment says about its terminal (TERM, TERM_PROGRAM, WT_SESSION,
   * KITTY_WINDOW_ID), for the notification sequence it takes. Untrusted: the server keeps only
   * short printable words (parseClientTerminal). Absent: an older client, or nothing known.
   */
  terminal?: ClientTerminalReport;
  /**
   * The client asked its terminal its name and reads the terminal itself (keys go on as INPUT)
   * for at most this many ms, until it sends TERMINAL. A server holding the terminal reads it only
   * from then on. Absent: no query (or an older client, whose HELLO carries the answer in `terminal`).
   */
  terminalQueryMs?: number;
}

/** The client's terminal named itself (or did not, within the client's bound). */
export interface TerminalFrame {
  /** The terminal's answer to XTVERSION; absent when it gave none. */
  xtversion?: string;
}

/**
 * A TERMINAL frame's JSON, or the sentence saying why it is not one. A name that is no short plain
 * word is dropped (as in parseClientTerminal), not refused.
 */
export function parseTerminalFrame(value: unknown): TerminalFrame | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'TERMINAL is not a JSON object';
  const { xtversion } = parseClientTerminal({ xtversion: (value as Record<string, unknown>).xtversion });
  return xtversion !== undefined ? { xtversion } : {};
}

/** A client's terminal as its environment names it (the shape src/notify's TerminalReport reads). */
export interface ClientTerminalReport {
  term?: string;
  termProgram?: string;
  /** WT_SESSION is set: Windows Terminal. */
  windowsTerminal?: boolean;
  /** KITTY_WINDOW_ID is set. */
  kittyWindow?: boolean;
  /** The terminal's own answer to XTVERSION ("kitty(0.35.2)", "WezTerm 20240203-110809-5046fc22"). */
  xtversion?: string;
}

/** Longest XTVERSION name kept; its characters are a name's and a version's, and spaces. */
const MAX_XTVERSION = 64;
const XTVERSION_TEXT = /^[A-Za-z0-9._+() -]+$/;

/** Longest TERM or TERM_PROGRAM kept ("xterm-256color", "iTerm.app", "WezTerm"). */
const MAX_TERMINAL_WORD = 64;
const TERMINAL_WORD = /^[A-Za-z0-9._+-]+$/;

/**
 * The terminal report a peer sent, kept to what can be trusted: each name a short word of letters,
 * digits and . _ + - (anything else is dropped, never refused: a client with an odd TERM still
 * attaches), the two flags only when true, the XTVERSION answer only as a short plain name. Never throws.
 */
export function parseClientTerminal(value: unknown): ClientTerminalReport {
  if (typeof value !== 'object' || value === null) return {};
  const v = value as Record<string, unknown>;
  const word = (w: unknown): w is string => typeof w === 'string' && w.length <= MAX_TERMINAL_WORD && TERMINAL_WORD.test(w);
  return {
    ...(word(v.term) ? { term: v.term } : {}),
    ...(word(v.termProgram) ? { termProgram: v.termProgram } : {}),
    ...(v.windowsTerminal === true ? { windowsTerminal: true } : {}),
    ...(v.kittyWindow === true ? { kittyWindow: true } : {}),
    ...(typeof v.xtversion === 'string' && v.xtversion.length <= MAX_XTVERSION && XTVERSION_TEXT.test(v.xtversion) ? { xtversion: v.xtversion } : {}),
  };
}

export interface WelcomeFrame {
  wire: number;
  version: string;
  pid: number;
  /** The server holds the client's terminal: the client sends no INPUT and gets no OUTPUT. */
  directTty?: boolean;
  /** The server waits for the TERMINAL the HELLO announced (an older server leaves it out: send none). */
  terminalQuery?: boolean;
}

export interface ByeFrame {
  /** detached: the operator left (rows run on); stopped: the server ended; refused: never attached. */
  reason: 'detached' | 'stopped' | 'refused';
  code?: string;
  message: string;
}

export function encodeFrame(type: FrameType, payload: Buffer | string): Buffer {
  // One allocation and one copy: this runs for every painted frame and every keystroke.
  const length = typeof payload === 'string' ? Buffer.byteLength(payload, 'utf8') : payload.length;
  const frame = Buffer.allocUnsafe(HEADER + length);
  frame.writeUInt8(type, 0);
  frame.writeUInt32BE(length, 1);
  if (typeof payload === 'string') frame.write(payload, HEADER, 'utf8');
  else payload.copy(frame, HEADER);
  return frame;
}

export function encodeJsonFrame(type: FrameType, value: unknown): Buffer {
  return encodeFrame(type, JSON.stringify(value));
}

export class FrameError extends Error {}

/**
 * Cuts a byte stream into frames. Throws FrameError on a length over `maxBytes` (before buffering
 * the body) or an unknown type: the connection is then beyond repair and is closed.
 */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(
    private readonly known: ReadonlySet<number>,
    private readonly maxBytes = MAX_FRAME_BYTES,
  ) {}

  *push(chunk: Buffer): Generator<{ type: FrameType; payload: Buffer }> {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    for (;;) {
      if (this.buffered < HEADER) return;
      const head = this.peek(HEADER);
      const type = head.readUInt8(0);
      const length = head.readUInt32BE(1);
      if (!this.known.has(type)) throw new FrameError(`unknown frame type ${type}`);
      if (length > this.maxBytes) throw new FrameError(`a frame of ${length} bytes is over the limit of ${this.maxBytes}`);
      if (this.buffered < HEADER + length) return;
      const all = this.take(HEADER + length);
      yield { type: type as FrameType, payload: all.subarray(HEADER) };
    }
  }

  private peek(n: number): Buffer {
    if (this.chunks[0]!.length >= n) return this.chunks[0]!;
    const joined = Buffer.concat(this.chunks);
    this.chunks = [joined];
    return joined;
  }

  private take(n: number): Buffer {
    const joined = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.chunks = joined.length > n ? [joined.subarray(n)] : [];
    this.buffered -= n;
    return joined.subarray(0, n);
  }
}

export const FROM_CLIENT: ReadonlySet<number> = new Set([FRAME.HELLO, FRAME.INPUT, FRAME.RESIZE, FRAME.DETACH, FRAME.TERMINAL]);
export const FROM_SERVER: ReadonlySet<number> = new Set([FRAME.WELCOME, FRAME.OUTPUT, FRAME.BYE]);

/** A terminal size from a peer, or null when it is not one (bounded like a real terminal's). */
export function parseSize(value: unknown): { cols: number; rows: number } | null {
  if (typeof value !== 'object' || value === null) return null;
  const { cols, rows } = value as Record<string, unknown>;
  const ok = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 10_000;
  return ok(cols) && ok(rows) ? { cols, rows } : null;
}
