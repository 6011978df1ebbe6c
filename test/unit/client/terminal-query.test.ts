// The client's question to its terminal (XTVERSION, then DA1 as the end marker): the replies picked out
// of what the terminal sent, keys typed meanwhile handed back, and a terminal that never answers
// costing only the bound — through a real pty (node-pty) standing in for the operator's terminal.
import pty from 'node-pty';
import { describe, expect, it } from 'vitest';
import { parseTerminalReplies, TERMINAL_QUERY } from '../../../src/client/terminal-query.js';
import { parseClientTerminal } from '../../../src/protocol/client-wire.js';
import { detectTerminalKind } from '../../../src/notify/terminal-detect.js';

describe('terminal query', () => {
  it('reads the XTVERSION name and the DA1 end marker, in either ST form, and keeps other bytes as typed keys', () => {
    expect(parseTerminalReplies(Buffer.from('\x1bP>|kitty(0.35.2)\x1b\\\x1b[?62;c'))).toEqual({ xtversion: 'kitty(0.35.2)', done: true, rest: Buffer.alloc(0) });
    expect(parseTerminalReplies(Buffer.from('ab\x1bP>|WezTerm 20240203\x07c\x1b[?1;2c'))).toEqual({ xtversion: 'WezTerm 20240203', done: true, rest: Buffer.from('abc') });
    // No XTVERSION answer (the terminal does not know it): DA1 alone ends the wait.
    expect(parseTerminalReplies(Buffer.from('\x1b[?64;1;2;6;9;15;18;21;22c'))).toEqual({ done: true, rest: Buffer.alloc(0) });
    // Not yet complete: keep waiting.
    expect(parseTerminalReplies(Buffer.from('\x1bP>|foot(1.16'))).toMatchObject({ done: false });
    expect(TERMINAL_QUERY).toBe('\x1b[>0q\x1b[c');
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
      import { queryTerminal } from ${JSON.stringify(new URL('../../../dist/src/client/terminal-query.js', import.meta.url).pathname)};
      process.stdin.setRawMode(true);
      const t0 = Date.now();
      const r = await queryTerminal(process.stdin, process.stdout, +process.argv[1]);
      process.stdout.write('RESULT ' + JSON.stringify({ xtversion: r.xtversion ?? null, done: r.done, rest: r.rest.toString(), ms: Date.now() - t0 }) + '\\n');
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
