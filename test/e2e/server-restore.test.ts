// The workspace server records its rows and relaunches them when it starts again (issue #10): after
// a crash (SIGKILL), after `swb kill-server`, but not with `--fresh`. Each restored row says so in its
// header and in a note; an agent whose profile has a resume recipe resumes its own conversation
// (the same minted session id, with the recipe's resume arguments); a row that comes back as a new
// conversation has its old unread mail parked for the operator, who can re-deliver it.
import Database from 'better-sqlite3';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { MailItem, SendResult } from '../../src/protocol/methods.js';
import { runCleanups } from '../helpers/cleanup.js';
import { readOperatorToken } from '../helpers/hub-harness.js';
import { isLive, startTimeOf } from '../helpers/process-descendants.js';
import { isProcessAlive } from '../helpers/processes.js';
import { RawClient, errorCode } from '../helpers/raw-client.js';
import { ls, rowOf } from '../helpers/swb-ls.js';
import { runSwb } from '../helpers/run-swb.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import { startSwb, type TerminalHarness } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';

afterEach(runCleanups);

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

async function send(home: TempHome, to: string, text: string): Promise<number> {
  const r = await runSwb(['send', '--as', 'script', '--json', `@${to}`, text], { home });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return (JSON.parse(r.stdout) as SendResult).id;
}

/** The mail identity a row's program was started with (SWB_SESSION, SWB_TOKEN, SWB_SOCKET), from /proc. */
function rowIdentity(pid: number): Record<string, string> {
  const vars = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  const out: Record<string, string> = {};
  for (const v of vars) {
    const eq = v.indexOf('=');
    const key = v.slice(0, eq);
    if (key === 'SWB_SESSION' || key === 'SWB_TOKEN' || key === 'SWB_SOCKET') out[key] = v.slice(eq + 1);
  }
  expect(Object.keys(out).sort()).toEqual(['SWB_SESSION', 'SWB_SOCKET', 'SWB_TOKEN']);
  return out;
}

/** `swb inbox --json` run as the row itself (with its program's identity), as its agent would run it. */
async function rowInbox(home: TempHome, pid: number): Promise<MailItem[]> {
  const r = await runSwb(['inbox', '--json'], { home, env: rowIdentity(pid) });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const out = JSON.parse(r.stdout) as { session: string; messages: MailItem[] };
  return out.messages;
}

/** One operator request on the hub's socket, through a client that shares no code with swb. */
async function asOperator(home: TempHome, method: string, params: unknown): Promise<any> {
  const client = await RawClient.connect(home.paths.socketPath);
  try {
    const hello = await client.hello({ session: 'operator', token: readOperatorToken(home.paths) });
    expect(hello.error).toBeUndefined();
    return await client.request(method, params);
  } finally {
    client.destroy();
  }
}

/** One request on the hub's socket as a row (with its program's token). */
async function asRow(home: TempHome, pid: number, method: string, params: unknown): Promise<any> {
  const id = rowIdentity(pid);
  const client = await RawClient.connect(home.paths.socketPath);
  try {
    const hello = await client.hello({ session: id.SWB_SESSION, token: id.SWB_TOKEN });
    expect(hello.error).toBeUndefined();
    return await client.request(method, params);
  } finally {
    client.destroy();
  }
}

/** Names of the rows the server recorded, read from its store from the outside. */
function recordedRows(home: TempHome): Array<{ name: string; session_id: string | null }> {
  if (!existsSync(home.paths.dbFile)) return [];
  const db = new Database(home.paths.dbFile, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT name, session_id FROM row_records ORDER BY position').all() as Array<{ name: string; session_id: string | null }>;
  } finally {
    db.close();
  }
}

/**
 * A crash of the whole machine, as far as swb can tell: the server SIGKILLed without a word, then
 * its rows' programs (as seen before, by start time), and the client left behind exits.
 */
async function crash(serverPid: number, programs: ReadonlyMap<number, string>, client: TerminalHarness): Promise<void> {
  process.kill(serverPid, 'SIGKILL');
  await waitUntil(() => !isProcessAlive(serverPid), { what: 'the server to die' });
  await killAll(programs);
  await client.waitForExit();
}

