import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IPty } from 'node-pty';
import { afterAll, describe, expect, it } from 'vitest';
import { ptyWriter } from '../../../src/rows/pty-direct-write.js';

const dir = mkdtempSync(join(tmpdir(), 'swb-direct-write-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The slice of node-pty's UnixTerminal that ptyWriter reads, around a real descriptor. */
function fakePty(fd: number, queue: unknown[] = [], destroyed = false) {
  const queued: Array<string | Buffer> = [];
  const pty = { fd, _socket: { destroyed }, _writeStream: { _writeQueue: queue }, write: (d: string | Buffer) => void queued.push(d) };
  return { pty: pty as unknown as IPty, queued };
}

describe('ptyWriter', () => {
  it('writes straight to the descriptor when node-pty has nothing queued', () => {
    const file = join(dir, 'direct');
    const fd = openSync(file, 'w');
    const { pty, queued } = fakePty(fd);
    const w = ptyWriter(pty);
    expect(w.direct).toBe(true);
    w.write('héllo ');
    w.write(Buffer.from('world'));
    closeSync(fd);
    expect(readFileSync(file, 'utf8')).toBe('héllo world');
    expect(queued).toEqual([]);
  });

  it('goes through node-pty while its queue holds something (order), or once its socket is gone (a reused fd)', () => {
    const fd = openSync(join(dir, 'untouched'), 'w');
    const busy = fakePty(fd, [{}]);
    ptyWriter(busy.pty).write('later');
    const gone = fakePty(fd, [], true);
    ptyWriter(gone.pty).write('nowhere');
    closeSync(fd);
    expect(readFileSync(join(dir, 'untouched'), 'utf8')).toBe('');
    expect(busy.queued.map(String)).toEqual(['later']);
    expect(gone.queued.map(String)).toEqual(['nowhere']);
  });

  it('drops input the descriptor refuses for good (not EAGAIN) instead of queueing it', () => {
    const fd = openSync('/dev/full', 'w'); // every write fails with ENOSPC
    const { pty, queued } = fakePty(fd);
    ptyWriter(pty).write('x');
    closeSync(fd);
    expect(queued).toEqual([]);
  });

  it('falls back to node-pty entirely when its internals are not the expected ones', () => {
    const queued: unknown[] = [];
    const w = ptyWriter({ write: (d: unknown) => void queued.push(d) } as unknown as IPty);
    expect(w.direct).toBe(false);
    w.write('k');
    expect(queued).toEqual(['k']);
  });
});
