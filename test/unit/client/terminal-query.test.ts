// The client's question to its terminal (XTVERSION, then DA1 as the end marker), which runs beside
// attaching (issue #33): the replies picked out of what the terminal sends, the keys typed meanwhile
// — before, between and after the replies, a reply cut across reads — going on at once and in order,
// never a reply byte among them, and a terminal that never answers ending the query at the bound —
// through a real pty (node-pty) standing in for the operator's terminal.
import pty from 'node-pty';
import { describe, expect, it } from 'vitest';
import { TERMINAL_QUERY } from '../../../src/client/terminal-query.js';
import { TerminalReplyFilter } from '../../../src/client/terminal-reply-filter.js';
import { parseClientTerminal } from '../../../src/protocol/client-wire.js';
import { detectTerminalKind } from '../../../src/notify/terminal-detect.js';

/** The filter's view of one whole read: the keys, the name, whether the query is over. */
function parseAll(text: string): { xtversion?: string; done: boolean; rest: Buffer } {
  const f = new TerminalReplyFilter();
  const rest = Buffer.concat([f.push(Buffer.from(text)), f.flush()]);
  return { ...(f.xtversion !== undefined ? { xtversion: f.xtversion } : {}), done: f.done, rest };
}

/** Reads fed one by one: the keys each read gave at once (as text), and the filter after them. */
function feed(reads: readonly string[]): { keys: string[]; filter: TerminalReplyFilter } {
  const filter = new TerminalReplyFilter();
  return { keys: reads.map((r) => filter.push(Buffer.from(r, 'latin1')).toString('latin1')), filter };
}

describe('terminal query', () => {
  it('reads the XTVERSION name and the DA1 end marker, in either ST form, and keeps other bytes as typed keys', () => {
    expect(parseAll('\x1bP>|kitty(0.35.2)\x1b\\\x1b[?62;c')).toEqual({ xtversion: 'kitty(0.35.2)', done: true, rest: Buffer.alloc(0) });
    expect(parseAll('ab\x1bP>|WezTerm 20240203\x07c\x1b[?1;2c')).toEqual({ xtversion: 'WezTerm 20240203', done: true, rest: Buffer.from('abc') });
    // No XTVERSION answer (the terminal does not know it): DA1 alone ends the wait.
    expect(parseAll('\x1b[?64;1;2;6;9;15;18;21;22c')).toEqual({ done: true, rest: Buffer.alloc(0) });
    // Not yet complete: keep waiting.
    expect(parseAll('\x1bP>|foot(1.16')).toMatchObject({ done: false });
    expect(TERMINAL_QUERY).toBe('\x1b[>0q\x1b[c');
  });

  it('keys interleaved with the replies go on at once and in order; a reply cut across reads never leaks a byte', () => {
    // Keys before, between and after the replies; the name cut in three reads, its ST in two.
    const { keys, filter } = feed(['ls', ' -l\x1bP>', '|foot(1.1', '6.2)\x1b', '\\\r\x1b[A', 'x\x1b[?62', ';22c', 'yz\x1b[B']);
    expect(keys).toEqual(['ls', ' -l', '', '', '\r\x1b[A', 'x', '', 'yz\x1b[B']);
    expect(filter.xtversion).toBe('foot(1.16.2)');
    expect(filter.done).toBe(true);
    // After the end marker nothing is held back, even what looks like a reply.
    expect(filter.push(Buffer.from('\x1b[?1;2c\x1b')).toString('latin1')).toBe('\x1b[?1;2c\x1b');
  });

  it('an Escape or Alt key that could start a reply waits for the next read, and goes on as typed when it is none', () => {
    const { keys, filter } = feed(['a\x1b', 'b', '\x1bP', 'q', '\x1b[', 'C', '\x1b[?', '25h']);
    expect(keys).toEqual(['a', '\x1bb', '', '\x1bPq', '', '\x1b[C', '', '\x1b[?25h']);
    expect(filter.done).toBe(false);
    // The bound passed with an Escape last: it is a key after all.
    expect(filter.push(Buffer.from('\x1b')).length).toBe(0);
    expect(filter.flush().toString('latin1')).toBe('\x1b');
    // A name that runs on past any reply's length is no reply: its bytes are keys.
    const long = `\x1bP>|${'n'.repeat(300)}`;
    expect(parseAll(long).rest.toString('latin1')).toBe(long);
    // UTF-8 keys pass whole, split or not.
    const snow = Buffer.from('☃é');
    const split = new TerminalReplyFilter();
    expect(Buffer.concat([split.push(snow.subarray(0, 2)), split.push(snow.subarray(2))]).equals(snow)).toBe(true);
  });

  it("the name reaches detection only as a short plain word: a hostile reply is dropped, kitty's means OSC 99", () => {
    expect(parseClientTerminal({ xtversion: 'kitty(0.35.2)' })).toEqual({ xtversion: 'kitty(0.35.2)' });
    expect(parseClientTerminal({ xtversion: 'evil\x1b]0;x\x07' })).toEqual({});
    expect(parseClientTerminal({ xtversion: 'x'.repeat(65) })).toEqual({});
    expect(detectTerminalKind(parseClientTerminal({ xtversion: 'kitty(0.35.2)', term: 'xterm-256color' }))).toBe('osc99');
    expect(detectTerminalKind(parseClientTerminal({ xtversion: 'foot(1.16.2)' }))).toBe('osc777');
  });

  // The compiled module (npm run build): the child is plain node.
  it('through a real pty: a terminal that answers ends the wait at once; one that never answers costs only the bound', async () => {
    const script = `
      import { TerminalQuery } from ${JSON.stringify(new URL('../../../dist/src/client/terminal-query.js', import.meta.url).pathname)};
      process.stdin.setRawMode(true);
      const t0 = Date.now();
      let rest = '';
      const r = await new Promise((onDone) => new TerminalQuery({ input: process.stdin, output: process.stdout, timeoutMs: +process.argv[1], onKeys: (k) => (rest += k), onDone }).start());
      process.stdout.write('RESULT ' + JSON.stringify({ xtversion: r.xtversion ?? null, done: r.answered, rest, ms: Date.now() - t0 }) + '\\n');
      process.exit(0);`;
    const run = (answer: boolean, bound: number) =>
      new Promise<{ xtversion: string | null; done: boolean; rest: string; ms: number }>((resolve, reject) => {
        const p = pty.spawn(process.execPath, ['--input-type=module', '-e', script, String(bound)], { cols: 80, rows: 24, cwd: process.cwd(), env: process.env });
        let out = '';
        p.onData((d) => {
          out += d;
          // The terminal's side: answer the queries as it sees them (or stay silent), and a key typed meanwhile.
          if (answer && out.includes('\x1b[c') && !out.includes('ANSWERED')) {
            out += 'ANSWERED';
            setTimeout(() => p.write('q\x1bP>|foot(1.16.2)\x1b\\\x1b[?62;22c'), 50);
          }
          const m = /RESULT (\{.*\})/.exec(out);
          if (m) resolve(JSON.parse(m[1]!));
        });
        p.onExit(() => setTimeout(() => reject(new Error(`exited without a result: ${JSON.stringify(out)}`)), 50));
      });
    const answered = await run(true, 5000);
    expect(answered).toMatchObject({ xtversion: 'foot(1.16.2)', done: true, rest: 'q' });
    expect(answered.ms).toBeLessThan(5000);
    const silent = await run(false, 300);
    expect(silent).toMatchObject({ xtversion: null, done: false });
    expect(silent.ms).toBeGreaterThanOrEqual(290);
    expect(silent.ms).toBeLessThan(3000);
  }, 30_000);
});
