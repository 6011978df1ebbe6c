import { describe, expect, it } from 'vitest';
import { rowHeaderLine, rowHeaderParts } from '../../../components/row-header-line.js';
import type { RowView } from '../../../src/app/app-state.js';
import { loadTheme } from '../../../src/config/theme.js';
import { cellWidth } from '../../../src/text/cell-width.js';

const theme = (() => {
  const t = loadTheme('dark');
  if (!t.ok) throw new Error(t.error.message);
  return t.theme;
})();

const row: RowView = {
  name: 'claude',
  profile: 'claude',
  command: 'claude',
  running: true,
  exitCode: null,
  exitSignal: null,
  agentState: 'idle',
  stateRule: null,
  unread: 3,
  lastOutputAt: 1_000,
  title: '',
  wakePolicy: 'auto',
  wakeFailed: false,
  incarnation: 1,
  restored: null,
};

const visible = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

describe('rowHeaderLine', () => {
  it('marks a muted row after its wake policy, and says nothing when it is not', () => {
    expect(rowHeaderParts({ row: { ...row, muted: true, wakePolicy: 'off' }, now: 16_000 }).left).toBe(' ● claude · idle · wake off · muted');
    expect(rowHeaderParts({ row: { ...row, muted: false }, now: 16_000 }).left).not.toContain('muted');
  });

  it('says why a waiting row waits (issue #37): permission, question, idle prompt; nothing for other states', () => {
    for (const reason of ['permission', 'question', 'idle-prompt'] as const) {
      expect(rowHeaderParts({ row: { ...row, agentState: 'waiting', waitingReason: reason }, now: 16_000 }).left).toContain(`claude · waiting (${reason})`);
    }
    expect(rowHeaderParts({ row: { ...row, agentState: 'waiting', waitingReason: null }, now: 16_000 }).left).toMatch(/claude · waiting(?! \()/);
    expect(rowHeaderParts({ row: { ...row, agentState: 'busy', waitingReason: 'permission' }, now: 16_000 }).left).not.toContain('(permission)');
  });

  it('shows name, profile, state, unread badge and age in exactly the given width', () => {
    const line = rowHeaderLine({ row, width: 60, focused: false, now: 16_000, theme });
    const text = visible(line);
    expect(cellWidth(text)).toBe(60);
    expect(text).toContain('claude · idle');
    expect(text).toContain('✉ 3');
    expect(text.trimEnd().endsWith('<1m')).toBe(true);
  });

  it('never spills past a narrow width and contains no cursor movement', () => {
    for (const width of [1, 5, 12, 30]) {
      const line = rowHeaderLine({ row: { ...row, name: 'a-very-long-row-name-indeed' }, width, focused: true, now: 6_000, theme });
      expect(cellWidth(visible(line))).toBe(width);
      expect(line.replace(/\x1b\[[0-9;]*m/g, '')).not.toMatch(/\x1b/);
    }
  });

  it('shows the exit status of an exited row and a failed wake', () => {
    expect(rowHeaderParts({ row: { ...row, running: false, exitCode: 2 }, now: 0 }).left).toContain('exited exit 2');
    expect(rowHeaderParts({ row: { ...row, wakeFailed: true }, now: 0 }).left).toContain('wake failed');
  });

  it('an exited row counts its age from the exit, even one that never printed', () => {
    const exited = { ...row, running: false, exitCode: 0, agentState: 'exited' as const, lastOutputAt: 0, exitedAt: 100_000 };
    expect(rowHeaderParts({ row: exited, now: 100_000 + 65_000 }).right.trim()).toBe('1m');
    expect(rowHeaderParts({ row: { ...exited, exitedAt: undefined }, now: 5_000 }).right.trim()).toBe('-');
  });

  it('a worktree row shows its branch, ahead and behind, and * when dirty; the branch name is sanitized', () => {
    const wt = { ...row, git: { branch: 'swb/x\x1b[31m', ahead: 2, behind: 1, dirty: true, missing: false } };
    const { left } = rowHeaderParts({ row: wt, now: 2_000 });
    expect(left).toMatch(/ · swb\/x.* ↑2 ↓1 \*$/);
    expect(left).not.toContain('\x1b');
  });
});

describe('rowHeaderLine reservations', () => {
  it('marks what the row holds (⚿) and waits for (⧗)', () => {
    const text = visible(rowHeaderLine({ row: { ...row, reservations: { held: ['db'], waiting: ['port:3000'] } }, width: 100, focused: false, now: 16_000, theme }));
    expect(text).toContain('· ⚿ db ⧗ port:3000');
    expect(cellWidth(text)).toBe(100);
    expect(visible(rowHeaderLine({ row, width: 100, focused: false, now: 16_000, theme }))).not.toMatch(/[⚿⧗]/);
  });

  it('sanitizes the names and cuts a long list to fit', () => {
    const names = ['a\x1b[31mred', ...Array.from({ length: 20 }, (_, i) => `resource-${i}`)];
    const text = rowHeaderParts({ row: { ...row, reservations: { held: names, waiting: [] } }, now: 16_000 }).left;
    expect(text).not.toContain('\x1b');
    const mark = text.slice(text.indexOf('⚿'));
    expect(mark).toContain('…');
    expect(cellWidth(mark)).toBeLessThanOrEqual(2 + 24);
  });
});
