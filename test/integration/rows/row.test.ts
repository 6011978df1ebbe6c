import { afterEach, describe, expect, test, vi } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HIDDEN_READ_MS, Row, type RowOptions, type RowSpec } from '../../../src/rows/row.js';
import { renderViewport } from '../../../src/rows/render-viewport.js';
import { isProcessAlive } from '../../../src/rows/process-tree.js';
import { nextEvent, nodeProgram, program, rowOptions } from './helpers.js';
import { waitUntil } from '../../helpers/wait-until.js';

const rows: Row[] = [];

function startRow(spec: Omit<RowSpec, 'name'> & { name?: string }, overrides: Partial<RowOptions> = {}): Row {
  const row = new Row({ ...rowOptions(overrides), spec: { name: 'r1', ...spec } });
  rows.push(row);
  return row;
}

function screenText(row: Row): string {
  return row.screen.snapshot().lines.join('\n');
}

function transcript(row: Row): string {
  return row.transcript!.toBuffer().toString('utf8');
}

afterEach(() => {
  for (const row of rows.splice(0)) row.dispose();
});

describe('Row', () => {
  test('coloured output lands in the screen and renders with the same SGR', async () => {
    const row = startRow({ command: { file: program('colors.sh') } });
    await waitUntil(() => screenText(row).includes('COLORS-DONE'), { what: 'colours drawn', timeoutMs: 10_000 });
    const line = renderViewport(row.screen, { top: 0, height: 1, width: 50 })[0] ?? '';
    expect(line).toContain('\x1b[0;1;31mred-bold\x1b[0m');
    expect(line).toContain('\x1b[0;38;5;208morange\x1b[0m');
    expect(line).toContain('\x1b[0;38;2;10;20;30;48;2;200;100;50mtrue\x1b[0m');
    expect(line).toContain('\x1b[0;3;4mitalic-under\x1b[0m');
    expect(line.endsWith('\x1b[0m')).toBe(true);
  });

  test('20 KB printed then an immediate exit shows every byte on screen and in the transcript (20 runs)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'swb-row-'));
    try {
      for (let run = 0; run < 20; run++) {
        const file = join(dir, `out-${run}`);
        const row = startRow({ command: { file: program('burst-exit.sh'), args: ['15000', file, '3'] } }, { transcriptBytes: 1024 * 1024 });
        const exit = await nextEvent(row.onExit, `exit of run ${run}`);
        expect(exit.exitCode).toBe(3);
        expect(row.state).toBe('exited');
        const printed = readFileSync(file, 'latin1');
        expect(transcript(row)).toBe(printed.replace(/\n/g, '\r\n'));
        // base64 lines are 76 columns: the last 23 fill the screen above the empty cursor line.
        const tail = printed.trimEnd().split('\n').slice(-23);
        expect(row.screen.snapshot().lines).toEqual([...tail, '']);
        row.dispose();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('answers a device attributes request (DA1) back to the program', async () => {
    const row = startRow({ command: nodeProgram('query-terminal.mjs', '\\e[c', 'c$') });
    const exit = await nextEvent(row.onExit, 'query program exit');
    expect(exit.exitCode).toBe(0);
    expect(screenText(row)).toMatch(/REPLY "\\u001b\[\?[\d;]+c"/);
  });

  test('answers a cursor position request (CPR) back to the program', async () => {
    const row = startRow({ command: nodeProgram('query-terminal.mjs', '\\e[5;7H\\e[6n', 'R$') });
    const exit = await nextEvent(row.onExit, 'query program exit');
    expect(exit.exitCode).toBe(0);
    expect(screenText(row)).toContain('REPLY "\\u001b[5;7R"');
  });

  test('a 20 MB flood keeps the parse backlog and memory bounded and ends showing its last line', async () => {
    const highWatermark = 256 * 1024;
    const row = startRow({ command: { file: program('flood.sh'), args: [String(20_000_000)] } }, { highWatermark, transcriptBytes: 1024 * 1024 });
    let maxPending = 0;
    let maxRss = 0;
    const rssBefore = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      maxPending = Math.max(maxPending, row.screen.pendingBytes);
      maxRss = Math.max(maxRss, process.memoryUsage().rss);
    }, 5);
    try {
      const exit = await nextEvent(row.onExit, 'flood exit', 120_000);
      expect(exit.exitCode).toBe(0);
    } finally {
      clearInterval(sampler);
    }
    expect(row.transcript!.totalWritten).toBeGreaterThanOrEqual(20_000_000 + 'FLOOD-END\n'.length);
    const lines = row.screen.snapshot().lines;
    expect(lines[lines.length - 2]).toBe('FLOOD-END');
    expect(lines[lines.length - 3]).toBe('y');
    // One pty read can overshoot the watermark; the drain at exit adds at most the kernel buffer.
    expect(maxPending).toBeLessThan(highWatermark + 256 * 1024);
    expect(maxRss - rssBefore).toBeLessThan(150 * 1024 * 1024);
  }, 180_000);

  test('a seq flood is fast-forwarded and still leaves every line of history in order', async () => {
    const scrollback = 1000;
    const row = startRow({ command: { file: 'seq', args: ['1', '200000'] } }, { scrollback });
    const exit = await nextEvent(row.onExit, 'seq exit', 60_000);
    expect(exit.exitCode).toBe(0);
    // Most of the flood scrolled out of history unparsed...
    expect(row.screen.fastForwardedBytes).toBeGreaterThan(0);
    // ...and what is kept is exactly what a full parse keeps: the last lines, consecutive, in order
    // (the older ones spilled out of the emulator as text, the newer ones in it).
    const kept = row.screen.historyLines();
    expect(row.screen.buffer.length).toBeLessThan(kept.length);
    const numbers = kept.map(Number);
    expect(numbers[numbers.length - 1]).toBe(200000);
    expect(numbers).toEqual(numbers.map((_, i) => 200000 - numbers.length + 1 + i));
    // A full history and the screen, less the empty cursor line historyLines drops.
    expect(kept.length).toBe(scrollback + row.screen.rows - 1);
  }, 90_000);

  test('stays urgent while any client is attached: one of two leaving does not end it for the other', () => {
    const row = startRow({ command: { file: 'cat' } });
    const first = row.attach(() => {});
    const second = row.attach(() => {});
    first.dispose();
    first.dispose(); // a handle counts once
    expect(row.screen.urgent).toBe(true);
    second.dispose();
    expect(row.screen.urgent).toBe(false);
  });

  test('keys typed into an attached row make the parse turns due wait for the kernel to deliver them', async () => {
    const row = startRow({ command: { file: 'cat' } });
    const yields = vi.spyOn(row.screen, 'yieldTurns');
    row.write('a');
    expect(yields).not.toHaveBeenCalled(); // nobody attached: nothing is urgent
    const handle = row.attach(() => {});
    row.write('b\r');
    expect(yields).toHaveBeenCalledTimes(1);
    await waitUntil(() => screenText(row).includes('ab'), { what: 'the echo', timeoutMs: 10_000 });
    handle.dispose();
  });

  test('a row nobody draws reads a trickle in batches, loses nothing, and reads at once again when shown', async () => {
    // 200 lines, one every 2 ms, then an exit: about 400 ms of trickle.
    const trickle = (name: string) =>
      startRow({
        name,
        command: { file: process.execPath, args: ['-e', "let n = 0; const t = setInterval(() => { process.stdout.write(`tick ${n++}\\n`); if (n === 200) { clearInterval(t); setTimeout(() => process.exit(0), 20); } }, 2)"] },
      });
    const hidden = trickle('hidden');
    const shown = trickle('shown');
    const handle = shown.show(() => {});
    const changes = { hidden: 0, shown: 0 };
    hidden.onScreenChange(() => changes.hidden++);
    shown.onScreenChange(() => changes.shown++);
    const started = performance.now();
    await Promise.all([nextEvent(hidden.onExit, 'hidden exit'), nextEvent(shown.onExit, 'shown exit')]);
    const elapsed = performance.now() - started;
    for (const row of [hidden, shown]) expect(row.screen.historyLines().filter((l) => l.startsWith('tick')).length).toBe(200);
    // One read (and so one change) per batch at most, plus the exit's; the shown row reads as lines come.
    expect(changes.hidden).toBeLessThanOrEqual(Math.ceil(elapsed / HIDDEN_READ_MS) + 3);
    expect(changes.shown).toBeGreaterThan(changes.hidden);
    handle.dispose();
  });

  test('a flooding row does not starve another row or the event loop', async () => {
    const flood = startRow({ name: 'flood', command: { file: program('flood.sh'), args: [String(30_000_000)] } }, { transcriptBytes: 1024 });
    const echo = startRow({ name: 'echo', command: { file: 'cat' } });
    await waitUntil(() => flood.transcript!.totalWritten > 1_000_000, { what: 'flood under way', timeoutMs: 10_000 });
    let maxGap = 0;
    let last = performance.now();
    let probing = true;
    const probe = () => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
      if (probing) setImmediate(probe);
    };
    setImmediate(probe);
    const roundTrips: number[] = [];
    try {
      for (let i = 0; i < 5; i++) {
        const marker = `ping-${i}`;
        const sent = performance.now();
        echo.write(`${marker}\r`);
        await waitUntil(() => screenText(echo).includes(marker), { what: `echo of ${marker}`, timeoutMs: 10_000, intervalMs: 1 });
        roundTrips.push(performance.now() - sent);
      }
      expect(flood.state).toBe('running');
    } finally {
      probing = false;
    }
    // Generous bounds: shared CI machines are noisy; starvation would mean seconds.
    expect(Math.max(...roundTrips)).toBeLessThan(1000);
    expect(maxGap).toBeLessThan(1000);
  }, 60_000);

  test('resize reflows the screen and the program sees the new size', async () => {
    const row = startRow({ command: nodeProgram('report-size.mjs') }, { cols: 80, rows: 24 });
    await waitUntil(() => screenText(row).includes('SIZE 80x24'), { what: 'initial size', timeoutMs: 10_000 });
    row.resize(100, 30);
    expect(row.screen.cols).toBe(100);
    expect(row.screen.rows).toBe(30);
    await waitUntil(() => screenText(row).includes('SIZE 100x30'), { what: 'program saw the new size', timeoutMs: 10_000 });
    expect(row.screen.snapshot().lines).toHaveLength(30);
  });

  test("gives the program its terminal type, identity and swb's bin dir first on PATH", async () => {
    const row = startRow(
      { name: 'alice', command: { file: program('print-env.sh') } },
      { socketPath: '/run/swb/hub.sock', binDir: '/opt/swb-bin', mintToken: () => 'secret-1' },
    );
    await waitUntil(() => screenText(row).includes('ENV-DONE'), { what: 'env printed', timeoutMs: 10_000 });
    const text = screenText(row);
    expect(text).toContain('TERM=xterm-256color');
    expect(text).toContain('COLORTERM=truecolor');
    expect(text).toContain('SWB_SOCKET=/run/swb/hub.sock');
    expect(text).toContain('SWB_SESSION=alice');
    expect(text).toContain('SWB_TOKEN=secret-1');
    expect(text).toContain('FIRST_PATH=/opt/swb-bin');
  });

  test('restart starts a new process on a fresh screen with a new token', async () => {
    let minted = 0;
    const row = startRow({ command: { file: program('print-env.sh') } }, { mintToken: () => `tok-${++minted}` });
    await waitUntil(() => screenText(row).includes('SWB_TOKEN=tok-1'), { what: 'first run', timeoutMs: 10_000 });
    const firstPid = row.pid;
    const firstScreen = row.screen;
    const restarted = nextEvent(row.onRestart, 'restart');
    row.restart();
    await restarted;
    expect(row.pid).not.toBe(firstPid);
    expect(row.screen).not.toBe(firstScreen);
    expect(row.state).toBe('running');
    expect(row.incarnation).toBe(2);
    await waitUntil(() => screenText(row).includes('SWB_TOKEN=tok-2'), { what: 'second run', timeoutMs: 10_000 });
    expect(screenText(row)).not.toContain('tok-1');
    await waitUntil(() => !isProcessAlive(firstPid), { what: 'first process gone', timeoutMs: 10_000 });
  });

  test('an exited row can be restarted', async () => {
    const row = startRow({ command: { shell: 'echo run; exit 7' } });
    expect((await nextEvent(row.onExit, 'first exit')).exitCode).toBe(7);
    expect(row.exitCode).toBe(7);
    row.restart();
    expect(row.state).toBe('running');
    expect(row.exitCode).toBeUndefined();
    expect((await nextEvent(row.onExit, 'second exit')).exitCode).toBe(7);
  });

  test('operator input reaches the program', async () => {
    const row = startRow({ command: { shell: 'read line; echo "GOT:$line"' } });
    row.write('hello\r');
    await nextEvent(row.onExit, 'exit after input');
    expect(screenText(row)).toContain('GOT:hello');
  });

  test('screen changes are announced at most once per event-loop turn', async () => {
    const row = startRow({ command: { file: program('flood.sh'), args: ['2000000'] } });
    let notifications = 0;
    let sameTurn = false;
    let pendingTurn = false;
    row.onScreenChange(() => {
      notifications++;
      if (pendingTurn) sameTurn = true;
      pendingTurn = true;
      setImmediate(() => (pendingTurn = false));
    });
    await nextEvent(row.onExit, 'flood exit', 60_000);
    expect(notifications).toBeGreaterThan(0);
    expect(sameTurn).toBe(false);
    expect(row.lastOutputAt).toBeGreaterThan(0);
  });

  test('dispose leaves no child process alive', async () => {
    const row = startRow({ command: { shell: 'sleep 30 & echo "CHILD $!"; sleep 30' } });
    await waitUntil(() => /CHILD \d+/.test(screenText(row)), { what: 'child started', timeoutMs: 10_000 });
    const child = Number(/CHILD (\d+)/.exec(screenText(row))![1]);
    const leader = row.pid;
    row.dispose();
    await waitUntil(() => !isProcessAlive(leader) && !isProcessAlive(child), { what: 'row processes gone', timeoutMs: 10_000 });
    expect(row.disposed).toBe(true);
  });
});
