// Attached mode is not blind (issue #11 defect 4): a status line under the attached row names it,
// its state and the detach key, and shows news (mail for the operator) as it comes; when the
// attached program exits, the dashboard comes back by itself and says why.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { runSwb } from '../helpers/run-swb.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb } from '../helpers/terminal-harness.js';

afterEach(runCleanups);

const ROWS = 24;

describe('attached mode', () => {
  test('a status line shows the row and mail that arrives; the row exiting detaches with a note', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['w=echo W-READY; head -n1 >/dev/null; stty size; exit 0'], rows: ROWS, cols: 100 });
    await t.waitForText('W-READY');
    t.write('\r');
    await t.waitFor(() => /^ ▸ @w · .*ctrl\+\\ detach/.test(t.screenText()[ROWS - 1] ?? ''), 'the status line under the attached row');
    expect(t.screenText().join('\n')).not.toContain('enter attach');

    expect((await runSwb(['send', '--as', 'script', '@operator', 'news-while-attached'], { home })).status).toBe(0);
    await t.waitFor(() => /@script → @operator .*news-while-attached/.test(t.screenText()[ROWS - 1] ?? ''), 'the mail on the status line');

    t.write('\r'); // the program reads its line, says its size (the terminal less the status line) and exits
    await t.waitForText('enter attach');
    await t.waitForText(`${ROWS - 1} 100`);
    await t.waitForText(/w exited with status 0; detached, back to the dashboard/);
    // Keys reach the dashboard again: the notification list opens.
    t.write('n');
    await t.waitForText(/news-while-attached/);
  });

  test('attachedStatus: false gives the attached row the whole terminal', async () => {
    const home = createTempHome();
    writeFileSync(join(home.workspace, 'switchboard.json'), JSON.stringify({ attachedStatus: false }));
    const t = startSwb({ home, args: ['w=echo W-READY; read line; stty size; sleep 60'], rows: ROWS, cols: 100 });
    await t.waitForText('W-READY');
    t.write('\r'); // attach
    await t.waitFor(() => !t.screenText().join('\n').includes('enter attach'), 'the attached view');
    t.write('\r'); // the program reads its line and says its size
    await t.waitForText(`${ROWS} 100`);
    expect(t.screenText()[ROWS - 1]).not.toMatch(/detach/);
  });
});
