// Asks the operator's terminal its name (XTVERSION: CSI > 0 q, answered DCS > | name ST) when a client
// attaches, so the server picks the notification sequence the terminal really shows (issue #37) even
// over SSH, where TERM_PROGRAM and the like do not travel. A DA1 request (CSI c) follows it: nearly
// every terminal answers DA1, and answers in order, so its reply ends the query at once whether or
// not XTVERSION was understood. A terminal that answers neither ends it at the bound.
//
// Attaching does not wait for it (issue #33: the wait was most of `swb attach`'s time, and a slow
// SSH link pays a whole round trip). The client says HELLO at once and reads its terminal itself
// until the query ends: keys typed meanwhile go on as input, in order, at once; the replies are
// taken out of the stream (terminal-reply-filter.ts) and never reach a row. Then the client tells
// the server the name in a frame of its own (client-wire TERMINAL) and hands the terminal over.

import { MAX_TERMINAL_QUERY_MS } from '../protocol/client-wire.js';
import { systemClock, type Clock } from '../util/clock.js';
import type { Disposable } from '../util/lifecycle.js';
import { TimerSlot } from '../util/timer-slot.js';
import { TerminalReplyFilter } from './terminal-reply-filter.js';

/**
 * The most the client reads its terminal for the replies. Attaching no longer waits for it: it is
 * how long a terminal behind a slow link may take to answer before its reply would be taken for keys.
 */
export const QUERY_MS = 1000;
/** The queries, in the order the replies come. */
export const TERMINAL_QUERY = '\x1b[>0q\x1b[c';

export interface TerminalAnswer {
  /** The terminal's name and version as it answered XTVERSION, if it did. */
  xtversion?: string;
  /** The DA1 reply came (false: the bound passed first). */
  answered: boolean;
}

/**
 * The bound the environment sets (SWB_TERMINAL_QUERY_MS, whole ms up to the wire's most; a test's
 * terminal that answers when the test says), or QUERY_MS.
 */
export function queryBoundFromEnv(env: NodeJS.ProcessEnv): number {
  const ms = Number(env.SWB_TERMINAL_QUERY_MS);
  return Number.isInteger(ms) && ms >= 1 && ms <= MAX_TERMINAL_QUERY_MS ? ms : QUERY_MS;
}

export interface TerminalQueryOptions {
  /** The terminal's keys, raw mode on. */
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
  /** Keys typed while the query runs, in order, replies taken out. */
  onKeys: (keys: Buffer) => void;
  /** The query ended (answered, or the bound passed, or stop()); `input` is paused, its listener gone. */
  onDone: (answer: TerminalAnswer) => void;
  timeoutMs?: number;
  clock?: Clock;
}

export class TerminalQuery implements Disposable {
  private readonly filter = new TerminalReplyFilter();
  private readonly bound: TimerSlot;
  private running = false;
  private ended = false;
  private readonly onData = (chunk: Buffer | string): void => {
    const keys = this.filter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    if (keys.length > 0) this.o.onKeys(keys);
    if (this.filter.done) this.stop();
  };

  constructor(private readonly o: TerminalQueryOptions) {
    this.bound = new TimerSlot(o.clock ?? systemClock);
  }

  /** Writes the queries and reads the terminal until the DA1 reply or the bound. */
  start(): void {
    if (this.running || this.ended) return;
    this.running = true;
    this.o.output.write(TERMINAL_QUERY);
    this.o.input.on('data', this.onData);
    this.o.input.resume();
    this.bound.set(() => this.stop(), this.o.timeoutMs ?? QUERY_MS);
  }

  get done(): boolean {
    return this.ended;
  }

  /** Ends the query now: what the terminal sent that is not a reply goes on as keys, then onDone. */
  stop(): void {
    if (this.ended) return;
    this.ended = true;
    this.bound.dispose();
    if (this.running) {
      const { input } = this.o;
      input.off('data', this.onData);
      input.pause();
      // A read that landed in the stream's buffer rather than at the listener is keys too.
      for (let chunk: Buffer | string | null; input.readableLength > 0 && (chunk = input.read() as Buffer | string | null) !== null; ) this.onData(chunk);
      const held = this.filter.flush();
      if (held.length > 0) this.o.onKeys(held);
    }
    this.o.onDone({ ...(this.filter.xtversion !== undefined ? { xtversion: this.filter.xtversion } : {}), answered: this.filter.done });
  }

  /** Ends the query without a word to anyone (the client is leaving). */
  dispose(): void {
    if (this.ended) return;
    this.ended = true;
    this.bound.dispose();
    this.o.input.off('data', this.onData);
  }
}
