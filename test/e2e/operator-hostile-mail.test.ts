// Mail written to attack the operator's terminal arrives as inert text: the strip, the notification
// list and the mail view show it sanitized, and nothing of it reaches the outer terminal as a control
// sequence (no clipboard write, no title, no reset, no mode flipped, nothing moved or cleared).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { runSwb } from '../helpers/run-swb.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import { startSwb, type TerminalHarness } from '../helpers/terminal-harness.js';
import { HOSTILE_CASES, type HostileCase } from '../fixtures/hostile/corpus.js';

afterEach(runCleanups);

const ESC = '\x1b';
const ROWS = 30;
const STRIP = ROWS - 2;

function hostile(name: string): HostileCase & { input: string } {
  const c = HOSTILE_CASES.find((x) => x.name === name);
  if (!c || typeof c.input !== 'string') throw new Error(`no string case "${name}" in the hostile corpus`);
  return c as HostileCase & { input: string };
}

const CASES = [
  'OSC 52 clipboard write, BEL-terminated',
  'OSC 52 clipboard write, ST-terminated',
  'OSC 0 title set, BEL-terminated',
  'OSC 2 title set, ST-terminated',
  'CSI cursor position and relative moves',
  'CSI erase display and scrollback',
  'CSI private modes (alt screen, mouse, bracketed paste)',
  'RIS full reset (ESC c)',
  'DCS request status string',
  'DCS tmux passthrough wrapping OSC 52',
  '8-bit CSI as a code point (U+009B)',
  '8-bit OSC as a code point (U+009D)',
  'RLO reordering (Trojan Source)',
].map(hostile);
const SECRETS = CASES.flatMap((c) => (c.secret ? [c.secret] : []));

/** Every attack in one line, each behind a marker the sanitized text still shows. */
const ATTACKS = `attack:${CASES.map((c, i) => ` [${i}]${c.input}`).join('')}`;
/** Near the 16 KiB message limit: one long line with the clipboard write and a reset at both ends. */
const LONG = `long:${ESC}]52;c;bG9uZy1saW5lLXNlY3JldA==\x07${ESC}c${'A'.repeat(15_000)}${ESC}]0;long-title-secret\x07${ESC}[2J`;
const LONG_SECRETS = ['bG9uZy1saW5lLXNlY3JldA', 'long-title-secret'];

/** The screen with each header's age ("now", "<1m", "5m") blanked: it moves with the clock, not with mail. */
function screenWithoutAges(t: TerminalHarness): string[] {
  return t.screenText().map((line) => line.replace(/ (now|-|<1m|\d+[smhd])$/, ' <age>'));
}

/** What must hold on the outer terminal at any point: swb's own modes, no title, no stray sequences. */
function expectOuterTerminalUntouched(t: TerminalHarness, modes: Record<string, unknown>): void {
  expect({ ...t.modes }).toEqual(modes);
  expect(t.cursorVisible).toBe(false);
  expect(t.titles).toEqual([]);
  expect(t.terminal.buffer.active.type).toBe('alternate');
  const raw = t.output;
  expect(raw).not.toContain(`${ESC}]`); // no OSC at all: clipboard, title, palette, hyperlinks
  expect(raw).not.toContain(`${ESC}c`);
  expect(raw).not.toContain(`${ESC}P`);
  expect(raw).not.toMatch(/[\u0080-\u009f]/); // no 8-bit C1 controls
  expect(raw).not.toMatch(/\u202e|\u202c/);
  for (const secret of [...SECRETS, ...LONG_SECRETS]) expect(raw).not.toContain(secret);
}

async function send(home: TempHome, text: string): Promise<void> {
  const r = await runSwb(['send', '--as', 'mallory', '@operator'], { home, input: text });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
}

