// Closing or restarting a row whose program runs asks first (issue #11 defect 3); a closed row can be
// reopened from the list of recently closed rows until the dashboard ends; each is announced.
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb } from '../helpers/terminal-harness.js';

afterEach(runCleanups);

/** The screen shows the row started by another process than `pid`. */
function startedOtherThan(lines: string[], pid: string | undefined): boolean {
  const m = lines.join('\n').match(/W-STARTED-(\d+)/);
  return m !== null && m[1] !== pid;
}

describe('close and restart ask while the program runs', () => {
  test('X asks; n keeps the row; y closes it; O lists it and 1 reopens it', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['w=echo W-STARTED-$$; sleep 60'] });
    const first = (await t.waitForText(/W-STARTED-\d+/)).join('\n').match(/W-STARTED-(\d+)/)![1];
    t.write('X');
    await t.waitForText('Close @w?');
    await t.waitForText('@w is still running; closing it ends its program (O reopens it later).');
    t.write('n');
    await t.waitForText(`W-STARTED-${first}`);
    expect(t.screenText().join('\n')).not.toContain('Close @w?');

    t.write('X');
    await t.waitForText('Close @w?');
    t.write('y');
    await t.waitForText(/@w closed \(O reopens it\)/);
    expect(t.screenText().join('\n')).not.toContain(`W-STARTED-${first}`);

    t.write('O');
    const list = (await t.waitForText(/Recently closed/)).join('\n');
    expect(list).toMatch(/Recently closed — a digit reopens that row — Esc closes +│/); // said once
    await t.waitForText(/1 {2}@w {2}echo W-STARTED-\$\$; sleep 60/);
    t.write('1');
    await t.waitFor(() => startedOtherThan(t.screenText(), first), 'the reopened row to start again');
    t.write('n'); // the notification list keeps what the strip showed
    await t.waitForText(/@w reopened/);
  });

  test('R asks while the program runs; y restarts it', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['w=echo W-STARTED-$$; sleep 60'] });
    const first = (await t.waitForText(/W-STARTED-\d+/)).join('\n').match(/W-STARTED-(\d+)/)![1];
    t.write('R');
    await t.waitForText('Restart @w?');
    t.write('y');
    await t.waitForText(/@w restarted/);
    await t.waitFor(() => startedOtherThan(t.screenText(), first), 'the restarted row to start again');
  });
});
