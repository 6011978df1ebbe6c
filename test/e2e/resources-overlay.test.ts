// Reservations on the dashboard (issue #35): a `swb run --resource db` in one row shows as ⚿ db in
// its header and a second one waiting as ⧗ db in the other's; the resources overlay (r) lists both,
// and the operator sets the controller, force-releases the holder (its evidence shown first) and
// grants the waiting ticket from it — through the hub, as `swb resource` would.
import { afterEach, describe, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb } from '../helpers/terminal-harness.js';

afterEach(runCleanups);

describe('resources overlay', () => {
  test('headers show holder and waiter; the operator sets a controller, releases and grants from the overlay', async () => {
    const home = createTempHome();
    const t = startSwb({
      home,
      args: [
        'holder=swb run --resource db --reason e2e-hold -- sleep 600',
        // The waiter asks once the holder has db (the row's own loop; the test only watches the screen).
        "waiter=until swb resource status db | grep -q held; do sleep 0.1; done; swb run --resource db -- echo SECOND-RAN; sleep 600",
      ],
      cols: 150,
      rows: 40,
    });
    await t.waitForText(/ holder · \w+ · ⚿ db/);
    await t.waitForText(/ waiter · \w+ · ⧗ db/);

    t.write('r');
    await t.waitForText('Resources —');
    await t.waitForText(/db {2}capacity 1 · controller none \(the hub grants in order\) · epoch 1/);
    await t.waitForText(/⚿ #1 @holder held since .* “e2e-hold” · pid \d+ `sleep 600`/);
    await t.waitForText(/⧗ 1\. #2 @waiter waiting since/);

    // The operator takes the grants into its own hands: nothing is granted by itself any more.
    t.write('c');
    await t.waitForText('Controller of db');
    t.write('o');
    await t.waitForText(/controller @operator grants · epoch 2/);

    t.write('j');
    t.write('x');
    await t.waitForText('Release ticket #1 of @holder?');
    await t.waitForText(/process: pid \d+, process group \d+, kernel start time \d+/);
    await t.waitForText('command: sleep 600');
    t.write('y');
    await t.waitForText('ticket 1 of @holder: released');
    // Still queued: the controller (the operator) grants it.
    await t.waitForText(/⧗ 1\. #2 @waiter waiting since/);
    t.write('g');
    await t.waitForText('ticket 2 of @waiter: held');

    t.write('\u001b');
    await t.waitForText('SECOND-RAN');
    await t.waitForText(/ waiter · \w+ +/);
    await t.waitForNoText(/[⚿⧗]/);
  });
});