describe('hostile mail on the operator’s screen', () => {
  test('is shown sanitized in the strip, the notification list and the mail view, and never reaches the terminal as escapes', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['worker=echo WORKER-READY; sleep 60', 'other=echo OTHER-READY; sleep 60'], rows: ROWS, recordOutput: true });
    await t.waitForText('WORKER-READY');
    await t.waitForText('OTHER-READY');
    const before = screenWithoutAges(t);
    const modes = { ...t.modes };
    expect(modes).toMatchObject({ bracketedPasteMode: false, mouseTrackingMode: 'vt200', applicationCursorKeysMode: false }); // vt200: the dashboard's own clicks
    expectOuterTerminalUntouched(t, modes);

    await send(home, ATTACKS);
    const lines = await t.waitForText(/@mallory → @operator \[msg\] attack:/);
    // The strip shows the attack as text (␛ where a sequence was), cut at the terminal's width.
    expect(lines[STRIP]).toMatch(/attack: \[0\]a␛b \[1\]a␛b \[2\]␛ok \[3\]␛ok \[4\]a␛b␛c␛d␛e␛f␛g \[5\]x␛␛␛y/);
    expect(lines[STRIP]!.length).toBeLessThanOrEqual(t.cols);
    for (const secret of SECRETS) expect(lines.join('\n')).not.toContain(secret);
    // Every other line is as it was: headers, row output and the key hints.
    const after = screenWithoutAges(t);
    expect(after.filter((_, y) => y !== STRIP)).toEqual(before.filter((_, y) => y !== STRIP));
    expectOuterTerminalUntouched(t, modes);

    await send(home, LONG);
    await t.waitForText(/@mallory → @operator \[msg\] long:␛␛AAAA/);
    expect(screenWithoutAges(t).filter((_, y) => y !== STRIP)).toEqual(before.filter((_, y) => y !== STRIP));
    // The strip is one line: the long text is cut at the terminal's width, not wrapped over the hints.
    expect(t.screenText()[STRIP]!.length).toBeLessThanOrEqual(t.cols);
    expectOuterTerminalUntouched(t, modes);
    const dashboard = screenWithoutAges(t);

    t.write('n');
    const list = await t.waitForText('Notifications — newest first');
    const listed = list.join('\n');
    expect(listed).toMatch(/✉ @mallory → @operator \[msg\] long:␛␛AAAA/);
    expect(listed).toMatch(/✉ @mallory → @operator \[msg\] attack: \[0\]/);
    for (const secret of [...SECRETS, ...LONG_SECRETS]) expect(listed).not.toContain(secret);
    expectOuterTerminalUntouched(t, modes);
    t.write(ESC);
    // As it was, but for the strip: the list was seen, so the strip no longer counts unseen notes.
    const butStrip = (lines: string[]) => lines.filter((_, y) => y !== STRIP).join('\n');
    await t.waitFor(() => butStrip(screenWithoutAges(t)) === butStrip(dashboard), 'the dashboard as it was after the list');
    expect(t.screenText()[STRIP]).not.toMatch(/\(\+\d+ in n\)/);

    t.write('i');
    const view = await t.waitForText(/Mail — all mail · 2 messages/);
    expect(view.join('\n')).toMatch(/long:␛␛AAAA/);
    // Open the older one (the attacks) in full below the list.
    await t.waitFor(() => t.cellAt(4, 2).inverse, 'the newest message selected');
    t.write('j');
    await t.waitFor(() => t.cellAt(4, 3).inverse, 'the older message selected');
    t.write('\r');
    const opened = await t.waitForText(/from @mallory/);
    const shown = opened.join('\n');
    // Every marker survived, in order, each attack replaced by what sanitize leaves of it (the body
    // wraps at spaces inside the view's border).
    const body = opened.map((l) => l.replace(/^│ /, '').replace(/\s*│$/, '')).join(' ');
    expect(body).toMatch(/attack: \[0\]a␛b \[1\]a␛b \[2\]␛ok \[3\]␛ok \[4\]a␛b␛c␛d␛e␛f␛g \[5\]x␛␛␛y \[6\]␛␛␛z \[7\]a␛b \[8\]␛x \[9\]␛+x \[10\]a␛b \[11\]a␛b \[12\]file�txt\.exe�/);
    for (const secret of [...SECRETS, ...LONG_SECRETS]) expect(shown).not.toContain(secret);
    expectOuterTerminalUntouched(t, modes);
    t.write(ESC);
    await t.waitForNoText(/from @mallory/);
    t.write(ESC);
    await t.waitFor(() => butStrip(screenWithoutAges(t)) === butStrip(dashboard), 'the dashboard as it was after the mail view');
    expectOuterTerminalUntouched(t, modes);
  });

  test('with desktop notifications on, a mail rings with exactly one OSC 9 that carries no control bytes and no body', async () => {
    const home = createTempHome();
    // The older key: mail to the terminal, its sequence detected from what the client reports (WezTerm: OSC 9).
    writeFileSync(join(home.workspace, 'switchboard.json'), JSON.stringify({ notifications: { desktop: true } }));
    const t = startSwb({ home, args: ['worker=echo WORKER-READY; sleep 60'], rows: ROWS, recordOutput: true, env: { TERM_PROGRAM: 'WezTerm' } });
    await t.waitForText('WORKER-READY');
    expect(t.output).not.toContain(`${ESC}]`);

    await send(home, `ring ${hostile('OSC 0 title set, BEL-terminated').input} ${hostile('OSC 52 clipboard write, BEL-terminated').input}\nsecond line`);
    await t.waitForText(/@mallory → @operator \[msg\] ring/);
    await t.waitFor(() => t.output.includes(`${ESC}]9;`), 'the OSC 9');
    const raw = t.output;
    const osc9 = [...raw.matchAll(/\x1b\]9;/g)];
    expect(osc9).toHaveLength(1);
    const payload = raw.slice(osc9[0]!.index + 4, raw.indexOf('\x07', osc9[0]!.index));
    // Redacted by default: the sender and the event, never the message.
    expect(payload).toBe('Switchboard: @mallory sent you mail');
    // eslint-disable-next-line no-control-regex
    expect(payload).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
    // The only OSC is the notification's own: no title, no clipboard.
    expect([...raw.matchAll(/\x1b\](\d+);/g)].map((m) => m[1])).toEqual(['9']);
    expect(t.titles).toEqual([]);
  });
});
