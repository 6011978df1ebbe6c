// The new-row dialog (N) typed as fast as a terminal delivers keys: the whole form in one read, or
// one key per write with no pause. Each Tab must move the focus before the next key lands — the
// fields subscribe to keys in React effects, which run only after the frame is committed.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb, type TerminalHarness } from '../helpers/terminal-harness.js';

afterEach(runCleanups);

/** Opens the dialog and waits until its first field, the name, has the focus (its label is bold). */
async function openDialog(t: TerminalHarness): Promise<void> {
  t.write('N');
  await t.waitFor(() => {
    const at = t.find('Name (optional)');
    return at !== null && t.cellAt(at.x, at.y).bold;
  }, 'the dialog, on its name field');
}

describe('the new-row dialog, typed fast', () => {
  // Fields in Tab order: name, command, working directory, worktree.
  // The row prints FORM-42-NAME: the typed text ($((40+2))) cannot be mistaken for it.
  // A Ctrl-U in the command clears what was typed there before it, as in the composer.
  const form = (dir: string, name: string) => `${name}\tno such thing\x15sh -c "pwd; echo FORM-$((40+2))-${name}; exec sleep 600"\t${dir}\r`;

  /** A dashboard with one row, the dialog open on it, and a directory for the new row. */
  async function dashboardWithDialog() {
    const home = createTempHome();
    const dir = join(home.workspace, 'elsewhere');
    mkdirSync(dir);
    const t = startSwb({ home, args: ['first=echo FIRST-UP; exec sleep 600'], cols: 160, rows: 40 });
    await t.waitForText('FIRST-UP');
    await openDialog(t);
    return { t, dir };
  }

  test('the whole form in one write: every field gets its own text and the row starts there', async () => {
    const { t, dir } = await dashboardWithDialog();
    t.write(form(dir, 'burst'));
    const screen = (await t.waitForText('FORM-42-burst')).join('\n');
    expect(screen).toMatch(/ burst · /);
    expect(screen).toContain(dir);
  });

  test('one key per write, no pause between them', async () => {
    const { t, dir } = await dashboardWithDialog();
    for (const ch of form(dir, 'typed')) t.write(ch);
    const screen = (await t.waitForText('FORM-42-typed')).join('\n');
    expect(screen).toMatch(/ typed · /);
    expect(screen).toContain(dir);
  });
});
