#!/usr/bin/env node
// The mail floor (issue #33): the least a hub on this stack pays to accept mail durably, run by
// bench:mail beside swb's hub in the same run. A bare Unix socket speaking the same NDJSON JSON-RPC
// (so the same client drives both), and mail.db's durability: WAL, synchronous=FULL, sends of one
// turn of the event loop in one transaction (group commit), each answered only after that commit
// returned. Per send it stores what an accept cannot do without — the message row (unique on
// sender + message id, so a retry is no duplicate) and one delivery row per recipient with its
// sequence — and nothing else: no schema validation, no limits, no receipts beyond the row, no
// fan-out, no pushes. `hello` is answered with the session it names.
//   node bench/lib/mail-floor-hub.mjs SOCKET DBFILE   (prints "listening on SOCKET" to stderr)
import { createServer } from 'node:net';
import Database from 'better-sqlite3';

const [socketPath, dbFile] = process.argv.slice(2);
if (!socketPath || !dbFile) {
  process.stderr.write('usage: mail-floor-hub.mjs SOCKET DBFILE\n');
  process.exit(2);
}

const db = new Database(dbFile);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec(`CREATE TABLE IF NOT EXISTS messages (id INTEGER PRIMARY KEY, sender TEXT NOT NULL, message_id TEXT NOT NULL,
           text TEXT NOT NULL, recipients TEXT NOT NULL, created_at INTEGER NOT NULL, UNIQUE (sender, message_id));
         CREATE TABLE IF NOT EXISTS deliveries (message INTEGER NOT NULL, recipient TEXT NOT NULL, seq INTEGER NOT NULL,
           PRIMARY KEY (message, recipient));`);
const insertMessage = db.prepare(
  'INSERT INTO messages (sender, message_id, text, recipients, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (sender, message_id) DO NOTHING',
);
const insertDelivery = db.prepare('INSERT INTO deliveries (message, recipient, seq) VALUES (?, ?, ?)');
const nextSeq = new Map();

let queue = [];
let scheduled = false;
const commitBatch = db.transaction((batch) => {
  const at = Date.now();
  for (const b of batch) {
    const p = b.params;
    const info = insertMessage.run(b.sender, String(p.messageId ?? `${at}-${Math.random()}`), String(p.text), JSON.stringify(p.to), at);
    if (info.changes === 0) {
      b.result = { duplicate: true };
      continue;
    }
    const id = Number(info.lastInsertRowid);
    for (const to of p.to) {
      const seq = nextSeq.get(to) ?? 1;
      nextSeq.set(to, seq + 1);
      insertDelivery.run(id, to, seq);
    }
    b.result = { id, messageId: p.messageId, duplicate: false };
  }
});
function flush() {
  scheduled = false;
  const batch = queue;
  queue = [];
  commitBatch(batch); // returns once the commit is on disk (FULL)
  for (const b of batch) b.socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: b.id, result: b.result })}\n`);
}

const server = createServer((socket) => {
  let session = '';
  let rest = '';
  socket.setEncoding('utf8');
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    for (const line of lines) {
      if (line.length === 0) continue;
      const msg = JSON.parse(line);
      if (msg.method === 'mail.send') {
        queue.push({ socket, sender: session, id: msg.id, params: msg.params, result: null });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      } else if (msg.method === 'hello') {
        session = msg.params.session ?? 'anon';
        socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { session, role: 'participant', lastSeq: 0 } })}\n`);
      } else {
        socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'floor: no such method', data: { code: 'UNKNOWN_METHOD' } } })}\n`);
      }
    }
  });
});
server.listen(socketPath, () => process.stderr.write(`listening on ${socketPath}\n`));
process.on('SIGTERM', () => {
  server.close();
  db.close();
  process.exit(0);
});