/** SIGKILLs processes by pid, only while each is still the process that was seen (same start time). */
async function killAll(pids: ReadonlyMap<number, string>): Promise<void> {
  for (const [pid, start] of pids) {
    if (startTimeOf(pid) === start) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }
  await waitUntil(() => [...pids].every(([pid, start]) => startTimeOf(pid) !== start), { what: 'the old rows to end' });
}

/** Writes a user profile into the config dir the harness gives swb (XDG_CONFIG_HOME=<home>/config). */
function writeProfile(home: TempHome, id: string, command: string[], resume: Record<string, unknown>): void {
  const dir = join(home.home, 'config', 'switchboard', 'profiles');
  mkdirSync(dir, { recursive: true });
  const profile = { format: 1, id, version: '1', displayName: `${id} resumable agent`, command, interruptKey: '\u0003', wakeLine: '# you have mail', resume, rules: [] };
  writeFileSync(join(dir, `${id}.json`), JSON.stringify(profile));
}

/**
 * A user profile "fake" whose program logs its own pid and arguments to `log`, then sleeps; swb
 * mints its session id (the shape of Claude Code's recipe).
 */
/** The fake agent's row started; its first launch logged with the session id swb minted, and that id recorded. */
async function startMintedRow(home: TempHome) {
  const log = join(home.workspace, 'fake-launches.log');
  writeFakeProfile(home, log);
  const first = startSwb({ home, args: ['fake'] });
  await first.waitForText('FAKE-UP');
  const before = await ls(home);
  const launched = rowOf(before, 'fake');
  await waitUntil(() => launches(log).length === 1, { what: 'the first launch to be logged' });
  const args = launches(log)[0]!.args;
  const minted = new RegExp(`^--session-id (${UUID})$`).exec(args)?.[1];
  expect(minted, `first launch arguments: ${args}`).toBeDefined();
  await waitUntil(() => recordedRows(home).find((r) => r.name === 'fake')?.session_id === minted, { what: 'the row recorded with its session id' });
  return { log, first, before, launched, minted: minted! };
}

function writeFakeProfile(home: TempHome, log: string): void {
  // sh -c SCRIPT NAME ARGS...: the appended session arguments land in "$@".
  const script = `echo "$$ $*" >> '${log}'; echo FAKE-UP; exec sleep 600`;
  writeProfile(home, 'fake', ['sh', '-c', script, 'fake'], { mint: true, launchArgs: ['--session-id', '{id}'], resumeArgs: ['--resume', '{id}'] });
}

/**
 * A user profile "picky" with a minted session that cannot be resumed: asked to, it says there is
 * no such conversation and exits 3, as Claude Code and Gemini CLI do for a session that never had
 * a turn. Returns the launch log.
 */
function writePickyProfile(home: TempHome): string {
  const log = join(home.workspace, 'picky-launches.log');
  const script = [
    `echo "$$ $*" >> '${log}'`,
    'if [ "$1" = --resume ]; then echo "No conversation found with session ID: $2"; exit 3; fi',
    'echo PICKY-UP',
    'exec sleep 600',
  ].join('; ');
  writeProfile(home, 'picky', ['sh', '-c', script, 'picky'], { mint: true, launchArgs: ['--session-id', '{id}'], resumeArgs: ['--resume', '{id}'] });
  return log;
}

/**
 * A user profile "opener" shaped like Codex: a new conversation gets an id of the agent's own
 * making, kept open in a file named after it; `resume ID` continues it. Returns the launch log.
 */
function writeOpenerProfile(home: TempHome): string {
  const log = join(home.workspace, 'opener-launches.log');
  const sessions = join(home.workspace, 'sessions');
  mkdirSync(sessions);
  const script = [
    `echo "$$ $*" >> '${log}'`,
    'if [ "$1" = resume ]; then id=$2; else id=conv$$; fi',
    `exec 3>> '${sessions}'/rollout-$id.jsonl`,
    'echo OPENER-UP',
    'exec sleep 600',
  ].join('; ');
  writeProfile(home, 'opener', ['sh', '-c', script, 'opener'], { openFile: '/sessions/rollout-(?<id>[a-z0-9]+)\\.jsonl$', resumeArgs: ['resume', '{id}'] });
  return log;
}

/**
 * A user profile "mover" whose program is a script of its own (`<workspace>/agent-bin/mover`, so the
 * test can take it away and put it back, as a reinstall does). It keeps a transcript per session
 * (`<workspace>/transcripts/<id>.jsonl`, named in the recipe) and writes a turn into it when
 * launched with `--session-id`; with `refuse` in the workspace, it refuses every resume (exit 3).
 */
