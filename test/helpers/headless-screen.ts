// Test helper: runs a program in node-pty, emulates its screen with @xterm/headless and returns
// ScreenSnapshots (with dim ranges and cursor visibility), so profiles can be checked against live
// TUIs (the fake agent, or a real agent CLI when capturing fixtures).
import xtermHeadless from '@xterm/headless';
import type { IBufferCell } from '@xterm/headless';
import pty from 'node-pty';
import { liveProcessesWhere } from '../../src/rows/process-tree.js';
import type { ScreenSnapshot } from '../../src/rows/screen-snapshot.js';
import { waitUntil } from './wait-until.js';

const { Terminal } = xtermHeadless;

export interface HeadlessRun {
  snapshot(): ScreenSnapshot;
  write(data: string): void;
  /** Resolves when `pred` holds for a snapshot, or rejects after `timeoutMs` with the last screen. */
  waitFor(pred: (s: ScreenSnapshot) => boolean, timeoutMs?: number, what?: string): Promise<ScreenSnapshot>;
  onChange(listener: () => void): void;
  readonly exited: Promise<number>;
  /** SIGTERM to the program's process group, SIGKILL 1.5 s later if any of it lingers. */
  kill(): void;
  /** Resolves once no process of the program's group is left (after kill(): the SIGKILL landed). */
  gone(timeoutMs?: number): Promise<void>;
}

const SETTLE_MS = 15;
const MAX_UNSETTLED_MS = 150;

export function runHeadless(
  file: string,
  args: string[],
  opts: { cols?: number; rows?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): HeadlessRun {
  const cols = opts.cols ?? 100;
  const rows = opts.rows ?? 30;
  const term = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 1000 });
  let cursorVisible = true;
  let title = '';
  term.onTitleChange((t) => (title = t));
  term.parser.registerCsiHandler({ prefix: '?', final: 'h' }, (params) => {
    if (params.includes(25)) cursorVisible = true;
    return false;
  });
  term.parser.registerCsiHandler({ prefix: '?', final: 'l' }, (params) => {
    if (params.includes(25)) cursorVisible = false;
    return false;
  });
  const listeners: Array<() => void> = [];
  const proc = pty.spawn(file, args, { name: 'xterm-256color', cols, rows, cwd: opts.cwd ?? process.cwd(), env: opts.env ?? process.env });
  // Listeners run once the output has paused (SETTLE_MS without a new chunk), not per pty read: a
  // frame the program wrote in one go can arrive split across reads, and a predicate checked on the
  // first half sees a screen the program never showed (a spinner with no prompt box under it).
  // A program that never pauses is still checked every MAX_UNSETTLED_MS.
  let settleTimer: NodeJS.Timeout | undefined;
  let unsettledSince = 0;
  const notify = (): void => {
    settleTimer = undefined;
    unsettledSince = 0;
    for (const l of [...listeners]) l();
  };
  proc.onData((d) =>
    term.write(d, () => {
      const now = Date.now();
      if (unsettledSince === 0) unsettledSince = now;
      if (now - unsettledSince >= MAX_UNSETTLED_MS && settleTimer) return; // let the pending check run
      if (settleTimer) clearTimeout(settleTimer);
      settleTimer = setTimeout(notify, now - unsettledSince >= MAX_UNSETTLED_MS ? 0 : SETTLE_MS);
    }),
  );
  term.onData((d) => proc.write(d)); // answers to terminal queries
  const exited = new Promise<number>((resolve) => proc.onExit((e) => resolve(e.exitCode)));
  let cell: IBufferCell | undefined;

  function snapshot(): ScreenSnapshot {
    const buf = term.buffer.active;
    cell ??= buf.getNullCell();
    const lines: string[] = [];
    const dimRanges: Array<Array<[number, number]>> = [];
    for (let y = 0; y < rows; y++) {
      const line = buf.getLine(buf.baseY + y);
      lines.push(line ? line.translateToString(true).replace(/ +$/, '') : '');
      const ranges: Array<[number, number]> = [];
      let start = -1;
      for (let x = 0; line && x < cols; x++) {
        const dim = line.getCell(x, cell)?.isDim() ? true : false;
        if (dim && start < 0) start = x;
        if (!dim && start >= 0) {
          ranges.push([start, x]);
          start = -1;
        }
      }
      if (start >= 0) ranges.push([start, cols]);
      dimRanges.push(ranges);
    }
    return {
      lines,
      cols,
      rows,
      cursor: { x: buf.cursorX, y: buf.cursorY, visible: cursorVisible },
      title,
      alternateScreen: buf.type === 'alternate',
      dimRanges,
    };
  }

  function waitFor(pred: (s: ScreenSnapshot) => boolean, timeoutMs = 10_000, what = 'condition'): Promise<ScreenSnapshot> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const s = snapshot();
        if (!pred(s)) return false;
        clearTimeout(timer);
        const i = listeners.indexOf(check);
        if (i >= 0) listeners.splice(i, 1);
        resolve(s);
        return true;
      };
      const timer = setTimeout(() => {
        const i = listeners.indexOf(check);
        if (i >= 0) listeners.splice(i, 1);
        reject(new Error(`timed out waiting for ${what}; screen:\n${snapshot().lines.join('\n')}`));
      }, timeoutMs);
      listeners.push(check);
      check();
    });
  }

  return {
    snapshot,
    write: (d) => proc.write(d),
    waitFor,
    onChange: (l) => listeners.push(l),
    exited,
    kill: () => {
      // The pty child leads its own process group; agent CLIs re-exec themselves (gemini) or start
      // helpers, and some ignore SIGHUP: end the whole group, forcibly if it lingers.
      const signal = (sig: NodeJS.Signals): void => {
        try {
          process.kill(-proc.pid, sig);
        } catch {
          // already gone
        }
      };
      signal('SIGTERM');
      setTimeout(() => signal('SIGKILL'), 1500).unref();
    },
    gone: async (timeoutMs = 5000) => {
      await waitUntil(() => liveProcessesWhere((stat) => stat.pgrp === proc.pid).length === 0, {
        timeoutMs,
        intervalMs: 20,
        what: `process group ${proc.pid} to go`,
      });
    },
  };
}

/** Renders a snapshot in the screen-fixture format (see screen-fixture.ts). */
export function toFixtureText(s: ScreenSnapshot, header: Record<string, string> = {}): string {
  const out: string[] = [];
  for (const [k, v] of Object.entries(header)) out.push(`# ${k}: ${v}`);
  out.push(`# size: ${s.cols}x${s.rows}`);
  out.push(`# cursor: ${s.cursor.x},${s.cursor.y}${s.cursor.visible ? '' : ' hidden'}`);
  if (s.title) out.push(`# title: ${s.title}`);
  if (s.alternateScreen) out.push('# alt: true');
  s.dimRanges?.forEach((ranges, row) => {
    for (const [a, b] of ranges) if (a < Array.from(s.lines[row] ?? '').length) out.push(`# dim: ${row} ${a}-${b >= s.cols ? '$' : b}`);
  });
  out.push('---');
  let last = s.lines.length;
  while (last > 0 && (s.lines[last - 1] ?? '') === '') last--;
  out.push(...s.lines.slice(0, last));
  return `${out.join('\n')}\n`;
}
