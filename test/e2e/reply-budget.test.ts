// The reply budget seen from the dashboard (issue #16): a row that keeps mailing another is stopped
// at the budget, the operator is told which pair at once, and the grant key lets it go on.
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb } from '../helpers/terminal-harness.js';

afterEach(runCleanups);

// Row a mails b until refused, then retries that message until it is let through.
const LOOP =
  'for i in $(seq 1 12); do swb send @b ping$i >/dev/null 2>&1 && continue; echo STOPPED-AT-$i; ' +
  'until swb send @b ping$i >/dev/null 2>&1; do sleep 0.2; done; echo RESUMED-AT-$i; done; echo LOOP-DONE; sleep 60';

describe('reply budget in the dashboard', () => {
  test('a looping row stops at the budget, the operator sees the pair, and G lets it go on', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['b=sleep 60', `a=${LOOP}`] });
    await t.waitForText('STOPPED-AT-9');
    await t.waitForText(/@a ↔ @b held: 8 messages to each other without you; G grants 8 more/);
    t.write('G');
    await t.waitForText('RESUMED-AT-9');
    await t.waitForText('LOOP-DONE');
    expect(t.screenText().join('\n')).not.toMatch(/STOPPED-AT-1[0-2]/);
    // Newer mail took the strip; the notification list keeps the grant.
    t.write('n');
    await t.waitForText(/@a ↔ @b: granted 8 more messages/);
  });
});
