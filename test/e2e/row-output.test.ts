// Rows paint their programs' output into the operator's terminal: colours as the program chose
// them, and every byte of a burst written just before the program exits.
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb, type TerminalHarness } from '../helpers/terminal-harness.js';

afterEach(runCleanups);

/** The cells of `word` where it first appears on screen. */
function cellsOf(t: TerminalHarness, word: string) {
  const at = t.find(word);
  if (!at) throw new Error(`${word} is not on screen\n${t.describe()}`);
  return [...word].map((_, i) => t.cellAt(at.x + i, at.y));
}

describe('row output', () => {
  test('rows render their programs\u2019 coloured output in palette, 256 and RGB colours', async () => {
    const home = createTempHome();
    const t = startSwb({
      home,
      args: ["colors=printf '\\033[31mRED\\033[0m \\033[38;5;45mCYAN256\\033[0m \\033[38;2;10;200;30mTRUE\\033[0m\\n'; sleep 30"],
    });
    await t.waitForText(/RED CYAN256 TRUE/);
    for (const cell of cellsOf(t, 'RED')) expect(cell).toMatchObject({ fgMode: 'palette', fg: 1, bgMode: 'default' });
    for (const cell of cellsOf(t, 'CYAN256')) expect(cell).toMatchObject({ fgMode: 'palette', fg: 45, bgMode: 'default' });
    for (const cell of cellsOf(t, 'TRUE')) expect(cell).toMatchObject({ fgMode: 'rgb', fg: 0x0ac81e, bgMode: 'default' });
    // The reset after each word holds: the spaces between them are uncoloured.
    const red = t.find('RED')!;
    expect(t.cellAt(red.x + 3, red.y)).toMatchObject({ fgMode: 'default', bgMode: 'default' });
  });

  // One row on a 100x30 terminal: header on line 0, a 27-line viewport on lines 1-27, then the
  // notification strip and the key hints.
  const VIEWPORT = { top: 1, height: 27 };

  /** What a bare 100-column terminal shows last of `output` (lines are shorter than 100). */
  function expectedTail(output: string): string[] {
    return output.split('\n').slice(-VIEWPORT.height);
  }

  async function expectTailShown(command: string): Promise<void> {
    const output = execFileSync('/bin/sh', ['-c', command], { encoding: 'latin1' });
    expect(output.length).toBeGreaterThanOrEqual(18_000);
    const home = createTempHome();
    const t = startSwb({ home, args: [`burst=${command}; exit 0`] });
    const tail = expectedTail(output);
    await t.waitForText(/burst .*exit 0/);
    const lines = await t.waitFor(() => {
      const shown = t.screenText().slice(VIEWPORT.top, VIEWPORT.top + VIEWPORT.height);
      return shown.join('\n') === tail.join('\n') ? shown : null;
    }, 'the last lines of the burst in the viewport');
    expect(lines).toEqual(tail);
    expect(t.screenText()[0]).toMatch(/burst .*exit 0/);
  }

  test('a row whose program prints 20 KB and exits at once shows the last lines and exit 0', async () => {
    await expectTailShown('seq 1 4000');
  });

  test('a 20 KB burst of distinct lines cut mid-line loses nothing at the tail', async () => {
    // 18-byte lines; 20 000 bytes end two bytes into line 1112, with no newline after them.
    await expectTailShown("seq -f 'L%05g-abcdefghij' 1 3000 | head -c 20000");
  });
});
