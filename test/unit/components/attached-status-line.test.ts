import { describe, expect, it } from 'vitest';
import { attachedStatusLine } from '../../../components/attached-status-line.js';
import type { AppState, RowView } from '../../../src/app/app-state.js';
import { cellWidth } from '../../../src/text/cell-width.js';
import { darkTheme } from './ink-test.js';

const row: RowView = {
  name: 'ed',
  profile: undefined,
  command: 'vi notes.txt',
  running: true,
  exitCode: null,
  exitSignal: null,
  agentState: 'unknown',
  stateRule: null,
  unread: 0,
  lastOutputAt: 1_000,
  title: '',
  wakePolicy: undefined,
  wakeFailed: false,
  incarnation: 1,
  restored: null,
} as unknown as RowView;

const line = (r: RowView, width = 120) =>
  attachedStatusLine({ state: { rows: [r], attached: r.name, strip: null } as unknown as AppState, width, theme: darkTheme(), detachKey: 'ctrl+\\' }).replace(/\x1b\[[0-9;]*m/g, '');

describe('attachedStatusLine', () => {
  it('names the row and its state, with the detach key, in exactly the width', () => {
    const text = line(row);
    expect(cellWidth(text)).toBe(120);
    expect(text).toMatch(/^ ▸ @ed · unknown +ctrl\+\\ detach $/);
  });

  it('an exited row (attached to look at its last screen) says keys go nowhere and what restarts it', () => {
    expect(line({ ...row, running: false, exitCode: 0 })).toMatch(/^ ▸ @ed · exited 0 \(keys go nowhere; R on the dashboard restarts it\) +ctrl\+\\ detach $/);
    expect(line({ ...row, running: false, exitCode: null, exitSignal: 'SIGKILL' } as RowView)).toMatch(/· exited \(keys go nowhere/);
  });
});
