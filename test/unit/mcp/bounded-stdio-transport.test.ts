// `swb mcp`'s stdin reader (src/mcp/bounded-stdio-transport.ts) on in-memory streams: a line over the
// limit is answered FRAME_TOO_LARGE once however it is chunked, and the next line is read; the end of
// input closes the transport only once every request read is answered (or cancelled).
import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { BoundedStdioTransport } from '../../../src/mcp/bounded-stdio-transport.js';
import { waitUntil } from '../../helpers/wait-until.js';

function harness(maxLineBytes = 256) {
  const input = new PassThrough();
  const output = new PassThrough();
  const written: string[] = [];
  output.on('data', (b: Buffer) => written.push(...b.toString('utf8').split('\n').filter(Boolean)));
  const transport = new BoundedStdioTransport(input, output, maxLineBytes);
  const got: JSONRPCMessage[] = [];
  transport.onmessage = (m) => void got.push(m);
  let closed = false;
  void transport.closed.then(() => (closed = true));
  return { input, transport, got, answers: () => written.map((l) => JSON.parse(l) as { id: unknown; error?: { data?: { code: string } } }), isClosed: () => closed };
}

const req = (id: number, method = 'tools/list') => `${JSON.stringify({ jsonrpc: '2.0', id, method })}\n`;

describe('BoundedStdioTransport', () => {
  it('answers a line over the limit once, with its id, however it is chunked; the next line is read', async () => {
    const h = harness(256);
    await h.transport.start();
    h.input.write('{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"text":"');
    for (let i = 0; i < 50; i++) h.input.write('x'.repeat(100));
    h.input.write('"}}\n');
    h.input.write(req(10));
    await waitUntil(() => h.answers().length === 1 && h.got.length === 1, { what: 'one refusal and one message' });
    expect(h.answers()[0]).toMatchObject({ id: 9, error: { data: { code: 'FRAME_TOO_LARGE' } } });
    expect(h.got[0]).toMatchObject({ id: 10, method: 'tools/list' });
  });

  it('closes at the end of input only once every request read has its answer', async () => {
    const h = harness();
    await h.transport.start();
    h.input.end(req(1) + req(2));
    await waitUntil(() => h.got.length === 2, { what: 'both requests' });
    expect(h.isClosed()).toBe(false);
    await h.transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    expect(h.isClosed()).toBe(false);
    await h.transport.send({ jsonrpc: '2.0', id: 2, result: {} });
    await waitUntil(() => h.isClosed(), { what: 'the transport to close' });
    expect(h.answers().map((a) => a.id)).toEqual([1, 2]);
  });

  it('a cancelled request is not waited for, and a last line without its newline is still read', async () => {
    const h = harness();
    await h.transport.start();
    h.input.end(req(3) + JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } }));
    await waitUntil(() => h.isClosed(), { what: 'the transport to close' });
    expect(h.got.map((m) => ('method' in m ? m.method : ''))).toEqual(['tools/list', 'notifications/cancelled']);
  });

  it('an oversized last line without its newline is answered before it closes', async () => {
    const h = harness(64);
    await h.transport.start();
    h.input.end(`{"id":"big","jsonrpc":"2.0","method":"m","params":{"t":"${'y'.repeat(500)}`);
    await waitUntil(() => h.isClosed(), { what: 'the transport to close' });
    expect(h.answers()).toEqual([expect.objectContaining({ id: 'big', error: expect.objectContaining({ data: expect.objectContaining({ code: 'FRAME_TOO_LARGE' }) }) })]);
  });
});
