// Picks a terminal's answers to the client's query (terminal-query.ts: XTVERSION, then DA1 as the
// end marker) out of what the terminal sends, while the operator may already be typing. The query
// runs beside attaching (issue #33), so its replies come in the same stream as the keys, in any
// order, and a reply may be cut across two reads. What is a key goes on at once, in order; what
// could still become a reply (an ESC and what follows it, as far as a reply's shape allows) waits
// for the next read; a reply never goes on as a key. Latin1 throughout: one char per byte.

// DCS > | text ST (ST is ESC \ or, from some terminals, BEL), at one position.
const XTVERSION_REPLY = /\x1bP>\|([^\x1b\x07]{0,200})(?:\x1b\\|\x07)/y;
// DA1: CSI ? params c, at one position.
const DA1_REPLY = /\x1b\[\?[0-9;]*c/y;
// The start of either, cut off by the end of a read (a lone ESC, an Alt-P, a half name).
const REPLY_START = /^\x1b(?:P(?:>(?:\|[^\x1b\x07]{0,200}\x1b?)?)?|\[(?:\?[0-9;]*)?)?$/;

export class TerminalReplyFilter {
  /** The terminal's name and version as it answered XTVERSION, once it did. */
  xtversion: string | undefined;
  /** The DA1 reply came: nothing more is coming, and every later byte is a key. */
  done = false;
  /** The tail of the last read that may be the start of a reply (at most a reply's length). */
  private held = '';

  /** The keys in `chunk` (with what was held before it, now known to be keys), replies taken out. */
  push(chunk: Buffer): Buffer {
    if (this.done) return chunk;
    const text = this.held + chunk.toString('latin1');
    this.held = '';
    let keys = '';
    let from = 0;
    for (;;) {
      const esc = text.indexOf('\x1b', from);
      if (esc < 0) {
        keys += text.slice(from);
        break;
      }
      keys += text.slice(from, esc);
      if (this.xtversion === undefined) {
        XTVERSION_REPLY.lastIndex = esc;
        const version = XTVERSION_REPLY.exec(text);
        if (version) {
          this.xtversion = Buffer.from(version[1]!, 'latin1').toString('utf8');
          from = XTVERSION_REPLY.lastIndex;
          continue;
        }
      }
      DA1_REPLY.lastIndex = esc;
      if (DA1_REPLY.exec(text)) {
        this.done = true;
        keys += text.slice(DA1_REPLY.lastIndex);
        break;
      }
      if (REPLY_START.test(text.slice(esc))) {
        this.held = text.slice(esc);
        break;
      }
      keys += '\x1b';
      from = esc + 1;
    }
    return Buffer.from(keys, 'latin1');
  }

  /** What is held, given up as keys (the wait is over: no reply will complete it). */
  flush(): Buffer {
    const held = Buffer.from(this.held, 'latin1');
    this.held = '';
    return held;
  }
}
