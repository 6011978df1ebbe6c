// The first-frame floor's server (first-frame-floor.mjs says what the floor is), the entry of its
// one bundle (Ink + React + @xterm/headless + node-pty, built at bench time with the server
// bundle's own options: scripts/server-bundle-options.mjs), which first-frame-floor-boot.cjs loads.
// It listens, starts every row's command in a pty (with swb's posix_spawn in node-pty's place:
// src/rows/pty-spawn-strategy.ts), parses each row's output into its own @xterm/headless terminal
// at the size of that row's box, and renders with Ink, to the one client's socket, a grid of the
// rows: a header line each (" <name> · running", which holds what the bench looks for in swb's
// headers, " <name> · ") over its terminal's visible lines. It renders again as output is parsed
// (one React update a turn of the event loop; Ink throttles what it writes, at its default 30 fps).
// Each chunk is parsed as it comes, synchronously (swb's parseNow).
// No scrollback (the floor keeps what it shows and nothing more), no colours, no input but the
// keys, which go to the first row.
import { closeSync, rmSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import React from 'react';
import { Box, Text, render } from 'ink';
import xtermHeadless from '@xterm/headless';
import pty from 'node-pty';
import { installPtySpawn } from '../../../dist/src/rows/pty-spawn-strategy.js';

const { Terminal } = xtermHeadless;
const h = React.createElement;
/** The fd on which the client waits for "listening" (first-frame-floor-client.cjs). */
const READY_FD = 3;

/**
 * argv: DIR COLS ROWS name@x,y,WxH=command ... (x, y, W, H: the row's screen in the client's
 * terminal, its header on the line above). `mark(label)`: the start trace. `beforeExit`: run once
 * when the server is stopped.
 */
export function serveFloor(argv, { mark, beforeExit }) {
  const [dir, colsText, rowsText, ...specs] = argv;
  const size = { columns: Number(colsText), rows: Number(rowsText) };
  const rows = specs.map(parseRow);
  const socketPath = join(dir, 'floor.sock');

  /** The client's socket, once it connected; Ink renders to it from the next turn of the loop. */
  let client = null;
  let ink = null;
  let renderQueued = false;
  /** Every row had output parsed before the last commit: the next frame Ink writes shows them all. */
  let allCommitted = false;
  let frameMarked = false;
  const onRender = () => {
    if (frameMarked || !allCommitted) return;
    frameMarked = true;
    mark('frame with every row rendered');
  };
  // Once a turn of the event loop, after the I/O it brought (the rows' output, parsed as it came):
  // React's update and Ink's layout of the whole grid cost ~20 ms warm, too much to run per chunk.
  const renderNow = () => {
    renderQueued = false;
    if (client === null) return;
    allCommitted = rows.every((r) => r.parsed);
    if (ink !== null) return void ink.rerender(h(Grid, { rows }));
    ink = render(h(Grid, { rows }), { stdout: client, stdin: new PassThrough(), patchConsole: false, exitOnCtrlC: false, onRender });
    mark('first render');
  };
  const changed = () => {
    if (renderQueued) return;
    renderQueued = true;
    setImmediate(renderNow);
  };
  let unparsed = rows.length;
  const parsed = (row) => () => {
    if (!row.parsed && --unparsed === 0) mark('every row parsed');
    row.parsed = true;
    changed();
  };

  const server = createServer((socket) => {
    if (client !== null) return void socket.destroy();
    mark('client connected');
    // Ink draws to a stream with a terminal's size; the socket is that stream.
    client = Object.assign(socket, size);
    socket.on('data', (keys) => rows[0]?.pty.write(keys));
    socket.on('error', () => undefined);
    socket.on('close', () => ink?.unmount());
    changed();
  });
  // A Unix socket is bound and listening when listen() returns ('listening' comes a tick later):
  // the client may connect while the rows start.
  server.listen(socketPath);
  writeSync(READY_FD, 'listening\n');
  closeSync(READY_FD);
  mark('listening');

  const spawnState = installPtySpawn();
  for (const row of rows) {
    row.term = new Terminal({ cols: row.w, rows: row.h, scrollback: 0, allowProposedApi: true, logLevel: 'off' });
    row.pty = pty.spawn('/bin/sh', ['-c', row.cmd], { name: 'xterm-256color', cols: row.w, rows: row.h, cwd: process.cwd(), env: process.env, encoding: null });
    row.term.onData((reply) => row.pty.write(reply));
    const done = parsed(row);
    row.pty.onData((data) => {
      // Parsed now, not on a timer a turn later (src/rows/row-screen.ts, parseNow, says how).
      row.term.input('', true);
      row.term.write(data, done);
    });
  }
  mark(`rows started (${spawnState.installed ? 'posix_spawn' : `node-pty's fork: ${spawnState.reason}`})`);

  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    beforeExit?.();
    for (const row of rows) {
      try {
        row.pty.kill();
      } catch {
        // already gone
      }
    }
    rmSync(socketPath, { force: true });
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, stop);
}

function parseRow(spec) {
  const m = /^([^@=]+)@(\d+),(\d+),(\d+)x(\d+)=(.*)$/s.exec(spec);
  if (!m) throw new Error(`floor server: ${JSON.stringify(spec)} is not name@x,y,WxH=command`);
  return { name: m[1], x: Number(m[2]), y: Number(m[3]), w: Number(m[4]), h: Number(m[5]), cmd: m[6], parsed: false, term: null, pty: null };
}

/** The rows' boxes, in bands of the rows whose headers share a line, each box at its x. */
function Grid({ rows }) {
  const bands = new Map();
  for (const r of rows) {
    if (!bands.has(r.y)) bands.set(r.y, []);
    bands.get(r.y).push(r);
  }
  let y = 0;
  return h(
    Box,
    { flexDirection: 'column' },
    [...bands].map(([top, band]) => {
      const marginTop = top - 1 - y;
      const height = Math.max(...band.map((r) => r.h)) + 1;
      y = top - 1 + height;
      let x = 0;
      return h(
        Box,
        { key: top, flexDirection: 'row', height, marginTop },
        band.map((r) => {
          const marginLeft = r.x - x;
          x = r.x + r.w;
          return h(Box, { key: r.name, flexDirection: 'column', width: r.w, height: r.h + 1, marginLeft }, h(Text, { wrap: 'truncate' }, ` ${r.name} · running`), h(Text, null, screenText(r)));
        }),
      );
    }),
  );
}

/** The row's terminal's visible lines, as text. */
function screenText(row) {
  const buffer = row.term.buffer.active;
  const lines = [];
  for (let i = 0; i < row.h; i++) lines.push(buffer.getLine(buffer.viewportY + i)?.translateToString(true) ?? '');
  return lines.join('\n');
}
