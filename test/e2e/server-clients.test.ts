// The workspace server outlives its clients (issue #10): `swb` is a thin client of `swb server`, which
// owns the hub, the rows and the agents. Detaching or killing a client leaves every row running with
// its screen and modes; several clients share the rows but not their view; mail is woken with nobody
// watching; `swb ls`, `new`, `kill` and `kill-server` manage the server from any shell (as the operator).
import { existsSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { MailItem, SendResult } from '../../src/protocol/methods.js';
import { runCleanups } from '../helpers/cleanup.js';
import { isLive } from '../helpers/process-descendants.js';
import { descriptorsTo, loggedServerPids } from '../helpers/processes.js';
import { readProcStat } from '../../src/rows/process-tree.js';
import { ls } from '../helpers/swb-ls.js';
import { runSwb, swbEnv } from '../helpers/run-swb.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import { startProgram, startSwb, type TerminalHarness } from '../helpers/terminal-harness.js';
import { swbBinPath } from '../../src/util/package-root.js';
import { waitUntil } from '../helpers/wait-until.js';

afterEach(runCleanups);

const ATTACH = '\r';
const DETACH_ROW = '\x1c'; // Ctrl-\
const DETACH_CLIENT = 'd';
const HINTS = /enter attach/;
const SH_WAKE_LINE = "# You have new mail in Switchboard - run 'swb inbox' to read it.";

/** The pid a row's shell wrote to `file` in the workspace. */
async function pidFile(home: TempHome, file: string): Promise<number> {
  const path = join(home.workspace, file);
  return waitUntil(() => existsSync(path) && Number(readFileSync(path, 'utf8').trim()), { what: `${file} to hold a pid` });
}

/** The one server this home's swb started (from server.log). */
async function serverPid(home: TempHome): Promise<number> {
  const pids = await waitUntil(() => {
    const p = loggedServerPids(home.home);
    return p.length > 0 && p;
  }, { what: 'the server to log its pid' });
  expect(pids).toHaveLength(1);
  return pids[0]!;
}

/**
 * swb with one row (its shell's pid in one.pid), the dashboard up, and the server holding the
 * client's terminal (one descriptor on it): the terminal's path comes back with the rest.
 */
async function oneRowOnHeldTerminal() {
  const home = createTempHome();
  const t = startSwb({ home, args: ['one=echo $$ > one.pid; echo ONE-READY; exec sleep 600'] });
  await t.waitForText('ONE-READY');
  await t.waitForText(HINTS);
  const server = await serverPid(home);
  const rowPid = await pidFile(home, 'one.pid');
  const terminal = readlinkSync(`/proc/${t.pid}/fd/0`);
  expect(descriptorsTo(server, terminal)).toBe(1);
  return { home, t, server, rowPid, terminal };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Header lines end with the time since output, which moves on by itself. */
function stripAge(line: string): string {
  return line.replace(/ +(\d+[smhd]|now|-)$/, ' AGE');
}

/** Presses `d` and waits for the client to leave with status 0, saying the rows run on. */
async function detachClient(t: TerminalHarness, rows: number): Promise<void> {
  t.write(DETACH_CLIENT);
  const exit = await t.waitForExit();
  expect(exit).toEqual({ exitCode: 0, signal: 0 });
  const said = rows === 1 ? 'detached; 1 row runs on' : `detached; ${rows} rows run on`;
  await t.waitForText(`swb: ${said}`);
}

/** SIGKILLs a client (the pty's process: `node swb.js`) and waits for it to be gone. */
async function killClient(t: TerminalHarness): Promise<void> {
  process.kill(t.pid, 'SIGKILL');
  const exit = await t.waitForExit();
  expect(exit.signal).toBe(9);
}

describe('swb server and its clients', () => {
  test('detach (d) and swb attach keep a row\u2019s process and its screen', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['one=echo $$ > one.pid; echo ONE-READY; exec sleep 600'] });
    await t.waitForText('ONE-READY');
    await t.waitForText(HINTS);
    const rowPid = await pidFile(home, 'one.pid');
    const server = await serverPid(home);
    expect(server).not.toBe(t.pid);

    await detachClient(t, 1);
    // Nothing of the row was the client's: the row's program and the server live on.
    expect(isLive(rowPid)).toBe(true);
    expect(isLive(server)).toBe(true);
    const listed = await ls(home);
    expect(listed.pid).toBe(server);
    expect(listed.rows).toMatchObject([{ name: 'one', running: true, pid: rowPid }]);
    await waitUntil(async () => (await ls(home)).clients === 0, { what: 'the server to count no clients' });

    const again = startSwb({ home, args: ['attach'] });
    await again.waitForText('ONE-READY');
    await again.waitForText(/^ \S+ one · /m);
    await again.waitForText(HINTS);
    expect(isLive(rowPid)).toBe(true);
    // The same process still (sleep replaced the shell that wrote its pid).
    expect((await ls(home)).rows).toMatchObject([{ name: 'one', running: true, pid: rowPid }]);
    expect(await serverPid(home)).toBe(server);
  });

  test('the server’s node starts without reading NODE_EXTRA_CA_CERTS, and its rows still get the setting', async () => {
    const home = createTempHome();
    // A file node cannot load: a node that reads the setting at its start says so on stderr.
    const ca = join(home.home, 'no-such-ca.pem');
    const t = startSwb({ home, args: ['ca=echo "CA<$NODE_EXTRA_CA_CERTS>"; exec sleep 600'], env: { NODE_EXTRA_CA_CERTS: ca } });
    await t.waitForText(`CA<${ca}>`);
    const server = await serverPid(home);
    const started = readFileSync(`/proc/${server}/environ`, 'utf8').split('\0');
    expect(started.filter((e) => e.startsWith('NODE_EXTRA_CA_CERTS='))).toEqual([]);
    expect(started).toContain(`SWB_NODE_EXTRA_CA_CERTS=${ca}`);
    expect(readFileSync(join(home.paths.runDir, 'server.out'), 'utf8')).not.toMatch(/Ignoring extra certs/);
  });

  test('swb attach never starts a server: NO_SERVER', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['attach'] });
    const exit = await t.waitForExit();
    expect(exit.exitCode).toBe(1);
    await t.waitForText(/swb: NO_SERVER: /);
    expect(loggedServerPids(home.home)).toEqual([]);
  });

  test('--workspace DIR from another directory reaches the server of that directory\u2019s workspace; a DIR that is not there is refused', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['far=echo FAR-UP; exec sleep 600'] });
    await t.waitForText('FAR-UP');
    const elsewhere = join(home.workspace, '..'); // outside the workspace
    for (const dir of [home.workspace, './workspace']) {
      const r = await runSwb(['ls', '--json', '--workspace', dir], { home, cwd: elsewhere });
      expect(r.stderr).toBe('');
      expect((JSON.parse(r.stdout) as { rows: Array<{ name: string }> }).rows.map((row) => row.name)).toEqual(['far']);
    }
    const bad = await runSwb(['ls', '--workspace', './nowhere'], { home, cwd: elsewhere });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--workspace \.\/nowhere: \S+\/nowhere is not a directory/);

    // The dashboard too: attach from elsewhere shows the same row.
    t.write('d');
    await t.waitForExit();
    const again = startSwb({ home, args: ['attach', '--workspace', './workspace'], cwd: elsewhere });
    await again.waitForText('FAR-UP');
    expect(again.screenText().join('\n')).toMatch(/ far · /);
  });

  test('after a SIGKILLed client, a new client shows the dashboard as it was and the attached program\u2019s modes come back', async () => {
    const home = createTempHome();
    // Text on the normal screen, then the alternate screen with bracketed paste and application cursor keys.
    const alt = `alt=printf 'NORMAL-SCREEN\\n\\033[?1049h\\033[H\\033[?2004h\\033[?1hALT-SCREEN-UP'; exec sleep 600`;
    const t = startSwb({ home, args: [alt] });
    await t.waitForText('ALT-SCREEN-UP');
    await t.waitForText(HINTS);
    expect(t.modes).toMatchObject({ bracketedPasteMode: false, applicationCursorKeysMode: false }); // the dashboard reads plain keys
    expect(t.screenText().join('\n')).not.toContain('NORMAL-SCREEN');
    const dashboard = (await t.waitForStableScreen()).map(stripAge);

    t.write(ATTACH);
    await t.waitFor(() => t.modes.bracketedPasteMode && t.screenText()[0] === 'ALT-SCREEN-UP' && !HINTS.test(t.screenText().join('\n')), 'the attached view with bracketed paste on');
    expect(t.terminal.buffer.active.type).toBe('alternate');
    expect(t.modes).toMatchObject({ bracketedPasteMode: true, applicationCursorKeysMode: true });
    expect(t.screenText()[0]).toBe('ALT-SCREEN-UP');
    const attachedView = t.screenText();
    const rowPid = (await ls(home)).rows[0]!.pid!;
    expect((await ls(home)).rows[0]).toMatchObject({ name: 'alt', attached: true });

    await killClient(t);
    expect(isLive(rowPid)).toBe(true);
    // The killed client's attachment ends with it.
    await waitUntil(async () => {
      const l = await ls(home);
      return l.clients === 0 && l.rows[0]?.attached === false;
    }, { what: 'the server to forget the killed client' });

    const again = startSwb({ home, args: ['attach'] });
    await again.waitForText('ALT-SCREEN-UP');
    await again.waitForText(HINTS);
    // The dashboard, not the row's modes, while nothing is attached; and no junk: the same lines as before.
    expect(again.modes).toMatchObject({ bracketedPasteMode: false, applicationCursorKeysMode: false });
    const want = dashboard.join('\n');
    await again.waitFor(() => again.screenText().map(stripAge).join('\n') === want, 'the dashboard as the killed client showed it').catch(() => undefined);
    expect(again.screenText().map(stripAge)).toEqual(dashboard);
    expect(again.screenText()[0]).toMatch(/^ \S+ alt · /);
    expect(again.screenText().join('\n')).not.toMatch(/\[\?\d+[hl]|\x1b/);

    again.write(ATTACH);
    await again.waitFor(() => again.modes.bracketedPasteMode && again.screenText()[0] === 'ALT-SCREEN-UP' && !HINTS.test(again.screenText().join('\n')), 'the reattached view with bracketed paste on');
    expect(again.terminal.buffer.active.type).toBe('alternate');
    expect(again.modes).toMatchObject({ bracketedPasteMode: true, applicationCursorKeysMode: true });
    // The row's alternate screen, as the killed client saw it (not its normal screen).
    expect(again.screenText()[0]).toBe('ALT-SCREEN-UP');
    expect(again.screenText().join('\n')).not.toContain('NORMAL-SCREEN');
    await again.waitFor(() => again.screenText().join('\n') === attachedView.join('\n'), 'the attached view as before').catch(() => undefined);
    expect(again.screenText()).toEqual(attachedView);
    expect(isLive(rowPid)).toBe(true);

    // Detaching from the row gives the dashboard its own modes back.
    again.write(DETACH_ROW);
    await again.waitFor(() => !again.modes.bracketedPasteMode && HINTS.test(again.screenText().join('\n')), 'the dashboard with bracketed paste off');
    expect(again.modes).toMatchObject({ bracketedPasteMode: false, applicationCursorKeysMode: false });
  });

  test('SIGKILL of the client leaves its rows running, and the server answers swb ls --json', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['one=echo $$ > one.pid; echo ONE-READY; exec sleep 600', 'two=echo TWO-READY; exec sleep 600'] });
    await t.waitForText('ONE-READY');
    await t.waitForText('TWO-READY');
    const rowPid = await pidFile(home, 'one.pid');
    const server = await serverPid(home);
    const before = await ls(home);
    expect(before.clients).toBe(1);
    const twoPid = before.rows.find((r) => r.name === 'two')!.pid!;

    await killClient(t);
    expect(isLive(server)).toBe(true);
    // The server holds the terminal, so it restores it even now: off the alternate screen, cursor shown.
    await t.waitFor(() => t.terminal.buffer.active.type === 'normal' && t.cursorVisible, 'the terminal restored after the client died');
    const after = await waitUntil(async () => {
      const l = await ls(home);
      return l.clients === 0 && l;
    }, { what: 'the server to count no clients' });
    expect(after.pid).toBe(server);
    expect(after.rows.map((r) => r.name).sort()).toEqual(['one', 'two']);
    expect(after.rows.find((r) => r.name === 'one')).toMatchObject({ running: true, pid: rowPid, exitCode: null, attached: false });
    expect(after.rows.find((r) => r.name === 'two')).toMatchObject({ running: true, pid: twoPid });
    expect(isLive(rowPid)).toBe(true);
    expect(isLive(twoPid)).toBe(true);

    // The plain table says the same.
    const table = await runSwb(['ls'], { home });
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`^one +- +running +0 +${rowPid} `, 'm'));
    expect(table.stdout).toMatch(new RegExp(`^server ${server} \\(swb [^)]+\\): 2 rows, 0 clients attached$`, 'm'));
  });

  /**
   * Rows whose every frame repaints their whole tile, on a large terminal: the dashboard paints
   * busy tiles at a steady frame rate, so the bytes a frame carries decide how soon a client that
   * stopped reading has its backlog (CLIENT_BACKLOG_BYTES) full.
   */
  const NOISY_ROWS = [1, 2, 3].map((n) => `noisy${n}=echo NOISY-READY; exec od -An -tx1 -v /dev/urandom`);
  const NOISY_SIZE = { cols: 400, rows: 100 };

  test('a SIGSTOPped relaying client costs the server a bounded backlog: its output is dropped, the rows run on, and it gets one full redraw when it reads again', async () => {
    const home = createTempHome();
    // SWB_DIRECT_TTY=0: the client relays its terminal over the socket (the server cannot reach it).
    const t = startSwb({ home, ...NOISY_SIZE, env: { SWB_DIRECT_TTY: '0' }, args: [...NOISY_ROWS, 'calm=echo CALM-READY; exec sleep 600'] });
    await t.waitForText('CALM-READY');
    await t.waitForText(HINTS);
    const server = await serverPid(home);
    const log = () => readFileSync(join(home.paths.runDir, 'server.log'), 'utf8');
    process.kill(t.pid, 'SIGSTOP');
    try {
      await waitUntil(() => /is not reading; its output is dropped/.test(log()), { timeoutMs: 60_000, what: 'the server to stop writing to the stopped client' });
      // The server still answers (as the operator, from another shell), and the rows run.
      const l = await ls(home);
      expect(l.pid).toBe(server);
      expect(l.rows.map((r) => `${r.name}:${r.running}`).sort()).toEqual(['calm:true', 'noisy1:true', 'noisy2:true', 'noisy3:true']);
    } finally {
      process.kill(t.pid, 'SIGCONT');
    }
    expect(log()).toMatch(/client connection is not reading/);
    await waitUntil(() => /client reads again after \d+ dropped bytes: full redraw/.test(log()), { timeoutMs: 60_000, what: 'the full redraw once the client reads again' });
    // The redraw brings the whole dashboard back: the calm row's header and its output.
    await t.waitForText(/calm · /);
    await t.waitForText('CALM-READY');
    expect(isLive(server)).toBe(true);
  }, 120_000);

  test('a terminal that stops reading (a stalled SSH link) costs the server a bounded backlog too: the server writes it directly, drops, and redraws once it reads', async () => {
    const home = createTempHome();
    const t = startSwb({ home, ...NOISY_SIZE, args: [...NOISY_ROWS, 'calm=echo CALM-READY; exec sleep 600'] });
    await t.waitForText('CALM-READY');
    await t.waitForText(HINTS);
    const server = await serverPid(home);
    const log = () => readFileSync(join(home.paths.runDir, 'server.log'), 'utf8');
    t.pauseReading();
    try {
      await waitUntil(() => /client terminal is not reading; its output is dropped/.test(log()), { timeoutMs: 60_000, what: 'the server to stop writing to the stalled terminal' });
      const l = await ls(home);
      expect(l.pid).toBe(server);
      expect(l.rows.map((r) => `${r.name}:${r.running}`).sort()).toEqual(['calm:true', 'noisy1:true', 'noisy2:true', 'noisy3:true']);
    } finally {
      t.resumeReading();
    }
    await waitUntil(() => /client reads again after \d+ dropped bytes: full redraw/.test(log()), { timeoutMs: 60_000, what: 'the full redraw once the terminal reads again' });
    await t.waitForText(/calm · /);
    await t.waitForText('CALM-READY');
    expect(isLive(server)).toBe(true);
  }, 120_000);

  test('the server reads and writes the client\u2019s terminal itself (no relay), never as its controlling terminal, and gives it back on detach: the shell gets the next keys', async () => {
    const home = createTempHome();
    // A shell around swb, as an operator's: after swb it reads a line from the same terminal.
    const script = `${JSON.stringify(process.execPath)} ${JSON.stringify(swbBinPath())} 'one=echo ONE-READY; exec sh'; echo SHELL-BACK; read line; echo "GOT:$line"; sleep 600`;
    const t = startProgram('/bin/sh', ['-c', script], {
      cols: 100,
      rows: 30,
      cwd: home.workspace,
      env: swbEnv(home, { TERM: 'xterm-256color', SHELL: '/bin/sh', XDG_CONFIG_HOME: join(home.home, 'config') }),
    });
    await t.waitForText('ONE-READY');
    await t.waitForText(HINTS);
    const server = await serverPid(home);
    const terminal = readlinkSync(`/proc/${t.pid}/fd/0`);
    const held = () => descriptorsTo(server, terminal);
    expect(held()).toBe(1);
    expect(readFileSync(join(home.paths.runDir, 'server.log'), 'utf8')).not.toMatch(/relays its terminal/);
    expect(readProcStat(server)?.ttyNr).toBe(0); // no controlling terminal
    // Keys reach the row through the server alone.
    t.write(ATTACH);
    await t.waitFor(() => !HINTS.test(t.screenText().join('\n')), 'the attached view');
    t.write('echo TYPED-$((6*7))\r');
    await t.waitForText('TYPED-42');
    t.write(DETACH_ROW);
    await t.waitForText(HINTS);
    t.write(DETACH_CLIENT);
    await t.waitForText('SHELL-BACK');
    await waitUntil(() => held() === 0, { what: 'the server to let the terminal go' });
    t.write('after-detach\r');
    await t.waitForText('GOT:after-detach');
    expect(isLive(server)).toBe(true);
  });

  test('a terminal that goes away (SSH dropped, window closed) while the server holds it: the server lets it go, and the rows run on', async () => {
    const { home, t, server, rowPid, terminal } = await oneRowOnHeldTerminal();
    const held = () => descriptorsTo(server, terminal);
    t.hangUp();
    await waitUntil(() => held() === 0, { what: 'the server to let the hung-up terminal go' });
    await waitUntil(async () => (await ls(home)).clients === 0, { what: 'the client to be gone' });
    const l = await ls(home);
    expect(l.pid).toBe(server);
    expect(l.rows.map((r) => `${r.name}:${r.running}`)).toEqual(['one:true']);
    expect(isLive(rowPid)).toBe(true);
  });

  test('SIGTSTP to a client whose terminal the server holds detaches it (stopping would leave the server and the shell both reading the terminal)', async () => {
    const { home, t, server, rowPid, terminal } = await oneRowOnHeldTerminal();
    process.kill(t.pid, 'SIGTSTP');
    const exit = await t.waitForExit();
    expect(exit).toEqual({ exitCode: 0, signal: 0 });
    await t.waitForText('swb: detached; 1 row runs on');
    expect(descriptorsTo(server, terminal)).toBe(0);
    expect(isLive(rowPid)).toBe(true);
    expect((await ls(home)).rows.map((r) => `${r.name}:${r.running}`)).toEqual(['one:true']);
  });

  test('two clients at once: both show both rows, overlays are each client\u2019s own, mail shows in both', async () => {
    const home = createTempHome();
    const a = startSwb({ home, args: ['one=echo ONE-READY; exec sleep 600', 'two=echo TWO-READY; exec sleep 600'] });
    await a.waitForText('ONE-READY');
    await a.waitForText('TWO-READY');
    const b = startSwb({ home, args: ['attach'] });
    for (const t of [a, b]) {
      await t.waitForText('ONE-READY');
      await t.waitForText('TWO-READY');
      await t.waitForText(HINTS);
    }
    await waitUntil(async () => (await ls(home)).clients === 2, { what: 'two clients attached' });
    const bBefore = (await b.waitForStableScreen()).map(stripAge);

    const HELP = 'Switchboard keys';
    a.write('?');
    await a.waitForText(HELP);
    expect(b.screenText().join('\n')).not.toContain(HELP);

    // Shared rows, shared mail: both strips show it. The help in `a` did not reach `b`.
    const sent = await runSwb(['send', '--as', 'script', '@one', 'hi'], { home });
    expect(sent.status).toBe(0);
    await b.waitForText(/@script → @one .*hi/);
    const bNow = b.screenText().map(stripAge);
    // Only the strip changed on `b`: every other line is as it was.
    const strip = b.rows - 2;
    expect(bNow.filter((_, i) => i !== strip && !/✉/.test(bNow[i]!))).toEqual(bBefore.filter((_, i) => i !== strip && !/✉/.test(bNow[i]!)));
    // `a` still has its help open, and shows the mail once it is closed.
    expect(a.screenText().join('\n')).toContain(HELP);
    expect(b.screenText().join('\n')).not.toContain(HELP);
    a.write('\x1b');
    await a.waitForText(HINTS);
    await a.waitForText(/@script → @one .*hi/);
    // Focus is each client's too: moving it in `b` leaves `a` where it was.
    const aFocus = a.screenText().map(stripAge);
    b.write('\t');
    await b.waitFor(() => b.screenText().map(stripAge).join('\n') !== bNow.join('\n'), 'b to move its focus');
    await b.waitForStableScreen();
    expect(a.screenText().map(stripAge)).toEqual(aFocus);
  });

  test('mail that arrives with no client attached is committed and the row is woken', async () => {
    const home = createTempHome();
    const config = join(home.workspace, 'swb.json');
    writeFileSync(config, JSON.stringify({ rows: [{ name: 'shell', profile: 'sh', wake: 'auto' }] }));
    const t = startSwb({ home, args: ['--config', config] });
    await t.waitForText(/shell · sh · idle/);
    await detachClient(t, 1);
    await waitUntil(async () => (await ls(home)).clients === 0, { what: 'the server to count no clients' });
    const audit = join(home.paths.runDir, 'audit.log');
    expect(existsSync(audit) ? readFileSync(audit, 'utf8') : '').not.toContain('You have new mail');

    const sent = await runSwb(['send', '--as', 'script', '--json', '@shell', 'while-nobody-watches'], { home });
    expect(sent.stderr).toBe('');
    const id = (JSON.parse(sent.stdout) as SendResult).id;
    // Woken with nobody watching: the wake line and Enter went into the row (logged before they are typed).
    const typed = await waitUntil(() => {
      if (!existsSync(audit)) return false;
      const lines = readFileSync(audit, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { row: string; bytes: string });
      return lines.length >= 2 && lines;
    }, { timeoutMs: 10_000, what: 'the wake line in the audit log' }).catch(async (err: Error) => {
      const why = await runSwb(['explain', 'shell'], { home });
      throw new Error(`${err.message}\nswb explain shell: ${why.stdout}${why.stderr}`);
    });
    expect(typed.map((a) => [a.row, a.bytes])).toEqual([
      ['shell', SH_WAKE_LINE],
      ['shell', '\r'],
    ]);
    expect((await ls(home)).clients).toBe(0);
    // Woken is recorded once the row took the line (it left the input after the Enter), a moment
    // after the Enter is logged: on a loaded machine the status read right after could still say accepted.
    const woken = await waitUntil(async () => {
      const status = JSON.parse((await runSwb(['status', String(id), '--json'], { home })).stdout) as { summary: Array<{ to: string; state: string }> };
      return status.summary[0]?.state === 'woken' && status;
    }, { timeoutMs: 10_000, what: 'the mail to be recorded woken' });
    expect(woken).toMatchObject({ summary: [{ to: 'shell', state: 'woken' }] });
    expect((await ls(home)).rows).toMatchObject([{ name: 'shell', running: true, unread: 1 }]);

    // The operator's own inbox is not the row's: it has nothing of this mail.
    const inbox = await runSwb(['inbox', '--json'], { home });
    expect(inbox.status).toBe(0);
    expect(inbox.stderr).toBe('');
    const { session, messages } = JSON.parse(inbox.stdout) as { session: string; messages: MailItem[] };
    expect(session).toBe('operator');
    expect(messages).toEqual([]);

    // The shell read the line: a reattached client shows it at the row's prompt.
    const again = startSwb({ home, args: ['attach'] });
    await again.waitForText(new RegExp(`^[#$] ${escapeRegExp(SH_WAKE_LINE)}$`, 'm'));
    // The wake line is a command the shell runs: the row reads busy until the prompt is back and quiet.
    await again.waitForText(/^ \S+ shell · sh · idle +✉ 1 /, { timeoutMs: 10_000 });
  });

  test('swb new adds a row every client shows; swb kill closes it; taken names, unknown rows and rows\u2019 own processes are refused', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['lser=swb ls; echo LS-DONE $?; exec sleep 600'] });
    // Inside a row, swb ls is not the operator's: refused, with a non-zero status.
    const done = await t.waitForText(/LS-DONE \d+/);
    const status = Number(/LS-DONE (\d+)/.exec(done.join('\n'))![1]);
    expect(status).not.toBe(0);
    expect(done.join('\n')).toMatch(/swb ls: UNAUTHENTICATED: .*operator only/);
    expect(done.join('\n')).not.toMatch(/^NAME +PROFILE/m);

    const added = await runSwb(['new', '--name', 'extra', '--', 'sh', '-c', 'echo EXTRA-UP; exec sleep 600'], { home });
    expect(added.stderr).toBe('');
    expect(added.status).toBe(0);
    expect(added.stdout).toMatch(/started row extra/);
    await t.waitForText('EXTRA-UP');
    await t.waitForText(/^ \S+ extra · /m);
    const listed = await ls(home);
    expect(listed.rows.map((r) => r.name).sort()).toEqual(['extra', 'lser']);
    const extra = listed.rows.find((r) => r.name === 'extra')!;
    expect(extra).toMatchObject({ running: true });
    expect(isLive(extra.pid!)).toBe(true);

    const taken = await runSwb(['new', '--name', 'extra', '--', 'sleep', '600'], { home });
    expect(taken.status).not.toBe(0);
    expect(taken.stderr).toMatch(/ROW_EXISTS/);
    expect((await ls(home)).rows).toHaveLength(2);
    // A name that cannot be a handle is the command line's mistake: exit 2, the server never asked.
    const badName = await runSwb(['new', '--name', 'sp ace', '--', 'sleep', '600'], { home });
    expect(badName.status).toBe(2);
    expect(badName.stderr).toMatch(/^swb new: --name "sp ace": a handle is 1-64 of/);
    expect((await ls(home)).rows).toHaveLength(2);

    const killed = await runSwb(['kill', 'extra'], { home });
    expect(killed.stderr).toBe('');
    expect(killed.status).toBe(0);
    await t.waitForNoText('EXTRA-UP');
    expect(t.screenText().join('\n')).not.toMatch(/^ \S+ extra · /m);
    expect((await ls(home)).rows.map((r) => r.name)).toEqual(['lser']);
    await waitUntil(() => !isLive(extra.pid!), { what: 'the killed row\u2019s program to end' });

    const nosuch = await runSwb(['kill', 'nosuch'], { home });
    expect(nosuch.status).not.toBe(0);
    expect(nosuch.stderr).toMatch(/NOT_FOUND/);
    expect((await ls(home)).rows.map((r) => r.name)).toEqual(['lser']);
  });

  test('swb kill-server on a terminal asks before ending running rows; Ctrl-C there stops nothing and exits 1', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['one=echo ONE-READY; exec sleep 600'] });
    await t.waitForText('ONE-READY');
    const server = await serverPid(home);
    const asker = startProgram(process.execPath, [swbBinPath(), 'kill-server'], { cols: 120, rows: 10, cwd: home.workspace, env: swbEnv(home, { TERM: 'xterm-256color' }) });
    await asker.waitForText('End them? [y/N]');
    asker.write('\x03');
    expect((await asker.waitForExit()).exitCode).toBe(1);
    await asker.waitForText('interrupted: nothing stopped');
    expect(isLive(server)).toBe(true);
    expect((await ls(home)).rows).toMatchObject([{ name: 'one', running: true }]);
  });

  test('swb kill-server asks for --force while rows run; with it the server, its rows and the attached client end', async () => {
    const home = createTempHome();
    const t = startSwb({ home, args: ['one=echo $$ > one.pid; echo ONE-READY; exec sleep 600'] });
    await t.waitForText('ONE-READY');
    const rowPid = await pidFile(home, 'one.pid');
    const server = await serverPid(home);

    const refused = await runSwb(['kill-server'], { home });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/ROWS_RUNNING/);
    expect(isLive(server)).toBe(true);
    expect(isLive(rowPid)).toBe(true);
    expect((await ls(home)).rows).toMatchObject([{ name: 'one', running: true, pid: rowPid }]);
    expect(t.exit).toBeUndefined();

    const forced = await runSwb(['kill-server', '--force'], { home });
    expect(forced.stderr).toBe('');
    expect(forced.status).toBe(0);
    const exit = await t.waitForExit();
    expect(exit.exitCode).toBe(0);
    await t.waitForText(/swb: the swb server stopped/);
    // The client hears BYE only once the rows have ended.
    expect(isLive(rowPid)).toBe(false);
    await waitUntil(() => !isLive(server), { what: 'the server to exit' });
    // Nothing runs there any more: the server's commands say so, and how to start one.
    const after = await runSwb(['ls', '--json'], { home });
    expect(after.status).not.toBe(0);
    expect(JSON.parse(after.stdout)).toEqual({
      error: { code: 'NO_SERVER', message: expect.stringMatching(/^No swb server runs for workspace \S+: nothing listens at \S+hub\.sock \(ENOENT\); start one with swb\.$/) },
    });
    for (const command of [['kill', 'r'], ['new', '--', 'true'], ['kill-server']]) {
      const r = await runSwb(command, { home });
      expect(r.stderr, command.join(' ')).toMatch(/^swb \S+: NO_SERVER: No swb server runs for workspace /);
    }
  });
});
