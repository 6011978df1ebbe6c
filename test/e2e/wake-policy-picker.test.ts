// The wake policy is picked, not cycled (issue #11 defect 5): cycling from notify to off passed
// through auto and could type at once; w opens a picker with the current policy marked.
import { afterEach, describe, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb } from '../helpers/terminal-harness.js';

afterEach(runCleanups);

describe('wake policy picker', () => {
  test('w shows the choices with the current one marked; a key picks one; Esc keeps it', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['bash'] });
    await t.waitForText(/ bash · (idle|busy|unknown)/);
    t.write('w');
    await t.waitForText('Wake policy of @bash');
    await t.waitForText(/● 2 n {2}notify/);
    await t.waitForText(/○ 1 a {2}auto/);
    t.write('3');
    await t.waitForText(/wake policy of @bash: off \(never woken; its mail still shows here\)/);
    t.write('w');
    await t.waitForText(/● 3 o {2}off/);
    t.write('\u001b');
    await t.waitForText('enter attach');
  });
});
