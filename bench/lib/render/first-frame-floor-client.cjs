// The first-frame floor's client (first-frame-floor.mjs says what the floor is): the least a thin
// client on Node does for a cold start. It starts the server as a detached node process, waits for
// the server to say it listens (a pipe on fd 3, as swb's server says it: src/client/server-launch.ts),
// connects to its Unix socket, and from then on writes whatever the server sends to the terminal
// and sends the terminal's keys to the server. Nothing else: no argument parsing, config, trust
// check or terminal query; CommonJS and node built-ins only (see first-frame-floor-trace.cjs).
//
//   node first-frame-floor-client.cjs DIR -- <the server's node arguments...>
//
// DIR: where the server's socket (DIR/floor.sock) is, and where this writes the server's pid
// (DIR/server.pid, for the bench, which measures and stops the server) and its output (server.out).
'use strict';
const { startMark } = require('./first-frame-floor-trace.cjs');

startMark('entry');
const { spawn } = require('node:child_process');
const { closeSync, openSync, writeFileSync } = require('node:fs');
const { connect } = require('node:net');
const { join } = require('node:path');

const dir = process.argv[2];
const dash = process.argv.indexOf('--');
if (!dir || dash !== 3) {
  process.stderr.write('usage: node first-frame-floor-client.cjs DIR -- <server node arguments>\n');
  process.exit(2);
}
const out = openSync(join(dir, 'server.out'), 'a');
startMark('launching the server');
const server = spawn(process.execPath, process.argv.slice(dash + 1), { detached: true, stdio: ['ignore', out, out, 'pipe'] });
closeSync(out);
writeFileSync(join(dir, 'server.pid'), String(server.pid));
const ready = server.stdio[3];
ready.once('data', () => {
  startMark('the server listens');
  ready.destroy();
  server.unref();
  const socket = connect(join(dir, 'floor.sock'));
  socket.once('connect', () => startMark('connected'));
  socket.on('data', (frame) => process.stdout.write(frame));
  socket.on('close', () => process.exit(0));
  socket.on('error', (err) => {
    process.stderr.write(`floor client: ${err.message}\n`);
    process.exit(1);
  });
  process.stdin.setRawMode?.(true);
  process.stdin.on('data', (keys) => socket.write(keys));
});
ready.once('end', () => {
  process.stderr.write(`floor client: the server ended before it listened (its output: ${join(dir, 'server.out')})\n`);
  process.exit(1);
});
