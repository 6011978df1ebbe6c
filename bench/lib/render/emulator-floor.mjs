#!/usr/bin/env node
// The render benchmark's "floor" system: the least a dashboard built on node-pty + @xterm/headless
// spends on a workload when it parses every byte. Each row's command runs in node-pty at the size
// swb gives that row, and its output is parsed into an @xterm/headless terminal with the bench's
// history depth (swb's scrollback, 5,000 lines by default), synchronously as swb's rows are. Nothing
// else: no transcript, no scheduler, no painting, no Ink, and no fast-forward through plain floods
// (swb's, which is how swb gets below this floor on `seq`). What this spends above tmux is the stack's.
//
//   node emulator-floor.mjs [--keys=NAME] name@COLSxROWS=command ...
//
// --keys=NAME makes that row the attached one, for echo-under-load: the harness terminal (this
// process's stdin, raw) is written straight into its pty and its output straight to stdout, then
// parsed, as swb's server does with an attached row's echo (Compositor.echoAhead); every other row
// is parsed as its output comes. The least a node + xterm multiplexer pays per keystroke while
// other rows stream: no batching, no painting, no state detection.
//
// It reports to stdout (the harness reads it like a multiplexer's client): `WAIT-<name>` and
// `DONE-<name>` once that row's emulated screen has parsed the marker, a DONE preceded by the screen
// line above the marker (for seq: the last number), so the harness can check the work was parsed.
import { writeSync } from 'node:fs';
import pty from 'node-pty';
import xtermHeadless from '@xterm/headless';
import { HISTORY_LINES } from './history.mjs';

const { Terminal } = xtermHeadless;
const SCROLLBACK = HISTORY_LINES;

const args = process.argv.slice(2);
const keysRow = args.find((a) => a.startsWith('--keys='))?.slice('--keys='.length);
const specs = args.filter((a) => !a.startsWith('--keys=')).map((a) => {
  const m = /^([^@=]+)@(\d+)x(\d+)=(.*)$/s.exec(a);
  if (!m) {
    process.stderr.write(`emulator-floor: ${JSON.stringify(a)} is not name@COLSxROWS=command\n`);
    process.exit(2);
  }
  return { name: m[1], cols: Number(m[2]), rows: Number(m[3]), cmd: m[4] };
});

const out = (line) => process.stdout.write(`${line}\r\n`);
const children = [];

for (const { name, cols, rows, cmd } of specs) {
  const term = new Terminal({ cols, rows, scrollback: SCROLLBACK, allowProposedApi: true, logLevel: 'off' });
  const child = pty.spawn('/bin/sh', ['-c', cmd], { name: 'xterm-256color', cols, rows, cwd: process.cwd(), env: process.env, encoding: null });
  children.push(child);
  term.onData((reply) => child.write(reply));
  const pending = [`WAIT-${name}`, `DONE-${name}`];
  let tail = Buffer.alloc(0);
  if (name === keysRow) {
    process.stdin.setRawMode(true);
    process.stdin.on('data', (key) => writeSync(child.fd, key));
  }
  child.onData((data) => {
    if (name === keysRow) process.stdout.write(data);
    term.input('', true); // parse this write synchronously, as swb's rows do
    term.write(data);
    if (pending.length === 0) return;
    // Markers may straddle reads: also look across the previous read's last bytes.
    const marker = pending[0];
    const found = data.indexOf(marker) >= 0 || Buffer.concat([tail, data.subarray(0, marker.length)]).indexOf(marker) >= 0;
    tail = Buffer.from(data.subarray(Math.max(0, data.length - marker.length)));
    if (!found) return;
    pending.shift();
    term.write('', () => {
      if (marker.startsWith('DONE')) out(lineAbove(term, marker));
      out(marker);
    });
  });
}

/** The text of the screen line above the one showing `marker` ('' if not on screen). */
function lineAbove(term, marker) {
  const buf = term.buffer.active;
  for (let y = term.rows - 1; y > 0; y--) {
    if (buf.getLine(buf.baseY + y)?.translateToString(true).includes(marker)) {
      return buf.getLine(buf.baseY + y - 1)?.translateToString(true).trim() ?? '';
    }
  }
  return '';
}

const end = () => {
  for (const c of children) {
    try {
      process.kill(-c.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  process.exit(0);
};
process.on('SIGTERM', end);
process.on('SIGHUP', end);
