// A row's program is a mail peer under the row's name: `swb` is on its PATH and its environment
// names the embedded hub, its session and its token.
import { afterEach, describe, expect, test } from 'vitest';
import type { MailItem } from '../../src/protocol/methods.js';
import { runCleanups } from '../helpers/cleanup.js';
import { runSwb } from '../helpers/run-swb.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb } from '../helpers/terminal-harness.js';

afterEach(runCleanups);

describe('row mail', () => {
  test('a row\u2019s program sends mail as its row, and the operator is told', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['mailer=swb send @operator hello-from-row && echo SENT; sleep 60'] });
    await t.waitForText('SENT');
    // The notification strip, just above the key hints, names sender, recipient and text.
    const lines = await t.waitForText(/@mailer → @operator .*hello-from-row/);
    expect(lines[28]).toMatch(/@mailer → @operator .*hello-from-row/);

    // A second swb process (the operator's CLI) reaches the embedded hub through its socket.
    const inbox = await runSwb(['inbox', '--json'], { home });
    expect(inbox.stderr).toBe('');
    expect(inbox.status).toBe(0);
    const { session, messages } = JSON.parse(inbox.stdout) as { session: string; messages: MailItem[] };
    expect(session).toBe('operator');
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ from: 'mailer', to: ['operator'], text: 'hello-from-row' });
  });

  test('a second swb in the same workspace attaches to the same server: its row joins, and both dashboards show both rows and the mail', async () => {
    const home = createTempHome();
    const first = startSwb({ home, args: ['one=echo ONE-READY; sleep 60'] });
    await first.waitForText('ONE-READY');
    const second = startSwb({ home, args: ['two=echo TWO-READY; sleep 60'] });
    await second.waitForText('TWO-READY');
    // The first dashboard shows the row the second one added.
    await first.waitForText('TWO-READY');
    await second.waitForText('ONE-READY');
    // One hub takes the mail, and both dashboards show it.
    const sent = await runSwb(['send', '--as', 'script', '@one', 'still-here'], { home });
    expect(sent.status).toBe(0);
    await first.waitForText(/@script → @one .*still-here/);
    await second.waitForText(/@script → @one .*still-here/);
  });
});

