import { mkdtempSync, readFileSync, readSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { buildRowEnv } from '../../../src/rows/row-env.js';
import { RowProcess, type RowExit, type RowProcessOptions } from '../../../src/rows/row-process.js';
import { isProcessAlive } from '../../../src/rows/process-tree.js';
import { nextEvent, program } from './helpers.js';
import { waitUntil } from '../../helpers/wait-until.js';

const dir = mkdtempSync(join(tmpdir(), 'swb-row-process-'));
const live: RowProcess[] = [];

function start(options: Partial<RowProcessOptions> & Pick<RowProcessOptions, 'command'>): RowProcess {
  const proc = new RowProcess({ env: buildRowEnv(), cols: 80, rows: 24, killGraceMs: 500, ...options });
  live.push(proc);
  return proc;
}

function collect(proc: RowProcess): { text: () => string } {
  const chunks: Buffer[] = [];
  proc.onData((chunk) => chunks.push(chunk));
  return { text: () => Buffer.concat(chunks).toString('latin1') };
}

afterEach(() => {
  for (const proc of live.splice(0)) proc.dispose();
});

/** The fds any epoll set of this process watches (/proc/self/fdinfo of each eventpoll fd: "tfd: N ..."). */
function epollWatched(): Set<number> {
  const watched = new Set<number>();
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    if (target !== 'anon_inode:[eventpoll]') continue;
    for (const m of readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').matchAll(/^tfd:\s+(\d+)/gm)) watched.add(Number(m[1]));
  }
  return watched;
}
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('RowProcess', () => {
  test('a program that prints 20 KB and exits at once delivers every byte before its exit (20 runs)', async () => {
    for (let run = 0; run < 20; run++) {
      const file = join(dir, `burst-${run}`);
      const proc = start({ command: { file: program('burst-exit.sh'), args: ['15000', file, '3'] } });
      const out = collect(proc);
      let bytesAtExit = -1;
      const exit = await nextEvent(
        (listener: (e: RowExit) => void) =>
          proc.onExit((e) => {
            bytesAtExit = out.text().length;
            listener(e);
          }),
        `exit of run ${run}`,
      );
      const expected = readFileSync(file, 'latin1').replace(/\n/g, '\r\n');
      expect(expected.length).toBeGreaterThan(20_000);
      expect(exit).toEqual({ exitCode: 3, signal: null });
      expect(bytesAtExit).toBe(expected.length);
      expect(out.text()).toBe(expected);
    }
  });

  test('a row paused for flow control when its program exits still gets every byte', async () => {
    // Small enough to fit in what the kernel (and the stream's read-ahead) hold while paused:
    // a paused row's program cannot finish writing more than that, let alone exit.
    const file = join(dir, 'burst-paused');
    const proc = start({ command: { file: program('burst-exit.sh'), args: ['4000', file, '0'] } });
    proc.pause();
    const out = collect(proc);
    const exit = await nextEvent(proc.onExit, 'exit while paused');
    expect(exit.exitCode).toBe(0);
    expect(out.text()).toBe(readFileSync(file, 'latin1').replace(/\n/g, '\r\n'));
  });

  test.runIf(process.platform === 'linux')("paused, its pty leaves the event loop's epoll set at once (what the program writes meanwhile wakes nothing); resumed, it is read again", async () => {
    const proc = start({ command: { file: 'cat' } });
    const out = collect(proc);
    const fd = proc.directInputFd!;
    expect(fd).toBeTypeOf('number');
    await waitUntil(() => epollWatched().has(fd), { what: "the pty in the loop's epoll set" });
    proc.pause();
    // libuv alone would keep it there until it next turned readable (native/loop-disarm.c).
    expect(epollWatched().has(fd)).toBe(false);
    proc.write('while paused\r');
    // cat has written the line back (after the terminal's own echo of it): output waits unread.
    const written = () => Number(/^wchar:\s+(\d+)/m.exec(readFileSync(`/proc/${proc.pid}/io`, 'utf8'))?.[1]);
    await waitUntil(() => written() >= 'while paused\n'.length, { what: 'cat to write the line back' });
    expect(epollWatched().has(fd)).toBe(false);
    expect(out.text()).toBe('');
    proc.resume();
    await waitUntil(() => out.text().includes('while paused'), { what: 'the output written while paused, read after the resume' });
    expect(epollWatched().has(fd)).toBe(true);
  });

  test.runIf(process.platform === 'linux')("a row's program holds only its own pty, not earlier rows' masters", async () => {
    const first = start({ command: { file: program('hold-fds.sh') } });
    const firstOut = collect(first);
    const second = start({ command: { file: program('hold-fds.sh') } });
    const secondOut = collect(second);
    await waitUntil(() => firstOut.text().includes('READY') && secondOut.text().includes('READY'), { what: 'both programs ready', timeoutMs: 10_000 });
    // Before hold-fds.sh execs `sleep`, sh still holds its script open, and sleep itself briefly
    // opens locale files while starting: wait for the steady state. A leaked master never closes.
    const openFds = (pid: number) => readdirSync(`/proc/${pid}/fd`).sort().join(',');
    for (const proc of [first, second]) {
      await waitUntil(() => openFds(proc.pid) === '0,1,2', { what: `pid ${proc.pid} to hold only 0-2 (has ${openFds(proc.pid)})`, timeoutMs: 5000 });
      const targets = ['0', '1', '2'].map((fd) => readlinkSync(`/proc/${proc.pid}/fd/${fd}`));
      expect(new Set(targets).size).toBe(1);
      expect(targets[0]).toMatch(/^\/dev\/pts\/\d+$/);
    }
    const firstPts = readlinkSync(`/proc/${first.pid}/fd/0`);
    expect(readlinkSync(`/proc/${second.pid}/fd/0`)).not.toBe(firstPts);
  });

  test.runIf(process.platform === 'linux')('the fd-closing wrapper keeps stderr and does not source $BASH_ENV', async () => {
    const bashEnv = join(dir, 'bash-env.sh');
    writeFileSync(bashEnv, 'echo BASH-ENV-SOURCED\n');
    const proc = start({
      command: { file: '/bin/sh', args: ['-c', 'echo "to-stderr $BASH_ENV" >&2'] },
      env: buildRowEnv({ extra: { BASH_ENV: bashEnv } }),
    });
    const out = collect(proc);
    await nextEvent(proc.onExit, 'exit');
    expect(out.text()).toContain(`to-stderr ${bashEnv}`);
    expect(out.text()).not.toContain('BASH-ENV-SOURCED');
  });

  test('runs a shell command line with $SHELL -c and reports its exit code', async () => {
    const proc = start({ command: { shell: 'echo "$((6 * 7))"; exit 5' }, env: buildRowEnv({ extra: { SHELL: '/bin/sh' } }) });
    const out = collect(proc);
    const exit = await nextEvent(proc.onExit, 'shell exit');
    expect(exit).toEqual({ exitCode: 5, signal: null });
    expect(out.text()).toContain('42');
    expect(proc.running).toBe(false);
  });

  test('a program killed by a signal reports the signal', async () => {
    const proc = start({ command: { file: program('hold-fds.sh') } });
    const out = collect(proc);
    await waitUntil(() => out.text().includes('READY'), { what: 'ready', timeoutMs: 10_000 });
    proc.kill('SIGTERM');
    const exit = await nextEvent(proc.onExit, 'exit after SIGTERM');
    expect(exit.signal).toBe('SIGTERM');
  });

  test('a missing program exits non-zero with a message instead of throwing', async () => {
    const proc = start({ command: { file: 'swb-no-such-program-xyz' } });
    const out = collect(proc);
    const exit = await nextEvent(proc.onExit, 'exit of a missing program');
    expect(exit.exitCode).not.toBe(0);
    expect(out.text()).toMatch(/not found|No such file/);
  });

  test('dispose ends the whole process group, including background children', async () => {
    const proc = start({ command: { shell: 'sleep 30 & echo "CHILD $!"; wait' }, env: buildRowEnv({ extra: { SHELL: '/bin/sh' } }) });
    const out = collect(proc);
    await waitUntil(() => /CHILD \d+/.test(out.text()), { what: 'child started', timeoutMs: 10_000 });
    const child = Number(/CHILD (\d+)/.exec(out.text())![1]);
    expect(isProcessAlive(child)).toBe(true);
    expect(proc.processesAlive()).toBe(true);
    proc.dispose();
    await waitUntil(() => !isProcessAlive(proc.pid) && !isProcessAlive(child), { what: 'leader and child gone', timeoutMs: 10_000 });
  });

  test('processes that ignore SIGHUP are killed after the grace period', async () => {
    const proc = start({
      command: { shell: "trap '' HUP; echo READY; while :; do sleep 1; done" },
      env: buildRowEnv({ extra: { SHELL: '/bin/sh' } }),
      killGraceMs: 200,
    });
    const out = collect(proc);
    await waitUntil(() => out.text().includes('READY'), { what: 'ready', timeoutMs: 10_000 });
    proc.dispose();
    await waitUntil(() => !proc.processesAlive(), { what: 'stubborn program killed', timeoutMs: 5000 });
  });
  test('input is written straight to the pty, and a paste larger than the kernel takes keeps its order', async () => {
    const file = join(dir, 'typed');
    // Raw mode: no line-length limit, no echo; `head -c` ends once it has every byte.
    const paste = Buffer.alloc(300_000);
    for (let i = 0; i < paste.length; i++) paste[i] = 97 + (i % 26);
    const keys = Array.from({ length: 50 }, (_, i) => `<${i}>`).join('');
    const total = 2 + paste.length + keys.length + 3;
    const proc = start({ command: { file: '/bin/sh', args: ['-c', `stty raw -echo; echo READY; head -c ${total} > ${file}; echo DONE`] } });
    const out = collect(proc);
    await waitUntil(() => out.text().includes('READY'), { what: 'ready', timeoutMs: 10_000 });
    expect(proc.writesDirectly).toBe(true);
    proc.write('k0');
    proc.write(paste); // the kernel takes a few KB; node-pty queues the rest
    for (let i = 0; i < 50; i++) proc.write(`<${i}>`); // must wait behind the queued paste
    proc.write('END');
    await waitUntil(() => out.text().includes('DONE'), { what: 'all input read', timeoutMs: 20_000 });
    expect(readFileSync(file, 'latin1')).toBe(`k0${paste.toString('latin1')}${keys}END`);
  });
  test('lent, the output is read by the borrower alone, also when the loan is taken as output arrives and another ended; then it goes on in order', async () => {
    const proc = start({ command: { file: '/bin/sh', args: ['-c', 'stty raw -echo; echo READY; exec cat'] } });
    const out = collect(proc);
    await waitUntil(() => out.text().includes('READY'), { what: 'ready', timeoutMs: 10_000 });
    const fd = proc.directInputFd!;
    // The borrower's read: the descriptor is non-blocking (EAGAIN while there is nothing).
    const borrowed: string[] = [];
    const readOnce = (): void => {
      const buf = Buffer.alloc(4096);
      try {
        const n = readSync(fd, buf, 0, buf.length, null);
        if (n > 0) borrowed.push(buf.toString('latin1', 0, n));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      }
    };
    for (const word of ['first', 'second']) {
      // As the painter does: output arrives, a loan ends and the next is taken in the same turn
      // (node-pty's stream is between reads then, and the resume the first loan's end asked for
      // is still to come).
      let loan: ReturnType<RowProcess['lendOutput']>;
      const sub = proc.onData((chunk) => {
        if (!chunk.toString('latin1').endsWith(`go-${word}`)) return;
        proc.lendOutput(() => {})!.end();
        loan = proc.lendOutput(() => {});
      });
      proc.write(`go-${word}`);
      await waitUntil(() => loan !== undefined, { what: 'the loan', timeoutMs: 10_000 });
      sub.dispose();
      const seen = out.text().length;
      proc.write(word);
      await waitUntil(() => {
        readOnce();
        return borrowed.join('').endsWith(word);
      }, { what: `${word} read by the borrower`, timeoutMs: 10_000 });
      expect(out.text().length).toBe(seen); // node-pty read none of it
      loan!.deliver(Buffer.from(borrowed.splice(0).join(''), 'latin1'));
      loan!.end();
      proc.write(`-${word}-after`);
      await waitUntil(() => out.text().endsWith(`go-${word}${word}-${word}-after`), { what: 'node-pty to read again', timeoutMs: 10_000 });
    }
  });
});