function writeMoverProfile(home: TempHome): { log: string; program: string; transcripts: string } {
  const log = join(home.workspace, 'mover-launches.log');
  const bin = join(home.workspace, 'agent-bin');
  const transcripts = join(home.workspace, 'transcripts');
  mkdirSync(bin);
  mkdirSync(transcripts);
  const program = join(bin, 'mover');
  const script = [
    '#!/bin/sh',
    `echo "$$ $*" >> '${log}'`,
    `if [ "$1" = --resume ] && [ -e '${home.workspace}/refuse' ]; then echo "No conversation found with session ID: $2"; exit 3; fi`,
    `if [ "$1" = --session-id ]; then echo '{"turn":1}' >> '${transcripts}'/"$2".jsonl; fi`,
    'echo "MOVER-UP $1"',
    'exec sleep 600',
  ].join('\n');
  writeFileSync(program, `${script}\n`);
  chmodSync(program, 0o755);
  writeProfile(home, 'mover', [program], { mint: true, launchArgs: ['--session-id', '{id}'], resumeArgs: ['--resume', '{id}'], transcript: `${transcripts}/{id}.jsonl` });
  return { log, program, transcripts };
}

/** The lines the fake agent logged, as [pid, arguments]. */
function launches(log: string): Array<{ pid: number; args: string }> {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => ({ pid: Number(l.slice(0, l.indexOf(' '))), args: l.slice(l.indexOf(' ') + 1) }));
}

/**
 * Expects the left part of a row's header (glyph, name, profile, state, marks) to read `want`, waiting
 * for it: a header is repainted as its row's state settles, so the first frame that shows it proves nothing.
 */
async function expectHeader(t: TerminalHarness, name: string, want: RegExp): Promise<void> {
  const re = new RegExp(`^ \\S ${name} · .*?(?= {2,}|$)`);
  const shown = () => t.screenText().map((l) => re.exec(l)?.[0]).find(Boolean);
  const h = await t.waitFor(() => {
    const now = shown();
    return now !== undefined && want.test(now) && now;
  }, `the header of ${name} to read ${want}`).catch((err: Error) => {
    throw new Error(`${err.message}\nlast header of ${name}: ${shown() ?? '(none)'}`);
  });
  expect(h).toMatch(want);
}

/** `swb kill-server --force`, then waits until the dashboard has left and the server has ended. */
async function killServer(home: TempHome, t: TerminalHarness, serverPid: number): Promise<void> {
  const r = await runSwb(['kill-server', '--force'], { home });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  await t.waitForExit();
  await waitUntil(() => !isProcessAlive(serverPid), { what: `the server ${serverPid} to end` });
}

