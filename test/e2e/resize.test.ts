// Resizing the operator's terminal re-lays the dashboard out at the new size and passes each
// row its new viewport size.
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb, type TerminalHarness } from '../helpers/terminal-harness.js';

afterEach(runCleanups);

function headerLine(t: TerminalHarness, name: string): number | undefined {
  const re = new RegExp(`^ [◐●?■○] ${name} `);
  const y = t.screenText().findIndex((line) => re.test(line));
  return y >= 0 ? y : undefined;
}

/** The last size `stty size` printed in the sizer row's viewport (rows, cols). */
function lastReportedSize(t: TerminalHarness): { rows: number; cols: number } | null {
  const lines = t.screenText();
  const from = headerLine(t, 'sizer');
  const to = headerLine(t, 'other');
  if (from === undefined || to === undefined) return null;
  const reports = lines.slice(from + 1, to).filter((l) => /^\d+ \d+$/.test(l));
  const last = reports.at(-1);
  if (!last) return null;
  const [rows, cols] = last.split(' ').map(Number);
  return { rows: rows!, cols: cols! };
}

/** The header reaches the right edge: its time-since-output sits one cell in from it. */
function headerFitsWidth(t: TerminalHarness, y: number): boolean {
  const line = t.screenText()[y] ?? '';
  return line.length === t.cols - 1 && / (\d+[smhd]|now|-)$/.test(line);
}

describe('resize', () => {
  test('a resize re-lays the dashboard out at the new width and rows see their new size', async () => {
    const home = createTempHome();
    const t = startSwb({
      home,
      cols: 100,
      rows: 30,
      args: ['sizer=while true; do stty size; sleep 0.2; done', 'other=sleep 60'],
    });
    const before = await t.waitFor(() => lastReportedSize(t), 'the sizer row to report its size');
    const otherBefore = headerLine(t, 'other')!;
    // Stack of two on 100x30: 28 lines for rows, the focused one gets the larger share.
    expect(before.cols).toBe(100);
    expect(before.rows).toBe(otherBefore - 1);
    expect(headerFitsWidth(t, 0)).toBe(true);
    expect(t.screenText()[29]).toMatch(/^ enter attach {2}.* q quit$/);

    t.resize(60, 20);
    const after = await t.waitFor(() => {
      const size = lastReportedSize(t);
      return size && size.cols === 60 ? size : null;
    }, 'the sizer row to report the new width');
    const otherAfter = headerLine(t, 'other')!;
    expect(after.rows).toBe(otherAfter - 1);
    expect(after.rows).toBeLessThan(before.rows);
    expect(otherAfter).toBeLessThan(otherBefore);
    await t.waitFor(() => headerFitsWidth(t, 0) && headerFitsWidth(t, otherAfter), 'both headers laid out at 60 columns');
    const lines = t.screenText();
    expect(lines).toHaveLength(20);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60);
    // The key hints are cut at the new width, on the new last line.
    expect(lines[19]).toMatch(/^ enter attach {2}/);
    expect(lines[19]!.length).toBeLessThanOrEqual(60);
    // Nothing of the 100-column frame is left beyond the rows' and the chrome's lines.
    expect(lines.slice(otherAfter + 1, 18).every((l) => l === '')).toBe(true);
  });
});
