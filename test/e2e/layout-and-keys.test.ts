// The dashboard's own keys, seen from the operator's terminal: layouts, zoom, help, themes and
// a quit that asks first and leaves nothing running.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { isLive } from '../helpers/process-descendants.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb, type TerminalHarness } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';

afterEach(runCleanups);

const ESC = '\x1b';

/** Screen lines that hold a row header (the state glyph, then the row's name). */
function headerLines(t: TerminalHarness, name: string): number[] {
  const re = new RegExp(`[◐●?■○] ${name} `);
  return t.screenText().flatMap((line, y) => (re.test(line) ? [y] : []));
}

/** Reads `file` once its row wrote a whole pid into it. */
async function pidFrom(file: string): Promise<number> {
  return waitUntil(() => {
    if (!existsSync(file)) return null;
    const text = readFileSync(file, 'utf8');
    return text.endsWith('\n') ? Number(text.trim()) : null;
  }, { timeoutMs: 10_000, what: `a pid in ${file}` });
}

describe('layout and keys', () => {
  test('g switches to grid, z zooms to the focused row, ? lists the keys and Esc closes it', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['one=echo ONE-READY; sleep 60', 'two=echo TWO-READY; sleep 60'] });
    await t.waitForText('TWO-READY');
    await t.waitForText('ONE-READY');
    // Stack: the headers are on different lines, the first (focused) row on top.
    expect(headerLines(t, 'one')).toEqual([0]);
    expect(headerLines(t, 'two')).toHaveLength(1);
    expect(headerLines(t, 'two')[0]).toBeGreaterThan(1);

    t.write('g');
    await t.waitFor(() => headerLines(t, 'one')[0] === 0 && headerLines(t, 'two')[0] === 0, 'both headers on line 0 (grid)');
    const line0 = t.screenText()[0]!;
    expect(line0.indexOf(' one ')).toBeLessThan(line0.indexOf(' two '));
    // Each grid cell shows its row's output.
    expect(t.find('ONE-READY')!.x).toBeLessThan(t.find('TWO-READY')!.x);

    t.write('g');
    await t.waitFor(() => (headerLines(t, 'two')[0] ?? 0) > 1, 'the stack layout back');

    t.write('z');
    await t.waitFor(() => headerLines(t, 'two').length === 0 && headerLines(t, 'one')[0] === 0, 'only the focused row (zoomed)');
    expect(t.find('TWO-READY')).toBeNull();
    t.write('z');
    await t.waitFor(() => headerLines(t, 'two').length === 1, 'both rows after unzooming');

    t.write('?');
    const help = await t.waitForText('Switchboard keys');
    const text = help.join('\n');
    for (const binding of [/enter\s+Attach/i, /z\s+Zoom/, /g\s+Switch layout/, /t\s+Next theme/, /q\s+Quit Switchboard/, /Ctrl.\\\s+Detach/i]) {
      expect(text).toMatch(binding);
    }
    expect(headerLines(t, 'one')).toEqual([]);
    t.write(ESC);
    await t.waitFor(() => headerLines(t, 'one').length === 1 && headerLines(t, 'two').length === 1, 'the dashboard after Esc');
    expect(t.find('Switchboard keys')).toBeNull();
  });

  test('keys that arrive together in one read are each handled, in order', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['one=echo ONE-READY; sleep 60', 'two=echo TWO-READY; sleep 60'] });
    await t.waitForText('TWO-READY');
    // One write, as a terminal sends a burst typed while swb was busy: grid, then help.
    t.write('g?');
    await t.waitForText('Switchboard keys');
    t.write(ESC);
    await t.waitFor(() => headerLines(t, 'one')[0] === 0 && headerLines(t, 'two')[0] === 0, 'the grid layout under the closed help');
  });

  test('t switches to the next theme, which repaints the header colours', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['--theme', 'dark', 'one=sleep 60', 'two=sleep 60'] });
    await t.waitFor(() => headerLines(t, 'two').length === 1, 'both headers');
    const focused = { x: 3, y: 0 };
    const other = { x: 3, y: headerLines(t, 'two')[0]! };
    const before = { focused: t.cellAt(focused.x, focused.y), other: t.cellAt(other.x, other.y) };
    expect(before.focused.bgMode).not.toBe('default');
    expect(before.focused.bg).not.toBe(before.other.bg); // focus shows

    t.write('t');
    await t.waitFor(() => t.cellAt(focused.x, focused.y).bg !== before.focused.bg, 'the focused header in new colours');
    const after = { focused: t.cellAt(focused.x, focused.y), other: t.cellAt(other.x, other.y) };
    expect(after.focused.char).toBe(before.focused.char);
    expect(after.other.bg).not.toBe(before.other.bg);
    expect(t.screenText()[0]).toMatch(/ one /);
  });

  test('q asks while rows run: n stays, y quits with status 0 and no row process left alive', async () => {
    // Row three ignores SIGHUP and SIGTERM, as a stubborn program might: it still has to go.
    const home = createTempHome();
    const dir = home.workspace;
    const t = startSwb({
      home,
      args: [
        `one=sleep 60 & echo $! > one-child.pid; echo $$ > one.pid; wait`,
        `two=echo $$ > two.pid; exec sleep 60`,
        `three=trap '' HUP TERM; echo $$ > three.pid; sleep 60`,
      ],
    });
    const pids = [await pidFrom(join(dir, 'one.pid')), await pidFrom(join(dir, 'one-child.pid')), await pidFrom(join(dir, 'two.pid')), await pidFrom(join(dir, 'three.pid'))];
    for (const pid of pids) expect(isLive(pid)).toBe(true);
    await t.waitFor(() => headerLines(t, 'three').length === 1, 'all three headers');
    const family = t.family();
    for (const pid of pids) expect(family).toContain(pid);

    t.write('q');
    await t.waitForText('Quit Switchboard?');
    expect(t.screenText().join('\n')).toMatch(/3 rows are still running/);
    t.write('n');
    await t.waitFor(() => headerLines(t, 'one').length === 1 && !t.find('Quit Switchboard?'), 'the dashboard again after n');
    for (const pid of pids) expect(isLive(pid)).toBe(true);

    t.write('q');
    await t.waitForText('Quit Switchboard?');
    t.write('y');
    const exit = await t.waitForExit();
    expect(exit).toEqual({ exitCode: 0, signal: 0 });
    // Rows get SIGHUP, then SIGKILL after a grace period, before swb exits; signals land at once,
    // but a killed process is only gone once the kernel has finished it.
    await waitUntil(() => family.every((pid) => !isLive(pid)), { timeoutMs: 1000, what: 'every process swb started to be gone' }).catch(() => undefined);
    expect(family.filter(isLive)).toEqual([]);
    // The terminal is back on the main screen.
    expect(t.terminal.buffer.active.type).toBe('normal');
  });
});
