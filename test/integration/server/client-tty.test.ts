// The server takes a client's terminal from the client process itself (/proc/PID/fd/0), never from
// a path the client names: these open real terminals of real processes and check what is refused.
import { spawn as spawnChild } from 'node:child_process';
import { readlinkSync, statSync } from 'node:fs';
import type { ReadStream } from 'node:tty';
import { afterEach, describe, expect, test } from 'vitest';
import { readProcStat } from '../../../src/rows/process-tree.js';
import { openClientTty, ttyWriter } from '../../../src/server/client-tty.js';
import { deferCleanup, runCleanups } from '../../helpers/cleanup.js';
import { descriptorsTo } from '../../helpers/processes.js';
import { inPty } from '../../helpers/in-pty.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

function expectTty(opened: ReadStream | string): ReadStream {
  if (typeof opened === 'string') throw new Error(`refused: ${opened}`);
  deferCleanup('opened tty', () => opened.destroy());
  return opened;
}

describe.runIf(process.platform === 'linux')('openClientTty', () => {
  test('opens the terminal the process holds: it reads the keys typed there and its writes show there', async () => {
    // stty raw: the keys reach a reader at once (the thin client sets raw mode the same way).
    const { pty, output } = await inPty('stty raw -echo; echo READY; exec sleep 60');
    const tty = expectTty(openClientTty(pty.pid));
    const keys: Buffer[] = [];
    tty.on('data', (b: Buffer) => keys.push(b));
    pty.write('typed');
    await waitUntil(() => Buffer.concat(keys).toString() === 'typed', { what: 'the keys to reach the opened terminal' });
    tty.write('DRAWN-BY-SERVER');
    await waitUntil(() => output().includes('DRAWN-BY-SERVER'), { what: 'the write to show in the terminal' });
  });

  test('ttyWriter never blocks on a terminal that does not read: what it does not take waits in the stream and arrives in order', async () => {
    const { pty, output } = await inPty('stty raw -echo; echo READY; exec sleep 60');
    const tty = expectTty(openClientTty(pty.pid));
    const write = ttyWriter(tty);
    write('<first>');
    await waitUntil(() => output().includes('<first>'), { what: 'a direct write to show in the terminal' });
    // Nobody reads the terminal now: the kernel's buffer fills and the rest must queue (a blocking
    // write would hang this loop, and with it the server).
    pty.pause();
    // One byte at a time until the terminal takes no more: the byte it refused (EAGAIN, not even
    // part of it) is the stream's to write.
    let filled = 0;
    while (tty.writableLength === 0 && filled < 4 * 1024 * 1024) {
      write('.');
      filled++;
    }
    expect(tty.writableLength).toBe(1);
    const chunks = 100;
    for (let i = 0; i < chunks; i++) write(`<${i}>${'x'.repeat(4000)}`);
    expect(tty.writableLength).toBeGreaterThan(0);
    // The first read makes room in the terminal while the stream still holds the rest: a write
    // then must still go after them.
    const late = new Promise<void>((resolve) => {
      const first = pty.onData(() => {
        first.dispose();
        expect(tty.writableLength).toBeGreaterThan(0);
        write('<late>');
        resolve();
      });
    });
    pty.resume();
    await late;
    await waitUntil(() => output().includes('<late>'), { timeoutMs: 20_000, what: 'every write to arrive once the terminal reads' });
    const seen = [...output().matchAll(/<(\d+|late)>/g)].map((m) => m[1]);
    expect(seen).toEqual([...Array.from({ length: chunks }, (_, i) => String(i)), 'late']);
    expect(output().split('<first>')[1]!.split('<0>')[0]).toBe('.'.repeat(filled));
    expect(output().split('<0>')[1]!.replace(/<(\d+|late)>/g, '')).toBe('x'.repeat(4000 * chunks));
  });

  test('never becomes this process\u2019s controlling terminal, and closing it leaves no descriptor behind', async () => {
    const { pty } = await inPty('echo READY; exec sleep 60');
    const target = readlinkSync(`/proc/${pty.pid}/fd/0`);
    const before = descriptorsTo('self', target);
    const tty = expectTty(openClientTty(pty.pid));
    expect(descriptorsTo('self', target)).toBe(before + 1);
    expect(readProcStat(process.pid)?.ttyNr).not.toBe(statSync(target).rdev);
    await new Promise<void>((resolve) => {
      tty.once('close', () => resolve());
      tty.destroy();
    });
    expect(descriptorsTo('self', target)).toBe(before);
  });

  test('a process whose stdin is not a terminal is refused with a reason', async () => {
    const child = spawnChild('sleep', ['60'], { stdio: ['ignore', 'ignore', 'ignore'] });
    deferCleanup('sleep', () => child.kill('SIGKILL'));
    await waitUntil(() => child.pid !== undefined, { what: 'sleep to start' });
    expect(openClientTty(child.pid!)).toMatch(/stdin is not a terminal \(\/dev\/null\)/);
  });

  test('stdin and stdout on different terminals are refused', async () => {
    const other = await inPty('echo READY; exec sleep 60');
    const otherTty = readlinkSync(`/proc/${other.pty.pid}/fd/0`);
    const { pty } = await inPty(`exec 1>${otherTty}; echo READY >&2; exec sleep 60`);
    const opened = openClientTty(pty.pid);
    if (typeof opened !== 'string') {
      // Seen once in a loaded full run: say what the process held then.
      opened.destroy();
      const fd = (n: number) => {
        try {
          return readlinkSync(`/proc/${pty.pid}/fd/${n}`);
        } catch (err) {
          return String(err);
        }
      };
      throw new Error(`opened a terminal: fd 0 ${fd(0)}, fd 1 ${fd(1)}, the other terminal ${otherTty} (pid ${pty.pid}, other ${other.pty.pid})`);
    }
    expect(opened).toMatch(/not one terminal/);
  });

  test('a pid that is no process, or none at all, is refused', () => {
    expect(openClientTty(0)).toMatch(/does not name the client process/);
    expect(openClientTty(2 ** 22 + 7)).toMatch(/out of reach/);
  });
});
