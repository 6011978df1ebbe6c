// The operator's keys as configured: the help overlay lists the bindings in force, remapped keys do
// their action (and the old key no longer does), and I opens the focused row's inbox; the mail view's
// keys are remappable in the same way.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { runSwb } from '../helpers/run-swb.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb, type TerminalHarness } from '../helpers/terminal-harness.js';

afterEach(runCleanups);

const ESC = '\x1b';
const CTRL_G = '\x07';

/** Screen lines that hold a row header (the state glyph, then the row's name). */
function headerLines(t: TerminalHarness, name: string): number[] {
  const re = new RegExp(`[◐●?■○] ${name} `);
  return t.screenText().flatMap((line, y) => (re.test(line) ? [y] : []));
}

describe('configured keys', () => {
  test('? lists remapped keys, the new keys work and the old ones are free; I opens the focused row’s inbox', async () => {
    const home = createTempHome();
    writeFileSync(join(home.workspace, 'switchboard.json'), JSON.stringify({ keys: { zoom: 'Z', layout: 'ctrl+g', mailFilterNext: 'tab' } }));
    const t = startSwb({ home, args: ['worker=echo WORKER-READY; sleep 60', 'other=echo OTHER-READY; sleep 60'] });
    await t.waitForText('OTHER-READY');
    await t.waitFor(() => headerLines(t, 'other').length === 1 && headerLines(t, 'worker')[0] === 0, 'both headers (stack)');
    // The key hints already show the remapped keys.
    expect(t.screenText().join('\n')).toMatch(/Z zoom {2}N new/);

    t.write('?');
    const help = (await t.waitForText('Switchboard keys')).join('\n');
    expect(help).toMatch(/│ Z\s+Zoom the focused row/);
    expect(help).toMatch(/│ ctrl\+g\s+Switch layout/);
    expect(help).toMatch(/│ I\s+Open the focused row’s inbox/);
    expect(help).not.toMatch(/│ z\s+Zoom/);
    expect(help).not.toMatch(/│ g\s+Switch layout/);
    t.write(ESC);
    await t.waitForNoText('Switchboard keys');

    t.write(CTRL_G);
    await t.waitFor(() => headerLines(t, 'worker')[0] === 0 && headerLines(t, 'other')[0] === 0, 'both headers on line 0 (grid)');
    t.write(CTRL_G);
    await t.waitFor(() => (headerLines(t, 'other')[0] ?? 0) > 1, 'the stack layout back');
    t.write('Z');
    await t.waitFor(() => headerLines(t, 'other').length === 0 && headerLines(t, 'worker')[0] === 0, 'only the focused row (zoomed)');
    t.write('Z');
    await t.waitFor(() => headerLines(t, 'other').length === 1, 'both rows after unzooming');
    // z and g are free now: each is followed by a mail the dashboard shows, by which time the key
    // has been read, and the layout has not moved.
    const stacked = () => headerLines(t, 'worker')[0] === 0 && (headerLines(t, 'other')[0] ?? 0) > 1;
    for (const [key, to, text] of [['z', '@worker', 'for-worker'], ['g', '@other', 'for-other'], ['', '@operator', 'for-operator']] as const) {
      if (key) t.write(key);
      const r = await runSwb(['send', '--as', 'bot', to, text], { home });
      expect(r.status).toBe(0);
      await t.waitForText(`@bot → ${to} [msg] ${text}`);
      expect(stacked()).toBe(true);
    }
    t.write('I');
    const inbox = (await t.waitForText(/Mail — @worker · 1 message\b/)).join('\n');
    expect(inbox).toMatch(/bot → worker \[msg\] for-worker/);
    expect(inbox).not.toMatch(/for-other|for-operator/);
    t.write(ESC);
    await t.waitFor(() => headerLines(t, 'worker')[0] === 0, 'the dashboard again');
    t.write('i');
    const all = (await t.waitForText(/Mail — all mail · 3 messages/)).join('\n');
    // The mail view's own keys are remappable too, and its footer says so.
    expect(all).toMatch(/Tab\/F filter/);
    t.write('\t');
    await t.waitForText(/Mail — @\S+ · \d+ messages?/);
  });
});
