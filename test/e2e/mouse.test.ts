// The mouse on the dashboard (issue #11; config `mouse`, default on): a click focuses the row under
// it, a second click there attaches, the wheel up opens its history and scrolls it; with the mouse
// off the terminal is never asked for mouse reports. The attached row's own mouse modes are its own.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb, type TerminalHarness } from '../helpers/terminal-harness.js';

afterEach(runCleanups);

/** An SGR mouse report at cell (x, y), counted from 0. */
const click = (x: number, y: number, press = true) => `\x1b[<0;${x + 1};${y + 1}${press ? 'M' : 'm'}`;
const wheelUp = (x: number, y: number) => `\x1b[<64;${x + 1};${y + 1}M`;

function headerY(t: TerminalHarness, name: string): number {
  return t.screenText().findIndex((l) => new RegExp(`^ [◐●?■○] ${name} `).test(l));
}

describe('the mouse on the dashboard', () => {
  test('click focuses, a second click attaches, the wheel opens and scrolls the history', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['top=echo TOP-READY; sleep 600', 'low=seq 1 300; echo LOW-READY; sleep 600'], cols: 80, rows: 30 });
    await t.waitForText('LOW-READY');
    await t.waitForText('TOP-READY');
    expect(t.modes.mouseTrackingMode).toBe('vt200');
    const lowY = headerY(t, 'low');
    expect(lowY).toBeGreaterThan(0);
    // Focus follows the click (the focused header is the bold one, and gets the bigger share).
    t.write(click(5, lowY + 2) + click(5, lowY + 2, false));
    await t.waitFor(() => headerY(t, 'low') < lowY, 'the clicked row to take the focus (it grows)');
    // The wheel over it: its history, scrolled further back by more wheel.
    const y = headerY(t, 'low') + 2;
    t.write(wheelUp(5, y));
    const first = await t.waitForText(/History of @low/);
    const pos = (lines: string[]) => Number(/(\d+)–\d+ of \d+ lines/.exec(lines.join('\n'))?.[1]);
    const before = pos(first);
    t.write(wheelUp(5, 10));
    await t.waitFor(() => pos(t.screenText()) < before, 'the wheel to scroll the history back');
    t.write('\x1b');
    await t.waitForText(/enter attach/);
    // Two clicks on a row attach it.
    const topY = headerY(t, 'top');
    t.write(click(3, topY + 1) + click(3, topY + 1, false));
    t.write(click(3, topY + 1) + click(3, topY + 1, false));
    await t.waitFor(() => !t.find('enter attach') && t.screenText()[0] === 'TOP-READY', 'the double-clicked row attached');
  });

  test('with mouse: false the terminal is never asked for mouse reports', async () => {
    const home = createTempHome();
    writeFileSync(join(home.workspace, 'switchboard.json'), JSON.stringify({ mouse: false }));
    const t = startSwb({ home, args: ['one=echo ONE-READY; sleep 600'], cols: 80, rows: 20 });
    await t.waitForText('ONE-READY');
    expect(t.modes.mouseTrackingMode).toBe('none');
  });
});
