// Notifications reach the operator's own terminal through the real swb: a row's mail to the operator
// and a row's non-zero exit arrive at the attached client's terminal as the desktop-notification
// sequence its terminal takes — OSC 9 (WezTerm), OSC 777 (Ghostty), OSC 99 (kitty) — picked from what
// the client reports about its terminal (even when the terminal names itself only after the first
// frame: the query runs beside attaching); the mute key (M) silences the focused row, on the server.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import { startSwb } from '../helpers/terminal-harness.js';
import { traceMark } from '../helpers/start-trace-file.js';
import { waitUntil } from '../helpers/wait-until.js';

afterEach(runCleanups);

const ESC = '\x1b';

/** A workspace whose config turns notifications on (the default kinds, the terminal detected). */
function notifyingHome(): TempHome {
  const home = createTempHome();
  writeFileSync(join(home.workspace, 'switchboard.json'), JSON.stringify({ notify: { terminal: 'auto' } }));
  return home;
}

/** A row that waits for its go file, then mails the operator and exits 3. */
const mailThenExit = (name: string) => `${name}=until [ -e go-${name} ]; do sleep 0.05; done; swb send @operator secret-body-${name}; exit 3`;

const CASES: Array<{ terminal: string; env: Record<string, string>; mail: string; exit: string }> = [
  {
    terminal: 'WezTerm (TERM_PROGRAM)',
    env: { TERM_PROGRAM: 'WezTerm' },
    mail: `${ESC}]9;Switchboard: @a sent you mail\x07`,
    exit: `${ESC}]9;Switchboard: @a exited with status 3\x07`,
  },
  {
    terminal: 'Ghostty (TERM_PROGRAM)',
    env: { TERM_PROGRAM: 'ghostty' },
    mail: `${ESC}]777;notify;Switchboard;@a sent you mail\x07`,
    exit: `${ESC}]777;notify;Switchboard;@a exited with status 3\x07`,
  },
  {
    terminal: 'kitty (KITTY_WINDOW_ID)',
    env: { KITTY_WINDOW_ID: '1' },
    mail: `${ESC}]99;i=swb-mail-a:d=0;Switchboard${ESC}\\${ESC}]99;i=swb-mail-a:d=1:p=body;@a sent you mail${ESC}\\`,
    exit: `${ESC}]99;i=swb-row-exited-a:d=0;Switchboard${ESC}\\${ESC}]99;i=swb-row-exited-a:d=1:p=body;@a exited with status 3${ESC}\\`,
  },
];

describe('notifications on the attached client’s terminal', () => {
  test.each(CASES)('a row’s mail to the operator and its non-zero exit reach a $terminal client as its sequence, redacted', async ({ env, mail, exit }) => {
    const home = notifyingHome();
    const t = startSwb({ home, args: [mailThenExit('a')], recordOutput: true, env });
    await t.waitForText(/ a · /);
    expect(t.output).not.toContain(`${ESC}]`);
    writeFileSync(join(home.workspace, 'go-a'), '');
    await t.waitFor(() => t.output.includes(mail) && t.output.includes(exit), 'the mail and exit notifications');
    // Once each, and never the message's body.
    expect(t.output.split(mail)).toHaveLength(2);
    expect(t.output.split(exit)).toHaveLength(2);
    expect(t.output).not.toMatch(/\x1b\][^\x07\x1b]*secret-body/);
    expect(t.titles).toEqual([]);
  });

  test('a terminal that names itself only after the first frame (XTVERSION answered late) still gets its sequence: kitty’s OSC 99', async () => {
    const home = notifyingHome();
    const trace = join(home.home, 'start-trace');
    // Nothing in the environment says kitty (TERM is xterm-256color: the bell), and the terminal
    // answers the query only when the test says (the bound is far off).
    const t = startSwb({
      home,
      args: [mailThenExit('a')],
      recordOutput: true,
      answersDeviceAttributes: false,
      env: { SWB_TERMINAL_QUERY_MS: '60000', SWB_START_TRACE: trace },
    });
    await t.waitForText(/ a · /);
    // The frame is drawn while the query is still open: attaching did not wait for it.
    expect(traceMark(trace, 'first output to the client')).toBeDefined();
    expect(traceMark(trace, 'terminal answered')).toBeUndefined();
    t.write(`${ESC}P>|kitty(0.35.2)${ESC}\\${ESC}[?62;22c`);
    await waitUntil(() => traceMark(trace, 'terminal named'), { what: 'the server to hear the terminal’s name' });
    writeFileSync(join(home.workspace, 'go-a'), '');
    const mail = CASES[2]!.mail;
    const exit = CASES[2]!.exit;
    await t.waitFor(() => t.output.includes(mail) && t.output.includes(exit), 'the mail and exit notifications in OSC 99');
    expect(t.output).not.toContain(`${ESC}]9;`);
    expect(t.output).not.toContain(`${ESC}]777;`);
    // The reply never reached the dashboard as keys.
    expect(t.screenText().join('\n')).not.toContain('kitty');
  });

  test('M mutes the focused row on the server: its mail and exit stay silent, another row’s still ring; M again unmutes', async () => {
    const home = notifyingHome();
    const t = startSwb({ home, args: [mailThenExit('a'), mailThenExit('b')], recordOutput: true, env: { TERM_PROGRAM: 'WezTerm' } });
    await t.waitForText(/ b · /);
    // The first row is focused: M mutes it, and its header says so.
    t.write('M');
    await t.waitForText(/ a · .*· muted/);
    await t.waitForText('@a muted');
    writeFileSync(join(home.workspace, 'go-a'), '');
    // Both of a's events have reached this client (its mail on the strip, its exit in its header):
    // a notification would have been written before either was painted.
    await t.waitForText(/@a → @operator/);
    await t.waitForText(/ a · exited exit 3/);
    expect(t.output).not.toContain(`${ESC}]9;`);

    writeFileSync(join(home.workspace, 'go-b'), '');
    await t.waitFor(() => t.output.includes(`${ESC}]9;Switchboard: @b exited with status 3\x07`), 'b’s exit notification');
    expect(t.output).toContain(`${ESC}]9;Switchboard: @b sent you mail\x07`);
    expect(t.output).not.toContain('@a sent you mail');
    expect(t.output).not.toContain('@a exited');

    // Unmuted: the mark goes, on the server's word.
    t.write('M');
    await t.waitForText('@a unmuted');
    await t.waitForNoText(/ a · .*· muted/);
  });
});
