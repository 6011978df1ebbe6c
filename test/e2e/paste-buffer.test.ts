// The paste buffer, from the operator's terminal: y in one row's history view fills it, p on the
// dashboard pastes it into another row — as text, bracketed because that program asked for it.
import { afterEach, describe, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb } from '../helpers/terminal-harness.js';

afterEach(runCleanups);

describe('the paste buffer', () => {
  test('y in the history of one row, then p on another: the lines arrive there in bracketed paste', async () => {
    const home = createTempHome();
    // dst asks for bracketed paste and shows what it receives (cat -v: ESC as ^[).
    const dst = `sh -c 'printf "\\033[?2004h"; stty -echo; echo DST-UP; exec cat -v'`;
    const t = startSwb({ home, args: ['src=echo ALPHA-LINE; echo BETA-LINE; sleep 600', `dst=${dst}`], cols: 220, rows: 30 });
    await t.waitForText('BETA-LINE');
    await t.waitForText('DST-UP');
    t.write('[');
    await t.waitForText(/History of @src/);
    t.write('y');
    await t.waitForText(/✓ copied 2 lines of @src .* · in the paste buffer: p pastes it into a row/);
    t.write('\x1b');
    await t.waitForText(/enter attach/);
    t.write('\t'); // focus dst
    t.write('p');
    await t.waitForText(/pasted 2 lines into @dst \(bracketed paste\)/);
    await t.waitForText(/\^\[\[200~ALPHA-LINE/);
    // (The last line, with no line break after it, waits in cat's line buffer, as a terminal paste would.)
  });
});