describe('the server relaunches its recorded rows', () => {
  test('after a SIGKILL of the server (and its rows): both rows come back fresh, marked restored after a crash; their unread mail is parked until the operator re-delivers it', async () => {
    const home = createTempHome();
    const first = startSwb({ home, args: ['one=echo ONE-UP; exec sleep 600', 'two=echo TWO-UP; exec sleep 600'] });
    await first.waitForText('ONE-UP');
    await first.waitForText('TWO-UP');
    const before = await ls(home);
    const oldPids = new Map(before.rows.map((r) => [r.pid!, startTimeOf(r.pid!)!] as const));
    expect(oldPids.size).toBe(2);
    const toOne = await send(home, 'one', 'before-crash');
    const toTwo = await send(home, 'two', 'also-before-crash');
    await waitUntil(() => recordedRows(home).length === 2, { what: 'both rows to be recorded' });
    expect(recordedRows(home).map((r) => r.name)).toEqual(['one', 'two']);
    expect(rowOf(await ls(home), 'one').unread).toBe(1);

    // The server dies without a word; so do its rows, as in a crash of the whole machine.
    await crash(before.pid, oldPids, first);

    const second = startSwb({ home, args: [], cols: 200 });
    await second.waitForText('ONE-UP');
    await second.waitForText('TWO-UP');
    await expectHeader(second, 'one', / · restored$/);
    await expectHeader(second, 'two', / · restored$/);
    // Both notes are kept in the notification list (the strip shows the last).
    await second.waitForText(/restored after the server crashed/);
    second.write('n');
    await second.waitForText(/@one restored after the server crashed: it has no resume recipe, so it starts fresh; 1 unread message from before waits for your review/);
    await second.waitForText(/@two restored after the server crashed: it has no resume recipe, so it starts fresh; 1 unread message from before waits for your review/);

    const after = await ls(home);
    expect(after.pid).not.toBe(before.pid);
    expect(after.rows.map((r) => r.name)).toEqual(['one', 'two']);
    for (const r of after.rows) {
      expect(r).toMatchObject({ running: true, restored: 'fresh', unread: 0 });
      expect(oldPids.has(r.pid!)).toBe(false);
      expect(isLive(r.pid!)).toBe(true);
    }

    // The mail is still in the store (the operator sees its receipt) ...
    const status = await runSwb(['status', String(toOne), '--json'], { home });
    expect(status.status).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ id: toOne, from: 'script', recipients: [{ to: 'one' }] });
    // ... but the new conversation in @one is not handed it.
    const one = rowOf(after, 'one').pid!;
    expect(await rowInbox(home, one)).toEqual([]);

    // Only the operator reviews parked mail: the row cannot hand it to itself.
    const byRow = await asRow(home, one, 'server.parked', { row: 'one', action: 'redeliver' });
    expect(errorCode(byRow)).toBe('UNAUTHENTICATED');
    expect(await rowInbox(home, one)).toEqual([]);

    // The operator re-delivers @one's parked mail: unread for the row again.
    const redelivered = await asOperator(home, 'server.parked', { row: 'one', action: 'redeliver' });
    expect(redelivered.error).toBeUndefined();
    expect(redelivered.result).toMatchObject({ messages: 1 });
    expect((await rowInbox(home, one)).map((m) => [m.id, m.text])).toEqual([[toOne, 'before-crash']]);
    expect(rowOf(await ls(home), 'one').unread).toBe(1);

    // And discards @two's: it never reaches the row, and its receipt says expired.
    const discarded = await asOperator(home, 'server.parked', { row: 'two', action: 'discard' });
    expect(discarded.error).toBeUndefined();
    expect(discarded.result).toMatchObject({ messages: 1 });
    expect(await rowInbox(home, rowOf(after, 'two').pid!)).toEqual([]);
    const expired = await runSwb(['status', String(toTwo), '--json'], { home });
    expect(JSON.parse(expired.stdout)).toMatchObject({ recipients: [{ to: 'two', state: 'expired' }] });
  });

  test('after swb kill-server: an agent with a minted session resumes it (--resume, the same id), says "restored (resumed)", and keeps its unread mail', async () => {
    const home = createTempHome();
    const { log, first, before, launched, minted } = await startMintedRow(home);
    expect(launched).toMatchObject({ profile: 'fake', restored: null });
    expect(launches(log)[0]!.pid).toBe(launched.pid);
    const id = await send(home, 'fake', 'before-stop');

    await killServer(home, first, before.pid);

    const second = startSwb({ home, args: [], cols: 200 });
    await second.waitForText('FAKE-UP');
    await expectHeader(second, 'fake', /^ \S fake · .* · restored \(resumed\)$/);
    await second.waitForText('@fake restored after the server stopped: resuming its conversation');
    await waitUntil(() => launches(log).length === 2, { what: 'the relaunch to be logged' });
    const relaunch = launches(log)[1]!;
    expect(relaunch.args).toBe(`--resume ${minted}`);
    const after = rowOf(await ls(home), 'fake');
    expect(after).toMatchObject({ running: true, restored: 'resumed', pid: relaunch.pid, unread: 1 });
    expect(relaunch.pid).not.toBe(launched.pid);
    // Not parked: the resumed conversation is the one the mail was sent to.
    expect((await rowInbox(home, relaunch.pid)).map((m) => [m.id, m.text])).toEqual([[id, 'before-stop']]);
  });

  test('after /clear the agent is in a new conversation (its SessionStart(clear) hook names it): a relaunch resumes that one, not the cleared one', async () => {
    const home = createTempHome();
    const { log, first, before, launched } = await startMintedRow(home);
    // What Claude Code's SessionStart hook says after /clear, run as the row (its payload as the argument).
    const cleared = '0199abcd-0123-7456-89ab-cdef01234567';
    const hook = await runSwb(['hook', 'session-start', JSON.stringify({ hook_event_name: 'SessionStart', source: 'clear', session_id: cleared })], { home, env: rowIdentity(launched.pid!) });
    expect(hook).toMatchObject({ status: 0, stderr: '' });
    await waitUntil(() => recordedRows(home).find((r) => r.name === 'fake')?.session_id === cleared, { what: 'the new conversation recorded' });

    await killServer(home, first, before.pid);

    const second = startSwb({ home, args: [], cols: 200 });
    await second.waitForText('FAKE-UP');
    await waitUntil(() => launches(log).length === 2, { what: 'the relaunch to be logged' });
    expect(launches(log)[1]!.args).toBe(`--resume ${cleared}`);
  });

  test('after swb kill-server: an agent that cannot resume its session (it never had a turn) is started again fresh, with a new id, and its unread mail is parked', async () => {
    // Claude Code and Gemini CLI both do this: asked to resume a session they have no record of
    // (the row was started but never used), they say so and exit non-zero at once.
    const home = createTempHome();
    const log = writePickyProfile(home);
    const first = startSwb({ home, args: ['picky'] });
    await first.waitForText('PICKY-UP');
    const before = await ls(home);
    await waitUntil(() => launches(log).length === 1, { what: 'the first launch to be logged' });
    const minted = new RegExp(`^--session-id (${UUID})$`).exec(launches(log)[0]!.args)?.[1];
    expect(minted).toBeDefined();
    await waitUntil(() => recordedRows(home).find((r) => r.name === 'picky')?.session_id === minted, { what: 'the row recorded with its session id' });
    const id = await send(home, 'picky', 'before-stop');

    await killServer(home, first, before.pid);

    const second = startSwb({ home, args: [], cols: 200 });
    await second.waitForText(/@picky could not resume its conversation \(its agent exited with status 3 after [\d.]+ s\): started a new one; 1 unread message from before waits for your review/);
    await waitUntil(() => launches(log).length === 3, { what: 'the resume, then the fresh launch, to be logged' });
    const [, resume, fresh] = launches(log);
    expect(resume!.args).toBe(`--resume ${minted}`);
    const renewed = new RegExp(`^--session-id (${UUID})$`).exec(fresh!.args)?.[1];
    expect(renewed, `fresh launch arguments: ${fresh!.args}`).toBeDefined();
    expect(renewed).not.toBe(minted);
    await second.waitForText('PICKY-UP');
    await expectHeader(second, 'picky', /^ \S picky · .* · restored$/);
    const after = rowOf(await ls(home), 'picky');
    expect(after).toMatchObject({ running: true, restored: 'fresh', pid: fresh!.pid, unread: 0 });
    // The new conversation is what the next restore resumes; the mail from before waits for the operator.
    await waitUntil(() => recordedRows(home).find((r) => r.name === 'picky')?.session_id === renewed, { what: 'the new session id to be recorded' });
    expect(await rowInbox(home, fresh!.pid)).toEqual([]);
    const redelivered = await asOperator(home, 'server.parked', { row: 'picky', action: 'redeliver' });
    expect(redelivered.result).toMatchObject({ messages: 1 });
    expect((await rowInbox(home, fresh!.pid)).map((m) => [m.id, m.text])).toEqual([[id, 'before-stop']]);
  });

  test('swb --fresh after a stop relaunches none of the recorded rows: the default row comes instead, and nothing is restored', async () => {
    const home = createTempHome();
    const starts = join(home.workspace, 'starts.log');
    const first = startSwb({ home, args: [`kept=echo KEPT-UP >> '${starts}'; echo KEPT-UP; exec sleep 600`] });
    await first.waitForText('KEPT-UP');
    const before = await ls(home);
    expect(before.rows.map((r) => r.name)).toEqual(['kept']);
    await waitUntil(() => recordedRows(home).length === 1, { what: 'the row to be recorded' });
    await killServer(home, first, before.pid);

    const second = startSwb({ home, args: ['--fresh'] });
    await second.waitForText(/enter attach/);
    const after = await ls(home);
    expect(after.pid).not.toBe(before.pid);
    // The operator's shell, as when nothing is recorded.
    expect(after.rows.map((r) => r.name)).toEqual(['shell']);
    expect(after.rows.filter((r) => r.restored !== null)).toEqual([]);
    expect(readFileSync(starts, 'utf8')).toBe('KEPT-UP\n');
    expect(second.screenText().join('\n')).not.toMatch(/restored/);
    // The records are gone with it: what is recorded now is the fresh server's own rows.
    await waitUntil(() => recordedRows(home).length === after.rows.length, { what: 'the fresh rows to be recorded' });
    expect(recordedRows(home).map((r) => r.name)).toEqual(after.rows.map((r) => r.name));
  });

  test('R on a row whose profile mints its session restarts it with --resume and the same id', async () => {
    const home = createTempHome();
    const log = join(home.workspace, 'fake-launches.log');
    writeFakeProfile(home, log);
    const t = startSwb({ home, args: ['fake'] });
    await t.waitForText('FAKE-UP');
    await waitUntil(() => launches(log).length === 1, { what: 'the first launch to be logged' });
    const first = launches(log)[0]!;
    const minted = new RegExp(`^--session-id (${UUID})$`).exec(first.args)?.[1];
    expect(minted, `first launch arguments: ${first.args}`).toBeDefined();

    t.write('R');
    await t.waitForText('Restart @fake?');
    t.write('y');
    await t.waitForText(/@fake restarted/);
    await waitUntil(() => launches(log).length === 2, { what: 'the restart to be logged' });
    const second = launches(log)[1]!;
    expect(second.args).toBe(`--resume ${minted}`);
    expect(second.pid).not.toBe(first.pid);
    expect(rowOf(await ls(home), 'fake')).toMatchObject({ running: true, pid: second.pid });
  });

  test('R on a row whose agent cannot resume (it never had a turn) starts it again fresh, with a new id, and says so', async () => {
    const home = createTempHome();
    const log = writePickyProfile(home);
    const t = startSwb({ home, args: ['picky'], cols: 200 });
    await t.waitForText('PICKY-UP');
    await waitUntil(() => launches(log).length === 1, { what: 'the first launch to be logged' });
    const minted = new RegExp(`^--session-id (${UUID})$`).exec(launches(log)[0]!.args)?.[1];
    expect(minted).toBeDefined();

    t.write('R');
    await t.waitForText('Restart @picky?');
    t.write('y');
    await t.waitForText(/@picky could not resume its conversation \(its agent exited with status 3 after [\d.]+ s\): started a new one/);
    await waitUntil(() => launches(log).length === 3, { what: 'the resume, then the fresh launch, to be logged' });
    const [, resume, fresh] = launches(log);
    expect(resume!.args).toBe(`--resume ${minted}`);
    const renewed = new RegExp(`^--session-id (${UUID})$`).exec(fresh!.args)?.[1];
    expect(renewed).toBeDefined();
    expect(renewed).not.toBe(minted);
    await waitUntil(async () => rowOf(await ls(home), 'picky').pid === fresh!.pid, { what: 'the fresh launch to be the row' });
    expect(rowOf(await ls(home), 'picky')).toMatchObject({ running: true, restored: null });
  });

  test('an agent that makes its own session id has it read from the file it holds open, and resumes it after kill-server', async () => {
    const home = createTempHome();
    const log = writeOpenerProfile(home);
    const first = startSwb({ home, args: ['opener'] });
    await first.waitForText('OPENER-UP');
    const before = await ls(home);
    await waitUntil(() => launches(log).length === 1, { what: 'the first launch to be logged' });
    const launched = launches(log)[0]!;
    // Nothing is appended on the first launch: swb does not make this agent's id.
    expect(launched).toEqual({ pid: rowOf(before, 'opener').pid, args: '' });

    // A clean stop looks at the row's open files one last time.
    await killServer(home, first, before.pid);
    expect(recordedRows(home)).toEqual([{ name: 'opener', session_id: `conv${launched.pid}` }]);

    const second = startSwb({ home, args: [], cols: 200 });
    await second.waitForText('OPENER-UP');
    await expectHeader(second, 'opener', / · restored \(resumed\)$/);
    await waitUntil(() => launches(log).length === 2, { what: 'the relaunch to be logged' });
    expect(launches(log)[1]!.args).toBe(`resume conv${launched.pid}`);
    expect(rowOf(await ls(home), 'opener')).toMatchObject({ restored: 'resumed', pid: launches(log)[1]!.pid });
  });

  test('an agent that makes its own session id resumes it after a SIGKILL of the server: the running server found and recorded the id', async () => {
    const home = createTempHome();
    const log = writeOpenerProfile(home);
    const first = startSwb({ home, args: ['opener'] });
    await first.waitForText('OPENER-UP');
    const before = await ls(home);
    const pid = rowOf(before, 'opener').pid!;
    const program = new Map([[pid, startTimeOf(pid)!]]);
    // Looked for every few seconds while the row runs: a crash gives no last look.
    await waitUntil(() => recordedRows(home).some((r) => r.session_id === `conv${pid}`), { what: 'the session id to be recorded', timeoutMs: 15_000 });

    await crash(before.pid, program, first);

    const second = startSwb({ home, args: [], cols: 200 });
    await second.waitForText('OPENER-UP');
    await expectHeader(second, 'opener', / · restored \(resumed\)$/);
    await waitUntil(() => launches(log).length === 2, { what: 'the relaunch to be logged' });
    expect(launches(log)[1]!.args).toBe(`resume conv${pid}`);
  });
});

