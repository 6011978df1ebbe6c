// The shared composer, seen from the operator's terminal: @ completion picks a row, a send reaches the
// row and its receipts move forward on one line, and a draft outlives attaching to a row.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb, type TerminalHarness } from '../helpers/terminal-harness.js';

afterEach(runCleanups);

const ESC = '\x1b';
const TAB = '\t';
const ENTER = '\r';
const DETACH = '\x1c'; // Ctrl-\
const ROWS = 30;
/** The composer's two lines replace the strip and the key hints. */
const INPUT = ROWS - 2;
const SECOND = ROWS - 1;
const ANSWER_MAIL = join(import.meta.dirname, '../fixtures/programs/answer-mail.mjs');

/**
 * The composer's text up to its cursor (the inverse cell), trailing spaces kept; null when the
 * composer is closed. The tests keep the cursor at the end, so this is the whole line.
 */
function composerLine(t: TerminalHarness): string | null {
  if (!(t.screenText()[INPUT] ?? '').startsWith(' ✎')) return null;
  for (let x = 3; x < t.cols; x++) {
    if (t.cellAt(x, INPUT).inverse) return t.terminal.buffer.active.getLine(t.terminal.buffer.active.viewportY + INPUT)!.translateToString(false, 3, x);
  }
  return null;
}

async function openComposer(t: TerminalHarness): Promise<void> {
  t.write('c');
  await t.waitFor(() => composerLine(t) !== null, 'the composer open');
}

/** Types one character at a time, each after the composer has shown the one before. */
async function type(t: TerminalHarness, text: string): Promise<void> {
  const start = composerLine(t) ?? '';
  for (let i = 1; i <= text.length; i++) {
    t.write(text[i - 1]!);
    const want = start + text.slice(0, i);
    await t.waitFor(() => composerLine(t) === want, `the composer to read ${JSON.stringify(want)}`);
  }
}

describe('the composer', () => {
  test('@wo offers the row worker and Tab completes it to "@worker "; Enter takes a completion too, without sending', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['worker=echo WORKER-READY; sleep 60', 'other=echo OTHER-READY; sleep 60'], rows: ROWS });
    await t.waitForText('OTHER-READY');
    await openComposer(t);
    await type(t, '@wo');
    const lines = await t.waitForText(/@worker running/);
    expect(lines[SECOND]).toMatch(/^ {1,2}@worker running/);
    expect(lines[SECOND]).not.toMatch(/@other/);
    t.write(TAB);
    await t.waitFor(() => composerLine(t) === '@worker ', 'the mention completed with a space after it');
    // The completion is gone; the hint is back on the second line.
    await t.waitForText(/Enter send · @ \+ Tab complete/);
    await t.waitForNoText(/@worker running/);

    await type(t, '@ot');
    await t.waitForText(/@other running/);
    t.write(ENTER);
    await t.waitFor(() => composerLine(t) === '@worker @other ', 'the second mention completed, nothing sent');
    expect(t.screenText()[SECOND]).toMatch(/Enter send/);
  });

  test('@ on the dashboard opens the composer with @ typed and the peers offered; "wo" and Tab in one read complete it', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['worker=echo WORKER-READY; sleep 60', 'other=echo OTHER-READY; sleep 60'], rows: ROWS });
    await t.waitForText('OTHER-READY');
    t.write('@');
    await t.waitFor(() => composerLine(t) === '@', 'the composer open with @ in it');
    await t.waitForText(/@worker running/);
    expect(t.screenText()[SECOND]).toMatch(/@other running/);
    // Keys a fast typist (or tmux send-keys) sends arrive in one read: the Tab is still a Tab.
    t.write('wo' + TAB);
    await t.waitFor(() => composerLine(t) === '@worker ', 'the mention completed with a space after it');
    await t.waitForText(/Enter send · @ \+ Tab complete/);
  });

  test('a send reaches the row, and its receipt line moves from accepted to replied in place (composer.closeAfterSend false)', async () => {
    const home = createTempHome();
    writeFileSync(join(home.workspace, 'switchboard.json'), JSON.stringify({ composer: { closeAfterSend: false } }));
    const t = startSwb({ home, args: [`worker=${JSON.stringify(process.execPath)} ${JSON.stringify(ANSWER_MAIL)}`], rows: ROWS });
    await t.waitForText('ANSWER-READY');
    await openComposer(t);
    await type(t, '@worker hello');
    t.write(ENTER);
    // Sent: the input line is empty again, and the line under it follows message #1.
    await t.waitFor(() => composerLine(t) === '', 'the input line cleared');
    const receipt = (state: string) =>
      t.waitFor(() => (t.screenText()[SECOND]!.match(new RegExp(`^ #1 → @worker \\S+ ${state}`)) ? t.screenText() : null), `the receipt line to say ${state}`);
    await receipt('accepted');
    const step = async (file: string, marker: string, state: string) => {
      writeFileSync(join(home.workspace, file), '');
      await t.waitForText(marker);
      const lines = await receipt(state);
      expect(composerLine(t)).toBe('');
      return lines;
    };
    await step('go-wait', 'GOT 1', 'delivered');
    await step('go-read', 'READ 1', 'read');
    const replied = await step('go-reply', 'REPLIED 1', 'replied');
    // The reply is news, shown after the receipts it completes rather than in their place.
    expect(replied[SECOND]).toMatch(/^ #1 → @worker ↩ replied · ✉ @worker → @operator \[response\] ok/);
  });

  test('by default the composer closes once the message is accepted, and the strip says so', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['worker=echo WORKER-READY; sleep 60'], rows: ROWS });
    await t.waitForText('WORKER-READY');
    await openComposer(t);
    await type(t, '@worker hello');
    t.write(ENTER);
    await t.waitForText(/sent #1 → @worker/);
    await t.waitForText(/enter attach .* q quit/);
    expect(composerLine(t)).toBeNull();
  });

  test('c on a full-screen overlay (explain) gives the composer, which Esc closes: the overlay never hides a composer that takes the keys', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['worker=echo WORKER-READY; sleep 60'], rows: ROWS });
    await t.waitForText('WORKER-READY');
    t.write('e');
    await t.waitForText(/Why worker is/);
    await openComposer(t);
    expect(t.find('Why worker is')).toBeNull();
    await type(t, 'hi');
    t.write(ESC);
    await t.waitForText(/enter attach .* q quit/);
    expect(composerLine(t)).toBeNull();
  });

  test('a draft survives Esc, attaching to a row and detaching again', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['worker=echo WORKER-READY; sleep 60'], rows: ROWS });
    await t.waitForText('WORKER-READY');
    await openComposer(t);
    await type(t, '@worker half a thought');
    t.write(ESC);
    await t.waitForText(/enter attach .* q quit/);
    t.write(ENTER);
    await t.waitFor(() => !t.find('enter attach') && !t.find('○ worker'), 'the row attached (no chrome, no header)');
    t.write(DETACH);
    await t.waitForText(/enter attach .* q quit/);
    await openComposer(t);
    expect(composerLine(t)).toBe('@worker half a thought');
  });
});
