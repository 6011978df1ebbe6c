#!/usr/bin/env node
// node bench/rows-throughput.mjs [--quick] [--only=parse|pty|row|rows8|seq8] — how fast pty output reaches a row's emulated screen.
// Needs `npm run build` first (imports dist/). Prints MB/s and this process's CPU seconds for:
//   parse   : the bytes written straight into a RowScreen (emulator only, no pty)
//   pty     : `cat` of the bytes through a RowProcess, output discarded (pty + node only)
//   row     : `cat` through a full Row (pty → RowScreen, flow control on)
//   8 rows  : eight Rows in parallel, each `cat`ting 5 MB of coloured text / running `seq 1 200000`
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = (p) => join(root, 'dist', 'src', 'rows', p);
const { Row } = await import(dist('row.js'));
const { RowProcess } = await import(dist('row-process.js'));
const { RowScreen } = await import(dist('row-screen.js'));
const { buildRowEnv } = await import(dist('row-env.js'));

const quick = process.argv.includes('--quick');
const TOTAL_MB = quick ? 10 : 40;
const dir = mkdtempSync(join(tmpdir(), 'swb-rows-bench-'));

/** Roughly what agents and build tools print: 16/256/truecolor SGR, bold, varied line lengths. */
function colouredText(bytes) {
  const parts = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line =
      `\x1b[3${i % 8}m[${String(i).padStart(7, '0')}]\x1b[0m \x1b[1;38;5;${(i * 7) % 256}mcompiling\x1b[0m ` +
      `src/module-${i % 97}/file-${i % 13}.ts \x1b[38;2;${i % 256};${(i * 3) % 256};120m${'ok '.repeat(i % 12)}\x1b[0m\n`;
    parts.push(line);
    size += Buffer.byteLength(line);
  }
  return Buffer.from(parts.join('')).subarray(0, bytes);
}

const fiveMb = colouredText(5 * 1024 * 1024);
const chunkFile = join(dir, 'coloured-5mb.txt');
writeFileSync(chunkFile, fiveMb);
const copies = Math.round(TOTAL_MB / 5);
const catArgs = Array.from({ length: copies }, () => chunkFile);
const totalBytes = fiveMb.length * copies;

function measure() {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  return () => {
    const c = process.cpuUsage(c0);
    return { wallS: (performance.now() - t0) / 1000, cpuS: (c.user + c.system) / 1e6 };
  };
}

function report(label, bytes, { wallS, cpuS }) {
  const mb = bytes / (1024 * 1024);
  console.log(
    `${label.padEnd(34)} ${mb.toFixed(0).padStart(4)} MB  ${wallS.toFixed(2).padStart(6)} s wall  ` +
      `${(mb / wallS).toFixed(1).padStart(6)} MB/s  ${cpuS.toFixed(2).padStart(6)} s CPU (swb process)`,
  );
}

const options = (name, command) => ({
  spec: { name, command },
  cols: 120,
  rows: 40,
  socketPath: join(dir, 'none.sock'),
  mintToken: () => 'bench',
  // A small ring, only to count the bytes that went through (its totalWritten).
  transcriptBytes: 4096,
});

async function benchParse() {
  const screen = new RowScreen({ cols: 120, rows: 40 });
  const done = measure();
  for (let i = 0; i < copies; i++) {
    for (let off = 0; off < fiveMb.length; off += 4095) {
      screen.write(fiveMb.subarray(off, off + 4095));
      if (screen.pendingBytes > 4 * 1024 * 1024) await screen.flush();
    }
  }
  await screen.flush();
  report('parse (RowScreen, no pty)', totalBytes, done());
  screen.dispose();
}

async function benchPty() {
  const done = measure();
  const proc = new RowProcess({ command: { file: 'cat', args: catArgs }, env: buildRowEnv(), cols: 120, rows: 40 });
  let bytes = 0;
  proc.onData((chunk) => (bytes += chunk.length));
  await new Promise((resolve) => proc.onExit(resolve));
  report('pty only (RowProcess, discarded)', bytes, done());
  proc.dispose();
}

async function benchRow() {
  const done = measure();
  const row = new Row(options('bench', { file: 'cat', args: catArgs }));
  await new Promise((resolve) => row.onExit(resolve));
  report('row (pty → RowScreen)', row.transcript.totalWritten, done());
  row.dispose();
}

async function benchEightRows(label, command) {
  const done = measure();
  const rows = Array.from({ length: 8 }, (_, i) => new Row(options(`r${i}`, command)));
  await Promise.all(rows.map((row) => new Promise((resolve) => row.onExit(resolve))));
  const bytes = rows.reduce((sum, row) => sum + row.transcript.totalWritten, 0);
  report(label, bytes, done());
  for (const row of rows) row.dispose();
}

try {
  console.log(`rows throughput (${quick ? 'quick' : 'full'}; node ${process.version}, 120x40 rows, 5000 lines scrollback)`);
  const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7);
  const run = (name, fn) => (only === undefined || only === name ? fn() : undefined);
  await run('parse', benchParse);
  await run('pty', benchPty);
  await run('row', benchRow);
  await run('rows8', () => benchEightRows('8 rows x 5 MB coloured', { file: 'cat', args: [chunkFile] }));
  await run('seq8', () => benchEightRows('8 rows x seq 1 200000', { file: 'seq', args: ['1', '200000'] }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
