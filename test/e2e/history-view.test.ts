// A row's kept history, full screen: [ (or PgUp) opens it at the bottom, / searches it (newest match
// first, matches highlighted), n goes to the next older match, y copies the screen to a private file
// (or to the terminal's clipboard by OSC 52 when the config allows it), Esc goes back (issue #11).
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb } from '../helpers/terminal-harness.js';

afterEach(runCleanups);

describe('the history view', () => {
  test('scrolls the kept history, searches it with highlights, copies to a file and goes back', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['nums=seq 1 800; echo SEQ-DONE; sleep 600'], cols: 100, rows: 30 });
    await t.waitForText('SEQ-DONE');
    t.write('[');
    await t.waitForText(/History of @nums/);
    // At the bottom: the last lines, and the position.
    expect(t.screenText().join('\n')).toMatch(/SEQ-DONE/);
    await t.waitForText(/of 801 lines/);
    // Newest match first, counted, and the next older one with n.
    t.write('/7\r');
    const found = await t.waitForText(/\/7: \d+ of \d+/);
    const [, at, total] = /\/7: (\d+) of (\d+)/.exec(found.join('\n'))!;
    expect(Number(at)).toBe(Number(total));
    t.write('n');
    await t.waitForText(new RegExp(`/7: ${Number(at) - 1} of ${total}`));
    // Far back in history (no longer on the row's screen), and highlighted (inverse).
    t.write('/123\r');
    await t.waitForText(/\/123: 1 of 1/);
    const y = t.screenText().findIndex((l) => l.trim() === '123');
    expect(y).toBeGreaterThan(0);
    expect(t.cellAt(0, y).inverse).toBe(true);
    expect(t.cellAt(3, y).inverse).toBe(false);
    t.write('y');
    t.write('\x1b');
    await t.waitForText(/copied 2\d lines of @nums to \//);
    // (The strip cuts the path; the file is the one in the runtime dir's copies/.)
    const dir = join(home.paths.runDir, 'copies');
    const [name] = readdirSync(dir);
    const file = join(dir, name!);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toMatch(/^\d+\n/);
    await t.waitForText(/enter attach/);
  });

  test('with clipboard osc52 the copy goes to the terminal as OSC 52', async () => {
    const home = createTempHome();
    writeFileSync(join(home.workspace, 'switchboard.json'), JSON.stringify({ clipboard: 'osc52' }));
    const t = startSwb({ home, args: ['words=echo alpha beta; sleep 600'], cols: 80, rows: 20, recordOutput: true });
    await t.waitForText('alpha beta');
    t.write('\x1b[5~'); // PgUp
    await t.waitForText(/History of @words/);
    t.write('y');
    t.write('\x1b');
    await t.waitForText(/copied \d+ lines? of @words to the clipboard \(OSC 52\)/);
    const osc = /\x1b\]52;c;([A-Za-z0-9+/=]+)\x07/.exec(t.output)!;
    expect(Buffer.from(osc[1]!, 'base64').toString('utf8')).toContain('alpha beta');
  });

  test('y and s say where the text went on the history view\u2019s own status line at once; the next key takes it away', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['words=echo alpha beta; sleep 600'], cols: 100, rows: 20 });
    await t.waitForText('alpha beta');
    t.write('[');
    await t.waitForText(/History of @words/);
    t.write('y');
    await t.waitForText(/✓ copied \d+ lines? of @words to \/\S+copies\/copy-/);
    expect(t.find('History of @words')).not.toBeNull();
    t.write('s');
    await t.waitForText(/✓ saved the history of @words to \//);
    t.write('k');
    await t.waitForText(/lines · ↑↓ PgUp PgDn/);
  });

  test('v marks a selection that runs to the screen\u2019s edge as you scroll; y copies exactly those lines', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['nums=seq 1 400; echo SEQ-DONE; sleep 600'], cols: 80, rows: 20 });
    await t.waitForText('SEQ-DONE');
    t.write('[');
    await t.waitForText(/of 401 lines/);
    t.write('g'); // the top: lines 1..
    await t.waitForText(/\b1–\d+ of 401 lines/);
    for (let i = 2; i <= 6; i++) {
      t.write('j');
      await t.waitForText(new RegExp(`\\b${i}–\\d+ of 401 lines`));
    }
    t.write('v');
    const marked = await t.waitForText(/selected (\d+) lines/);
    const first = Number(/selected (\d+) lines/.exec(marked.join('\n'))![1]);
    t.write('kk'); // the selection grows upward by two
    await t.waitForText(new RegExp(`selected ${first + 2} lines`));
    t.write('y');
    t.write('\x1b');
    await t.waitForText(new RegExp(`copied ${first + 2} lines of @nums`));
    const dir = join(home.paths.runDir, 'copies');
    const text = readFileSync(join(dir, readdirSync(dir)[0]!), 'utf8').trim().split('\n');
    expect(text[0]).toBe('4');
    expect(text).toHaveLength(first + 2);
  });
});
