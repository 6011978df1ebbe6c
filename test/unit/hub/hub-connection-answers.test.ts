// When a request's answer leaves (issue #33): the answer to the only request in flight goes out at
// once, before the request's end is booked; answers of several requests in flight, and an answer
// behind frames already waiting in this tick, leave together at the end of the tick, in one write.
// Against a real Unix socket: what the hub side still holds (writableLength) and what the client reads.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HubConnection, type ConnectionEvents } from '../../../src/hub/hub-connection.js';
import { DEFAULT_LIMITS } from '../../../src/protocol/limits.js';
import { success } from '../../../src/protocol/rpc.js';

let dir: string;
let server: Server;
let client: Socket;
let conn: HubConnection;
let received: string[];

const events: ConnectionEvents = { onFrame: () => undefined, onClose: () => undefined, onUnfinished: () => undefined, onStalled: () => undefined };

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swb-answers-'));
  const path = join(dir, 'hub.sock');
  const accepted = new Promise<Socket>((resolve) => {
    server = createServer(resolve);
    server.listen(path);
  });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  client = createConnection(path);
  received = [];
  client.on('data', (chunk: Buffer) => received.push(chunk.toString('utf8')));
  conn = new HubConnection(await accepted, DEFAULT_LIMITS, events);
});

afterEach(async () => {
  client.destroy();
  conn.destroy();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** Resolves once the client has read `n` lines. */
async function linesRead(n: number): Promise<string[]> {
  while (received.join('').split('\n').length - 1 < n) await new Promise((resolve) => client.once('data', resolve));
  return received;
}

describe('HubConnection answers', () => {
  it('writes the answer to the only request in flight at once, not at the end of the tick', async () => {
    conn.beginRequest(0);
    expect(conn.answer(success(1, { ok: true }))).toBe(true);
    // Handed to the kernel in the call itself: nothing left for the end of the tick.
    expect(conn.socket.writableLength).toBe(0);
    conn.endRequest(0);
    expect(await linesRead(1)).toEqual(['{"jsonrpc":"2.0","id":1,"result":{"ok":true}}\n']);
  });

  it('keeps the answers of requests in flight together until the end of the tick: one write', async () => {
    for (let i = 0; i < 3; i++) conn.beginRequest(0);
    for (let id = 1; id <= 3; id++) {
      conn.answer(success(id, id));
      conn.endRequest(0);
    }
    expect(conn.socket.writableLength).toBeGreaterThan(0);
    const chunks = await linesRead(3);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.split('\n').filter(Boolean).map((l) => JSON.parse(l).id)).toEqual([1, 2, 3]);
  });

  it('sends an answer with the frames already waiting in this tick (a push before it), in order', async () => {
    conn.beginRequest(0);
    conn.write({ jsonrpc: '2.0', method: 'mail.arrived', params: {} });
    conn.answer(success(7, 'accepted'));
    conn.endRequest(0);
    expect(conn.socket.writableLength).toBeGreaterThan(0);
    const chunks = await linesRead(2);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.split('\n').filter(Boolean).map((l) => JSON.parse(l).method ?? JSON.parse(l).id)).toEqual(['mail.arrived', 7]);
  });
});
