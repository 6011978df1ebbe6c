// The row header with a row's usage (issue #38): the compact form after the name and state, exactly the
// header's width, at its right before the age; pieces dropped as the header narrows, and the usage gone
// before the name and state are cut.
import { describe, expect, it } from 'vitest';
import { rowHeaderLine } from '../../../components/row-header-line.js';
import type { RowView } from '../../../src/app/app-state.js';
import { loadTheme } from '../../../src/config/theme.js';
import { cellWidth } from '../../../src/text/cell-width.js';
import type { RowUsageView } from '../../../src/usage/row-usage-view.js';

const theme = (() => {
  const t = loadTheme('dark');
  if (!t.ok) throw new Error(t.error.message);
  return t.theme;
})();

const usage: RowUsageView = {
  row: 'claude', turns: 4, tokens: { input: 1200, cacheRead: 40_000, cacheWrite: 3000, output: 800, reasoning: 0 }, cost: 1.234, unpriced: [],
  byModel: [], context: { tokens: 45_000, window: 200_000, fraction: 0.225 }, limits: null, at: 0, budget: null,
};

const row: RowView = {
  name: 'claude', profile: 'claude', command: 'claude', running: true, exitCode: null, exitSignal: null, agentState: 'idle', stateRule: null,
  unread: 0, lastOutputAt: 1_000, title: '', wakePolicy: 'auto', wakeFailed: false, incarnation: 1, restored: null, usage,
};

const visible = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

describe('the row header with usage', () => {
  it('shows tokens, cost and context fill after the state, in exactly the width', () => {
    const text = visible(rowHeaderLine({ row, width: 100, focused: false, now: 16_000, theme }));
    expect(cellWidth(text)).toBe(100);
    // At the right, before the age: the name and state keep their place at the left.
    expect(text).toMatch(/^ ● claude · idle +· 45k tok \$1\.23 ctx 23% <1m $/);
  });

  it('drops pieces as the header narrows, and all usage before the name', () => {
    expect(visible(rowHeaderLine({ row, width: 52, focused: false, now: 16_000, theme }))).toMatch(/ · 45k tok \$1\.23 ctx 23% <1m $/);
    expect(visible(rowHeaderLine({ row, width: 40, focused: false, now: 16_000, theme }))).toMatch(/ · 45k tok \$1\.23 <1m $/);
    expect(visible(rowHeaderLine({ row, width: 36, focused: false, now: 16_000, theme }))).toMatch(/ · 45k tok <1m $/);
    const narrow = visible(rowHeaderLine({ row, width: 30, focused: false, now: 16_000, theme }));
    expect(cellWidth(narrow)).toBe(30);
    expect(narrow).toContain('claude · idle');
    expect(narrow).not.toContain('tok');
  });

  it('a row without usage has the header it always had', () => {
    const plain = rowHeaderLine({ row: { ...row, usage: null }, width: 80, focused: true, now: 16_000, theme });
    const without = rowHeaderLine({ row: (({ usage: _u, ...r }) => r)(row), width: 80, focused: true, now: 16_000, theme });
    expect(plain).toBe(without);
    expect(visible(plain)).not.toContain('tok');
  });
});