describe('a resume that cannot happen now keeps the conversation (#31.1)', () => {
  test('a restore whose program is missing (exit 127) keeps the recorded id and shows the row exited with the reason; once the program is back, R resumes the same id', async () => {
    const home = createTempHome();
    const { log, program } = writeMoverProfile(home);
    const first = startSwb({ home, args: ['mover'] });
    await first.waitForText('MOVER-UP --session-id');
    const before = await ls(home);
    await waitUntil(() => launches(log).length === 1, { what: 'the first launch to be logged' });
    const minted = new RegExp(`^--session-id (${UUID})$`).exec(launches(log)[0]!.args)?.[1];
    expect(minted).toBeDefined();
    await waitUntil(() => recordedRows(home).find((r) => r.name === 'mover')?.session_id === minted, { what: 'the row recorded with its session id' });
    await killServer(home, first, before.pid);

    // Being reinstalled: not there at the restore.
    renameSync(program, `${program}.away`);
    const second = startSwb({ home, args: [], cols: 200 });
    await second.waitForText(/@mover could not resume its conversation: command not found: \S*mover\. It keeps its conversation: R resumes it once the program is back/);
    const exited = rowOf(await ls(home), 'mover');
    expect(exited).toMatchObject({ running: false, exitCode: 127, exitReason: `command not found: ${program}` });
    const table = await runSwb(['ls'], { home });
    expect(table.stdout).toMatch(/mover\s+mover\s+exited 127 \(command not found: \S*agent-bin\/mover\)/);
    // Nothing new was minted or launched: the program never ran, and the record keeps the conversation.
    expect(launches(log)).toHaveLength(1);
    expect(recordedRows(home).find((r) => r.name === 'mover')?.session_id).toBe(minted);

    renameSync(`${program}.away`, program);
    second.write('R');
    await second.waitForText('MOVER-UP --resume');
    await waitUntil(() => launches(log).length === 2, { what: 'the resume to be logged' });
    expect(launches(log)[1]!.args).toBe(`--resume ${minted}`);
    expect(rowOf(await ls(home), 'mover')).toMatchObject({ running: true, pid: launches(log)[1]!.pid, exitReason: null });
    expect(recordedRows(home).find((r) => r.name === 'mover')?.session_id).toBe(minted);
  });

  test('a refused resume of a session that had turns (its transcript is not empty) does not start a new conversation: the id is kept and R tries it again', async () => {
    const home = createTempHome();
    const { log, transcripts } = writeMoverProfile(home);
    const first = startSwb({ home, args: ['mover'] });
    await first.waitForText('MOVER-UP --session-id');
    const before = await ls(home);
    await waitUntil(() => launches(log).length === 1, { what: 'the first launch to be logged' });
    const minted = new RegExp(`^--session-id (${UUID})$`).exec(launches(log)[0]!.args)?.[1]!;
    expect(readFileSync(join(transcripts, `${minted}.jsonl`), 'utf8')).not.toBe('');
    await waitUntil(() => recordedRows(home).find((r) => r.name === 'mover')?.session_id === minted, { what: 'the row recorded with its session id' });
    await killServer(home, first, before.pid);

    writeFileSync(join(home.workspace, 'refuse'), '');
    const second = startSwb({ home, args: [], cols: 200 });
    await second.waitForText(/@mover could not resume its conversation \(its agent exited with status 3 after [\d.]+ s\); its conversation had turns, so it is kept: R tries again/);
    expect(launches(log).map((l) => l.args)).toEqual([`--session-id ${minted}`, `--resume ${minted}`]);
    expect(rowOf(await ls(home), 'mover')).toMatchObject({ running: false, exitCode: 3 });
    expect(recordedRows(home).find((r) => r.name === 'mover')?.session_id).toBe(minted);

    second.write('R');
    await waitUntil(() => launches(log).length === 3, { what: 'the second resume to be logged' });
    expect(launches(log)[2]!.args).toBe(`--resume ${minted}`);
    await waitUntil(async () => rowOf(await ls(home), 'mover').exitCode === 3, { what: 'the refused resume to exit' });
    expect(recordedRows(home).find((r) => r.name === 'mover')?.session_id).toBe(minted);
  });
});

