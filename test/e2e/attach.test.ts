// Attaching hands a row the whole terminal: the operator sees exactly what the program would
// draw in a bare terminal of that size, every key reaches it, and detaching brings the
// dashboard back with the terminal's input modes as the dashboard wants them. Attaching never waits
// for the terminal to answer swb's query of its name, and the keys typed while the query is open
// reach the row in order, the terminal's answer never among them.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { swbEnv } from '../helpers/run-swb.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import { startProgram, startSwb, type TerminalHarness } from '../helpers/terminal-harness.js';
import { traceMark } from '../helpers/start-trace-file.js';
import { waitUntil } from '../helpers/wait-until.js';

afterEach(runCleanups);

const COLS = 100;
const ROWS = 30;
/** A lone row on a 100x30 dashboard: header, 27 lines of viewport, strip and key hints. */
const VIEWPORT_ROWS = ROWS - 3;
/** Attached, the row has the terminal less its status line. */
const ATTACHED_ROWS = ROWS - 1;
const ATTACH = '\r';
const DETACH = '\x1c'; // Ctrl-\
const MODES_FIXTURE = join(import.meta.dirname, '../fixtures/programs/e2e-input-modes.sh');

function hasProgram(name: string): boolean {
  try {
    execFileSync('/bin/sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function writeDemoFile(home: TempHome): void {
  const lines = Array.from({ length: 200 }, (_, i) => `line ${String(i + 1).padStart(3, '0')}: ${i === 149 ? 'the needle is here' : 'hay '.repeat((i % 7) + 1).trimEnd()}`);
  writeFileSync(join(home.workspace, 'demo.txt'), `${lines.join('\n')}\n`);
}

/**
 * The same program alone in a pty. It starts at the row's viewport size and is then resized to
 * the terminal less the status line, as the row is when attached: programs redraw on SIGWINCH (less, for one,
 * then shows ":" where it first showed the file name), and the comparison is of equal lives.
 */
async function startBare(home: TempHome, file: string, args: string[], ready: string): Promise<TerminalHarness> {
  const env = swbEnv(home, { TERM: 'xterm-256color', COLORTERM: 'truecolor', LESSHISTFILE: '-' });
  const bare = startProgram(file, args, { cols: COLS, rows: VIEWPORT_ROWS, cwd: home.workspace, env });
  await bare.waitForText(ready);
  await bare.waitForStableScreen();
  bare.resize(COLS, ATTACHED_ROWS);
  return bare;
}

/** Waits until the attached view equals the bare program's settled screen, line by line; its status line is below. */
async function expectSameScreen(attached: TerminalHarness, bare: TerminalHarness, ready: string | RegExp): Promise<void> {
  await bare.waitForText(ready);
  const reference = await bare.waitForStableScreen();
  const view = () => attached.screenText().slice(0, ATTACHED_ROWS);
  await attached
    .waitFor(() => view().join('\n') === reference.join('\n'), 'the attached view to equal the bare program\u2019s screen')
    .catch(() => undefined); // the assertion below shows the difference
  expect(view()).toEqual(reference);
  expect(attached.screenText()[ATTACHED_ROWS]).toMatch(/^ ▸ @\w+ .*ctrl\+\\ detach\s*$/);
}

describe('attach', () => {
  test('attaching to less shows what less shows in a bare terminal, and keys reach it', async () => {
    const home = createTempHome();
    writeDemoFile(home);
    const bare = await startBare(home, 'less', ['demo.txt'], 'line 001');
    const t = startSwb({ home, args: ['pager=less demo.txt'], env: { LESSHISTFILE: '-' }, cols: COLS, rows: ROWS });
    await t.waitForText(/pager .*\n.*line 001/);
    t.write(ATTACH);
    await expectSameScreen(t, bare, 'line 028');

    for (const keys of ['G', '?needle\r', 'g']) {
      bare.write(keys);
      t.write(keys);
      await expectSameScreen(t, bare, keys === 'G' ? '(END)' : keys === 'g' ? /^line 001/ : 'the needle is here');
    }
  });

  test.skipIf(!hasProgram('vim'))('attaching to vim shows what vim shows in a bare terminal, and typed text appears', async () => {
    const home = createTempHome();
    writeDemoFile(home);
    const vim = ['-u', 'NONE', '-N', '-i', 'NONE', '-n', 'demo.txt'];
    const bare = await startBare(home, 'vim', vim, 'line 001');
    const t = startSwb({ home, args: [`editor=vim ${vim.join(' ')}`], cols: COLS, rows: ROWS });
    await t.waitForText(/editor .*\n.*line 001/);
    t.write(ATTACH);
    await expectSameScreen(t, bare, 'line 028');

    for (const keys of ['ihello\x1b', 'G', 'otail-text\x1b']) {
      bare.write(keys);
      t.write(keys);
      await expectSameScreen(t, bare, keys === 'G' ? 'line 200' : keys.startsWith('o') ? 'tail-text' : 'helloline 001');
    }
  });

  test('detaching restores the dashboard and the terminal modes the attached program switched on', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: [`modes=${MODES_FIXTURE}`, 'other=sleep 60'], cols: COLS, rows: ROWS });
    await t.waitForText('MODES-ON');
    await t.waitForText(/other /);
    const dashboard = t.screenText();
    expect(t.modes).toMatchObject({ bracketedPasteMode: false, mouseTrackingMode: 'vt200', applicationCursorKeysMode: false }); // vt200: the dashboard's own clicks

    t.write(ATTACH);
    await t.waitFor(() => t.modes.bracketedPasteMode && !t.screenText().join('\n').includes('other'), 'the attached view with bracketed paste on');
    expect(t.modes).toMatchObject({ bracketedPasteMode: true, mouseTrackingMode: 'vt200', applicationCursorKeysMode: true });
    expect(t.screenText()[0]).toBe('MODES-ON');

    t.write(DETACH);
    await t.waitFor(() => !t.modes.bracketedPasteMode && t.screenText().join('\n').includes('enter attach'), 'the dashboard with bracketed paste off');
    expect(t.modes).toMatchObject({ bracketedPasteMode: false, mouseTrackingMode: 'vt200', applicationCursorKeysMode: false }); // vt200: the dashboard's own clicks
    // Headers, viewport and status bar are back where they were.
    const before = dashboard.map(stripAge).join('\n');
    await t.waitFor(() => t.screenText().map(stripAge).join('\n') === before, 'the dashboard as it was').catch(() => undefined);
    expect(t.screenText().map(stripAge)).toEqual(dashboard.map(stripAge));
  });

  test('a keystroke\u2019s echo reaches the terminal ahead of the emulator, as the program\u2019s own bytes, and the screen stays the program\u2019s', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['cat=stty raw -echo; printf "CAT-READY\\r\\n"; exec cat'], cols: COLS, rows: ROWS, recordOutput: true });
    await t.waitForText('CAT-READY');
    await t.waitForText('enter attach');
    t.write(ATTACH);
    await t.waitFor(() => t.screenText()[0] === 'CAT-READY' && !t.screenText().join('\n').includes('enter attach'), 'the attached view');
    const start = t.output.length;
    let before = start;
    for (const key of ['q', 'x', 'z']) {
      t.write(key);
      await t.waitFor(() => t.screenText()[1]!.endsWith(key), `${key} echoed`);
      // The echo went out alone (after an SGR reset), outside any synchronized frame; without
      // echo-ahead the key first shows inside the frame of a paint.
      const since = t.output.slice(before);
      const at = since.indexOf(`\x1b[0m${key}`);
      expect(at, JSON.stringify(since)).toBeGreaterThanOrEqual(0);
      const opened = since.slice(0, at).split('\x1b[?2026h').length;
      expect(since.slice(0, at).split('\x1b[?2026l').length, JSON.stringify(since)).toBe(opened);
      before = t.output.length;
    }
    expect(t.screenText().slice(0, 2)).toEqual(['CAT-READY', 'qxz']);
    // The paints after the parses found the cells as sent and the cursor already there: none sent
    // a key again.
    expect(t.output.slice(start).match(/[qxz]/g)).toEqual(['q', 'x', 'z']);
    expect([t.terminal.buffer.active.cursorX, t.terminal.buffer.active.cursorY]).toEqual([3, 1]);
    // Output that is not plain text at the cursor takes the usual way: a line feed, then colour.
    t.write('\r\n\x1b[31mred\x1b[0m');
    await t.waitFor(() => t.screenText()[2] === 'red', 'the coloured line');
    expect(t.screenText().slice(0, 3)).toEqual(['CAT-READY', 'qxz', 'red']);
  });
});

