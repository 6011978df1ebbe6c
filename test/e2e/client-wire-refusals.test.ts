// The server's client socket refuses what is not a dashboard it can serve, with a BYE that says why:
// another wire (an upgraded or older swb: VERSION_MISMATCH, telling what to do), keys before HELLO,
// a frame type no client sends, and a TERMINAL that no query announced, comes twice, is too large or
// is no object. The server goes on serving its real client.
import { connect } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { encodeFrame, encodeJsonFrame, FRAME, FrameDecoder, FROM_SERVER, type ByeFrame } from '../../src/protocol/client-wire.js';
import { runCleanups } from '../helpers/cleanup.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import { startSwb } from '../helpers/terminal-harness.js';

afterEach(runCleanups);

/** Sends `frames` on a fresh connection to the server and returns the BYE it answers with. */
function byeFor(home: TempHome, frames: Buffer[]): Promise<ByeFrame> {
  return new Promise((resolve, reject) => {
    const s = connect(home.paths.serverSocketPath);
    const decoder = new FrameDecoder(FROM_SERVER);
    s.on('connect', () => {
      for (const f of frames) s.write(f);
    });
    s.on('data', (chunk: Buffer) => {
      for (const f of decoder.push(chunk)) {
        if (f.type === FRAME.BYE) {
          resolve(JSON.parse(f.payload.toString('utf8')) as ByeFrame);
          s.destroy();
        }
      }
    });
    s.on('error', reject);
    s.on('close', () => reject(new Error('closed without a BYE')));
  });
}

const hello = (wire: number) => encodeJsonFrame(FRAME.HELLO, { wire, version: '9.9.9', cols: 80, rows: 24, cwd: '/', args: [] });

describe('the client socket', () => {
  test('refuses another wire with VERSION_MISMATCH and what to do, keys before HELLO and unknown frames; the real client goes on', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['one=echo ONE-READY; sleep 600'] });
    await t.waitForText('ONE-READY');

    const other = await byeFor(home, [hello(99)]);
    expect(other).toMatchObject({ reason: 'refused', code: 'VERSION_MISMATCH' });
    expect(other.message).toMatch(/swb kill-server/);

    expect(await byeFor(home, [encodeFrame(FRAME.INPUT, 'x')])).toMatchObject({ reason: 'refused', code: 'BAD_REQUEST', message: expect.stringMatching(/first frame must be HELLO/) });
    expect(await byeFor(home, [encodeFrame(FRAME.OUTPUT, 'x')])).toMatchObject({ reason: 'refused', code: 'BAD_REQUEST', message: expect.stringMatching(/bad frame/) });

    // TERMINAL (the terminal's name after a query the HELLO announced): only then, once, small, an object.
    const asking = encodeJsonFrame(FRAME.HELLO, { wire: 1, version: '9.9.9', cols: 80, rows: 24, cwd: '/', args: [], terminalQueryMs: 1000 });
    expect(await byeFor(home, [hello(1), encodeJsonFrame(FRAME.TERMINAL, { xtversion: 'kitty(0.35.2)' })])).toMatchObject({
      reason: 'refused',
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/TERMINAL came without a query announced in HELLO/),
    });
    const twice = encodeJsonFrame(FRAME.TERMINAL, {});
    expect(await byeFor(home, [asking, twice, twice])).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/or twice/) });
    expect(await byeFor(home, [asking, encodeFrame(FRAME.TERMINAL, JSON.stringify({ xtversion: 'x'.repeat(2000) }))])).toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/TERMINAL is over 1024 bytes/),
    });
    expect(await byeFor(home, [asking, encodeFrame(FRAME.TERMINAL, '"kitty"')])).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/TERMINAL is not a JSON object/) });
    expect(await byeFor(home, [asking, encodeFrame(FRAME.TERMINAL, '{')])).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/TERMINAL is not a JSON object/) });

    // The real client is untouched: it still draws and takes keys.
    t.write('?');
    await t.waitForText('Switchboard keys');
  });
});