describe('found by these tests, fixed', () => {
  // Was: a closed row kept the spec it was launched with (session arguments included), and O
  // reopened it through prepareLaunch, which appended a newly minted --session-id to the old one.
  test('O (reopen) of a closed agent row launches it with one session argument, not the old one and a new one', async () => {
    const home = createTempHome();
    const log = join(home.workspace, 'fake-launches.log');
    writeFakeProfile(home, log);
    const t = startSwb({ home, args: ['fake'] });
    await t.waitForText('FAKE-UP');
    t.write('X');
    await t.waitForText('Close @fake?');
    t.write('y');
    await t.waitForText(/@fake closed/);
    t.write('O');
    await t.waitForText(/Recently closed/);
    t.write('1');
    await waitUntil(() => launches(log).length === 2, { what: 'the reopened row to be logged' });
    expect(launches(log)[1]!.args).toMatch(new RegExp(`^--(session-id|resume) ${UUID}$`));
  });

  // Was: kill-server answered at once while the server still ended its rows and held the hub; a
  // `swb` started then failed with "INTERNAL: connect ENOENT .../server.sock". Now kill-server
  // returns once the server is gone, and a stopping server's hub says so to a successor.
  test('swb right after swb kill-server starts the server again (its rows restored), even while a row takes its grace period to end', async () => {
    const home = createTempHome();
    const first = startSwb({ home, args: ['stubborn=trap "" HUP; echo STUBBORN-UP; sleep 600; echo'] });
    await first.waitForText('STUBBORN-UP');
    const r = await runSwb(['kill-server', '--force'], { home });
    expect(r.status).toBe(0);
    const second = startSwb({ home, args: [] });
    const screen = await second.waitForText(/STUBBORN-UP|^swb: /m, { timeoutMs: 20_000 });
    expect(screen.join('\n')).toContain('STUBBORN-UP');
  }, 40_000);

  test('after a crash, a row program that outlived its server (it ignored the hang-up) is ended before its row is relaunched', async () => {
    const home = createTempHome();
    const first = startSwb({ home, args: [`stubborn=trap '' HUP; echo $$ >> stubborn.pids; echo STUBBORN-UP; while :; do sleep 1; done`] });
    await first.waitForText('STUBBORN-UP');
    const before = await ls(home);
    const oldPid = rowOf(before, 'stubborn').pid!;
    const oldStart = startTimeOf(oldPid);
    // The record holds the program's pid once the row started (written through the store gate).
    await waitUntil(() => recordedRows(home).length === 1, { what: 'the row to be recorded' });
    process.kill(before.pid, 'SIGKILL');
    await waitUntil(() => !isProcessAlive(before.pid), { what: 'the server to die' });
    // The stubborn program ignores SIGHUP: it lives on without its pty.
    expect(startTimeOf(oldPid)).toBe(oldStart);
    const second = startSwb({ home, args: [] });
    await second.waitForText('STUBBORN-UP');
    await waitUntil(() => startTimeOf(oldPid) !== oldStart, { timeoutMs: 5000, what: 'the orphaned program to be ended' });
    const after = await ls(home);
    expect(rowOf(after, 'stubborn')).toMatchObject({ running: true, restored: 'fresh' });
    expect(rowOf(after, 'stubborn').pid).not.toBe(oldPid);
  });
});
