// RowRecords looks for an agent's own session id (Codex's rollout file) among the files its row's
// processes hold open — only while some running row still waits for one, so an idle server with
// every id known is never woken for it. Real processes holding real files, a real hub and store;
// only the records' clock is fake, to step the 5 s look without waiting for it.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { loadProfiles } from '../../../src/agents/load-profiles.js';
import type { Row, RowSpec } from '../../../src/rows/row.js';
import { RowRecords } from '../../../src/server/row-records.js';
import { deferCleanup, runCleanups } from '../../helpers/cleanup.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { startTestHub } from '../../helpers/hub-harness.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(async () => {
  await runCleanups();
});

const ID = '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

/**
 * A row's program in a session of its own, as a pty row's is. Like Codex, it opens its rollout
 * file only after it started: when `open()` is called.
 */
async function agent(file: string) {
  const script = `echo READY; read go; exec 3>> '${file}'; echo OPEN; exec sleep 60`;
  const child = spawn('/bin/sh', ['-c', script], { detached: true, stdio: ['pipe', 'pipe', 'ignore'] });
  deferCleanup('row program', () => child.kill('SIGKILL'));
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  await waitUntil(() => out.includes('READY'), { what: 'the program to start' });
  const row = { name: 'cx', pid: child.pid!, state: 'running' } as unknown as Row;
  return {
    row,
    open: async () => {
      child.stdin!.write('go\n');
      await waitUntil(() => out.includes('OPEN'), { what: 'the program to open its file' });
    },
  };
}

async function setUp() {
  const { hub, home } = await startTestHub();
  const sessions = join(home.home, 'codex', 'sessions', '2026', '12', '02');
  mkdirSync(sessions, { recursive: true });
  const clock = new FakeClock();
  const records = new RowRecords(hub.core.mail, loadProfiles({ configDir: join(home.home, 'no-config') }), () => undefined, clock);
  const rows: Row[] = [];
  records.watch(() => rows);
  const hooks = records.hooks();
  /** What the fleet does for a new row: prepare its launch, start it, record it. */
  const launch = (row: Row, spec: Omit<RowSpec, 'name'>) => {
    hooks.prepareLaunch!({ name: row.name, ...spec } as RowSpec);
    rows.push(row);
    hooks.recorded!(row, undefined);
  };
  const sessionOf = async (name: string) => {
    await hub.gate.run(() => undefined); // the record's write went through the gate before this
    return hub.core.mail.rowRecords.all().find((r) => r.name === name)?.sessionId ?? null;
  };
  return { clock, launch, sessionOf, records, hooks, rolloutFile: join(sessions, `rollout-2026-12-02T10-00-00-${ID}.jsonl`) };
}

describe.runIf(process.platform === 'linux')('RowRecords: an agent that moved to another conversation', () => {
  test('a minted row follows its SessionStart(clear) and (resume) to the new id: recorded, announced, and resumed by a relaunch; anything else moves nothing', async () => {
    const { launch, sessionOf, records, hooks } = await setUp();
    const claude = await agent('/dev/null');
    const row = { ...claude.row, name: 'cl' } as Row;
    launch(row, { command: { file: 'claude' }, profile: 'claude' });
    const minted = await sessionOf('cl');
    expect(minted).toMatch(/^[0-9a-f-]{36}$/);
    const announced: string[] = [];
    records.onSessionDiscovered((name) => announced.push(name));
    // A launch's own start, the same id again, a start that names no id: nothing moves.
    records.agentSessionStarted('cl', { source: 'startup', sessionId: 'aaaa-bbbb' });
    records.agentSessionStarted('cl', { source: 'compact', sessionId: 'aaaa-bbbb' });
    records.agentSessionStarted('cl', { source: 'clear', sessionId: minted! });
    records.agentSessionStarted('cl', { source: 'clear' });
    expect(await sessionOf('cl')).toBe(minted);
    expect(announced).toEqual([]);
    records.agentSessionStarted('cl', { source: 'clear', sessionId: 'new-1' });
    expect(await sessionOf('cl')).toBe('new-1');
    expect(records.conversationOf('cl')?.sessionId).toBe('new-1');
    records.agentSessionStarted('cl', { source: 'resume', sessionId: 'older-2' });
    expect(await sessionOf('cl')).toBe('older-2');
    expect(announced).toEqual(['cl', 'cl']);
    const relaunch = hooks.prepareRestart!(row);
    expect(relaunch?.command).toEqual({ file: 'claude', args: ['--resume', 'older-2'] });
  });

  test('a row whose ids swb does not mint (Codex finds its own; a shell has none) is not moved by a hook', async () => {
    const { launch, sessionOf, records } = await setUp();
    const shell = await agent('/dev/null');
    launch({ ...shell.row, name: 'sh' } as Row, { command: 'sh' });
    records.agentSessionStarted('sh', { source: 'clear', sessionId: 'new-1' });
    expect(await sessionOf('sh')).toBeNull();
    const codex = await agent('/dev/null');
    launch({ ...codex.row, name: 'cx' } as Row, { command: 'codex', profile: 'codex' });
    records.agentSessionStarted('cx', { source: 'clear', sessionId: 'new-1' });
    expect(await sessionOf('cx')).toBeNull();
  });
});

describe.runIf(process.platform === 'linux')('RowRecords: finding an agent-made session id', () => {
  test('looks every 5 s only while a running row waits for its id, records the id once found, then stops looking', async () => {
    const { clock, launch, sessionOf, rolloutFile } = await setUp();
    expect(clock.pendingTimers).toBe(0); // no rows: nothing to look for

    const codex = await agent(rolloutFile);
    launch(codex.row, { command: 'codex', profile: 'codex' });
    expect(clock.pendingTimers).toBe(1);
    clock.advance(5_000);
    expect(await sessionOf('cx')).toBeNull(); // the file is not open yet
    expect(clock.pendingTimers).toBe(1);

    await codex.open();
    clock.advance(5_000);
    expect(await sessionOf('cx')).toBe(ID);
    expect(clock.pendingTimers).toBe(0); // nothing left to look for: an idle server sleeps
  });

  test('rows whose id swb mints (Claude Code) or that have no recipe never start the look', async () => {
    const { clock, launch, rolloutFile } = await setUp();
    const claude = await agent(rolloutFile);
    launch({ ...claude.row, name: 'cl' } as Row, { command: 'claude', profile: 'claude' });
    const shell = await agent(rolloutFile);
    launch({ ...shell.row, name: 'sh' } as Row, { command: 'sh' });
    expect(clock.pendingTimers).toBe(0);
  });
});