/** Header lines end with the time since output, which moves on by itself. */
function stripAge(line: string): string {
  return line.replace(/ +(\d+[smhd]|now|-)$/, ' AGE');
}

describe('the terminal query beside attaching', () => {
  test('a terminal that does not answer swb’s query does not delay the first frame; keys typed meanwhile reach the row in order, the late answer never among them', async () => {
    const home = createTempHome();
    const trace = join(home.home, 'start-trace');
    const t = startSwb({
      home,
      args: ['cat=exec cat -v'],
      cols: COLS,
      rows: ROWS,
      answersDeviceAttributes: false,
      env: { SWB_TERMINAL_QUERY_MS: '60000', SWB_START_TRACE: trace },
    });
    await t.waitForText('enter attach');
    // The order of events: HELLO went out and the server drew this client's first frame while the
    // query was still open (it has not answered, and its bound is a minute off).
    const hello = traceMark(trace, 'hello sent');
    const drawn = traceMark(trace, 'first output to the client');
    expect(hello).toBeDefined();
    expect(drawn).toBeDefined();
    expect(hello!.ms).toBeLessThan(drawn!.ms);
    expect(traceMark(trace, 'terminal answered')).toBeUndefined();
    expect(traceMark(trace, 'terminal query ended unanswered')).toBeUndefined();

    // Keys while the client still reads its terminal: they attach the row and type into it.
    t.write(ATTACH);
    await t.waitFor(() => !t.screenText().join('\n').includes('enter attach'), 'the attached view');
    t.write('ab');
    // The terminal answers at last, between keys, its name cut from its end marker; the keys after
    // the end marker are the server's to read (it holds this terminal), and still come in order.
    t.write('c\x1bP>|foot(1.16.2)\x1b\\d');
    t.write('\x1b[?62;22ce');
    t.write('f\r');
    await t.waitForText(/^abcdef$/m);
    await waitUntil(() => traceMark(trace, 'terminal named'), { what: 'the server to hear the terminal’s name' });
    // cat -v shows an ESC as ^[: none came through, nor any of the answer's text.
    const screen = t.screenText().join('\n');
    expect(screen).not.toContain('^[');
    expect(screen).not.toContain('foot');
    expect(screen).not.toContain('62;22');
    t.write('gh\r');
    await t.waitForText(/^gh$/m);
  });
});
