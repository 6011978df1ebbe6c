#!/usr/bin/env node
// node bench/echo-relay-floor.mjs — the echo floor of swb's client/server design, with nothing of
// swb in it: a client node process writes a key to a Unix socket, a server node process writes it
// into a pty running `cat` (raw, no echo), and relays cat's output back. The same hops an attached
// row's keystroke takes (minus emulation and drawing), so it says how close to tmux a node client
// and server can get at all. Prints p50/p99 over 300 keystrokes.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';

const dir = mkdtempSync(join(tmpdir(), 'swb-relay-'));
const sock = join(dir, 's.sock');
const server = spawn(
  process.execPath,
  [
    '--input-type=module',
    '-e',
    `import { createServer } from 'node:net';
     import { createRequire } from 'node:module';
     const pty = createRequire(${JSON.stringify(new URL('../package.json', import.meta.url).pathname)})('node-pty');
     const p = pty.spawn('/bin/sh', ['-c', 'stty raw -echo; exec cat'], { cols: 80, rows: 24 });
     let client = null;
     p.onData((d) => client?.write(d));
     createServer((s) => { client = s; s.on('data', (b) => p.write(b.toString('latin1'))); }).listen(${JSON.stringify(sock)}, () => console.log('ready'));`,
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
await new Promise((resolve) => server.stdout.once('data', resolve));
const s = connect(sock);
await new Promise((r) => s.once('connect', r));
await new Promise((r) => setTimeout(r, 300)); // cat starts and takes the raw mode
const lat = [];
for (let i = 0; i < 320; i++) {
  const t = process.hrtime.bigint();
  await new Promise((r) => {
    s.once('data', r);
    s.write('x');
  });
  if (i >= 20) lat.push(Number(process.hrtime.bigint() - t) / 1e6);
  await new Promise((r) => setTimeout(r, 4 + Math.random() * 6));
}
lat.sort((a, b) => a - b);
const pct = (q) => lat[Math.min(lat.length - 1, Math.ceil(q * lat.length) - 1)];
console.log(`node relay (client process -> socket -> server process -> pty cat -> back): p50 ${pct(0.5).toFixed(3)} ms, p99 ${pct(0.99).toFixed(3)} ms (${lat.length} keystrokes)`);
s.destroy();
server.kill();
rmSync(dir, { recursive: true, force: true });
