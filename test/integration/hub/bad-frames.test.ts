// The NDJSON edge (DESIGN §4): bytes are bounded before parsing, split and coalesced frames are
// reassembled, and every bad frame gets an error answer while the connection keeps working.
import { afterEach, describe, expect, it } from 'vitest';
import type { MailItem } from '../../../src/protocol/methods.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, startTestHub } from '../../helpers/hub-harness.js';
import { errorCode, RawClient } from '../../helpers/raw-client.js';

afterEach(runCleanups);

async function helloedRawClient(session = 'raw') {
  const { paths } = await startTestHub();
  const raw = await RawClient.connect(paths.socketPath);
  const hello = await raw.hello({ session });
  expect(hello.result).toMatchObject({ session });
  return { raw, paths };
}

/** Yields to the event loop so the in-process hub can read what was written so far. */
const yieldToHub = () => new Promise((resolve) => setImmediate(resolve));

describe('bad frames', () => {
  it('invalid JSON is answered with BAD_FRAME and the connection keeps working', async () => {
    const { raw } = await helloedRawClient();
    await raw.write('{"jsonrpc":"2.0","id":1,"method":\n');
    const err = await raw.waitFor((j) => j.error !== undefined);
    expect(err).toMatchObject({ id: null, error: { data: { code: 'BAD_FRAME' } } });
    expect((await raw.request('peers.list')).result).toHaveProperty('peers');
  });

  it('a 70 KB line is answered with FRAME_TOO_LARGE once, and the next request on the connection works', async () => {
    const { raw } = await helloedRawClient();
    const huge = `{"jsonrpc":"2.0","id":"big","method":"mail.send","params":{"to":["raw"],"text":"${'y'.repeat(70 * 1024)}"}}\n`;
    // In pieces, as a slow writer would send it.
    for (let i = 0; i < huge.length; i += 8192) await raw.write(huge.slice(i, i + 8192));
    const after = await raw.request('peers.list');
    expect(after.result).toHaveProperty('peers');
    const tooLarge = raw.errorsWithCode('FRAME_TOO_LARGE');
    expect(tooLarge).toHaveLength(1);
    expect(tooLarge[0]).toMatchObject({ id: null, error: { data: { details: { limit: 64 * 1024 } } } });
    expect(raw.lines.filter((l) => l.json?.error)).toHaveLength(1);
    expect(raw.lines.some((l) => l.json?.id === 'big')).toBe(false);
  });

  it('bytes that are not UTF-8 are answered with BAD_FRAME', async () => {
    const { raw } = await helloedRawClient();
    await raw.write(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":7,"method":"peers.list","params":{"x":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}}\n')]));
    const err = await raw.waitFor((j) => j.error !== undefined);
    expect(errorCode(err)).toBe('BAD_FRAME');
    expect(err.error.message).toMatch(/UTF-8/);
    expect((await raw.request('peers.list')).result).toHaveProperty('peers');
  });

  it('a valid frame written one byte at a time, splitting multibyte characters, is understood', async () => {
    const { raw, paths } = await helloedRawClient();
    const bob = await connectClient(paths, { session: 'bob' });
    const text = 'héllo ✓ 漢字 🎉';
    const { id, bytes } = raw.frame('mail.send', { to: ['bob'], text });
    for (let i = 0; i < bytes.length; i++) {
      await raw.write(bytes.subarray(i, i + 1));
      await yieldToHub();
    }
    const r = await raw.response(id);
    expect(r.result).toMatchObject({ duplicate: false });
    const { messages } = await bob.client.request<{ messages: MailItem[] }>('mail.list', {});
    expect(messages.map((m) => m.text)).toEqual([text]);
  });

  it('two frames coalesced in one write are both answered, in order', async () => {
    const { raw } = await helloedRawClient();
    const a = raw.frame('peers.list');
    const b = raw.frame('mail.list', {});
    await raw.write(Buffer.concat([a.bytes, b.bytes]));
    expect((await raw.response(a.id)).result).toHaveProperty('peers');
    expect((await raw.response(b.id)).result).toHaveProperty('messages');
    const order = raw.lines.map((l) => l.json?.id).filter((x) => x === a.id || x === b.id);
    expect(order).toEqual([a.id, b.id]);
  });

  it('an unknown method is answered with UNKNOWN_METHOD', async () => {
    const { raw } = await helloedRawClient();
    const r = await raw.request('mail.teleport', {});
    expect(r.error).toMatchObject({ code: -32601, data: { code: 'UNKNOWN_METHOD' } });
  });

  it('a request before hello is refused with UNAUTHENTICATED', async () => {
    const { paths } = await startTestHub();
    const raw = await RawClient.connect(paths.socketPath);
    expect(errorCode(await raw.request('peers.list'))).toBe('UNAUTHENTICATED');
    expect(errorCode(await raw.request('mail.send', { to: ['x'], text: 'y' }))).toBe('UNAUTHENTICATED');
    expect((await raw.hello({ session: 'late' })).result).toMatchObject({ session: 'late' });
  });

  it('a JSON-RPC batch array is refused with BAD_FRAME', async () => {
    const { raw } = await helloedRawClient();
    await raw.write(`${JSON.stringify([{ jsonrpc: '2.0', id: 'b1', method: 'peers.list' }, { jsonrpc: '2.0', id: 'b2', method: 'peers.list' }])}\n`);
    const err = await raw.waitFor((j) => j.error !== undefined);
    expect(err).toMatchObject({ id: null, error: { data: { code: 'BAD_FRAME' } } });
    expect(raw.lines.some((l) => l.json?.id === 'b1' || l.json?.id === 'b2')).toBe(false);
  });

  it('a frame without "jsonrpc": "2.0" is refused with BAD_FRAME, echoing its id', async () => {
    const { raw } = await helloedRawClient();
    await raw.sendObject({ id: 'v1', method: 'peers.list' });
    expect(await raw.response('v1')).toMatchObject({ error: { data: { code: 'BAD_FRAME' } } });
  });

  it('a 17 KB message text inside a valid frame is refused with MESSAGE_TOO_LARGE', async () => {
    const { raw } = await helloedRawClient();
    const r = await raw.request('mail.send', { to: ['raw'], text: 'z'.repeat(17 * 1024) });
    expect(errorCode(r)).toBe('MESSAGE_TOO_LARGE');
  });
});
