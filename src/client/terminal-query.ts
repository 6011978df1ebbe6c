// Asks the operator's terminal its name (XTVERSION: CSI > 0 q, answered DCS > | name ST) when a client
// attaches, so the server picks the notification sequence the terminal really shows (issue #37) even
// over SSH, where TERM_PROGRAM and the like do not travel. A DA1 request (CSI c) follows it: nearly
// every terminal answers DA1, and answers in order, so its reply ends the wait at once whether or not
// XTVERSION was understood — a terminal that does not know XTVERSION costs one round trip, not a
// timeout. A terminal that answers neither costs the bound (QUERY_MS), after which attaching goes on.
// Whatever else came in meanwhile (keys typed during the wait) is handed back to be sent as input.

/** The most a silent terminal delays attaching. */
export const QUERY_MS = 200;
/** The queries, in the order the replies are awaited. */
export const TERMINAL_QUERY = '\x1b[>0q\x1b[c';
/** The most reply bytes kept while waiting (a terminal's answer is a few dozen). */
const MAX_REPLY_BYTES = 4096;

// DCS > | text ST (ST is ESC \ or, from some terminals, BEL).
const XTVERSION_REPLY = /\x1bP>\|([^\x1b\x07]{0,200})(?:\x1b\\|\x07)/;
// DA1: CSI ? params c.
const DA1_REPLY = /\x1b\[\?[0-9;]*c/;

export interface TerminalReplies {
  /** The terminal's name and version as it answered XTVERSION, if it did. */
  xtversion?: string;
  /** True once the DA1 reply came: nothing more is coming. */
  done: boolean;
  /** Bytes that were not replies (keys the operator typed), to send on as input. */
  rest: Buffer;
}

/** The replies in what the terminal sent so far. */
export function parseTerminalReplies(bytes: Buffer): TerminalReplies {
  let text = bytes.toString('latin1');
  const version = XTVERSION_REPLY.exec(text);
  if (version) text = text.slice(0, version.index) + text.slice(version.index + version[0].length);
  const da1 = DA1_REPLY.exec(text);
  if (da1) text = text.slice(0, da1.index) + text.slice(da1.index + da1[0].length);
  return {
    ...(version ? { xtversion: Buffer.from(version[1]!, 'latin1').toString('utf8') } : {}),
    done: da1 !== null,
    rest: Buffer.from(text, 'latin1'),
  };
}

/**
 * Writes the queries to `output` and reads `input` (a terminal in raw mode) until the DA1 reply or
 * `timeoutMs`; resolves with what was learned. `input` is left paused, its listener removed.
 */
export function queryTerminal(input: NodeJS.ReadStream, output: NodeJS.WriteStream, timeoutMs = QUERY_MS): Promise<TerminalReplies> {
  return new Promise((resolve) => {
    let got = Buffer.alloc(0);
    const finish = (): void => {
      clearTimeout(timer);
      input.off('data', onData);
      input.pause();
      const r = parseTerminalReplies(got);
      resolve(r);
    };
    const onData = (chunk: Buffer | string): void => {
      got = Buffer.concat([got, typeof chunk === 'string' ? Buffer.from(chunk) : chunk]);
      if (got.length > MAX_REPLY_BYTES || parseTerminalReplies(got).done) finish();
    };
    const timer = setTimeout(finish, timeoutMs);
    input.on('data', onData);
    input.resume();
    output.write(TERMINAL_QUERY);
  });
}
