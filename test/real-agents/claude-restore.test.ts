// Issue #10's restore on REAL Claude Code: Claude runs in a row of the workspace server (offline,
// against the scripted Anthropic API stub); swb mints its session id and launches it with
// `--session-id UUID`. After one turn the server is SIGKILLed (a crash: the rows lose their pty, and
// whatever survives is killed, as a reboot would). A new `swb` in a new terminal starts a new server,
// which relaunches the recorded row with `--resume UUID` (never --session-id again, never
// --continue); the header says "restored (resumed)", the resumed conversation carries the turn from
// before, and mail still reaches it: the wake line is typed once the prompt is free, the scripted
// model runs `swb inbox` and `swb reply`, and the sender gets the reply. A row that never had a turn
// has no conversation to resume (Claude exits 1, "No conversation found"): swb starts it again fresh.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadProfiles } from '../../src/agents/load-profiles.js';
import { sessionHadTurns } from '../../src/agents/session-transcript.js';
import type { RowListing } from '../../src/protocol/methods.js';
import { writeClaudeConfig } from '../helpers/claude-config.js';
import { runCleanups } from '../helpers/cleanup.js';
import { argvOf, recordedSession, serverLogs } from '../helpers/server-records.js';
import { processFamily, startTimeOf } from '../helpers/process-descendants.js';
import { isProcessAlive } from '../helpers/processes.js';
import { ls } from '../helpers/swb-ls.js';
import { runSwb, spawnSwb } from '../helpers/run-swb.js';
import { operate, typedIntoRows } from '../helpers/swb-operator.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import { startSwb, type TerminalHarness } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';
import { startAnthropicStub, type AnthropicStub } from '../support/model-api/anthropic-stub.mjs';
import { cliInstalled, CLAUDE_BIN, CLAUDE_API_KEY as API_KEY } from './agent-cli.js';

const claude = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles.get('claude')!;
const WAKE_LINE = claude.wakeLine;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const FIRST_PROMPT = 'remember the word avocado';
const FIRST_ANSWER = 'Noted: the word is avocado.';

afterEach(runCleanups);

async function claudeRow(home: TempHome): Promise<RowListing> {
  const listing = await ls(home);
  const row = listing.rows.find((r) => r.name === 'claude');
  if (!row) throw new Error(`no row claude in ${JSON.stringify(listing.rows.map((r) => r.name))}`);
  return row;
}

/** The Claude Code process of a row: the row's program or one of its descendants running the CLI. */
function claudeProcess(rowPid: number): { pid: number; argv: string[] } | null {
  for (const pid of [rowPid, ...processFamily(rowPid)]) {
    const argv = argvOf(pid);
    if (argv && argv[0] !== undefined && (argv[0] === CLAUDE_BIN || basename(argv[0]) === basename(CLAUDE_BIN))) return { pid, argv };
  }
  return null;
}

/** Every process of a row (its program and descendants), pid → kernel start time. */
function rowProcesses(rowPid: number): Map<number, string> {
  const out = new Map<number, string>();
  for (const pid of [rowPid, ...processFamily(rowPid)]) {
    const start = startTimeOf(pid);
    if (start !== undefined) out.set(pid, start);
  }
  return out;
}

/** Whether the claude profile's resume recipe (transcript and turn marker) says session `id` had turns. */
function hadTurns(claudeHome: string, id: string): boolean {
  const recipe = claude.resume!;
  return sessionHadTurns(recipe.transcript!, id, { HOME: claudeHome }, recipe.turnMarker);
}

/** Claude Code's transcript of session `id` under its HOME (~/.claude/projects/<project>/<id>.jsonl), or null. */
function transcript(claudeHome: string, id: string): string | null {
  const projects = join(claudeHome, '.claude', 'projects');
  let dirs: string[];
  try {
    dirs = readdirSync(projects);
  } catch {
    return null;
  }
  for (const d of dirs) {
    const file = join(projects, d, `${id}.jsonl`);
    if (existsSync(file)) return readFileSync(file, 'utf8');
  }
  return null;
}

describe.skipIf(!cliInstalled(CLAUDE_BIN))('real Claude Code restored by the swb server', () => {
  let stub: AnthropicStub;

  beforeAll(async () => {
    stub = await startAnthropicStub({
      script: {
        turns: [
          { match: '^remember the word', content: [{ type: 'text', text: FIRST_ANSWER }] },
          {
            // The wake: read the inbox, reply to the message found there, report.
            match: 'You have new mail',
            content: [
              { type: 'text', text: 'Checking my Switchboard mail.' },
              { type: 'tool_use', name: 'Bash', input: { command: 'swb inbox', description: 'Read Switchboard mail' } },
            ],
            steps: [
              {
                capture: '#(\\d+)\\s+from tester',
                content: [{ type: 'tool_use', name: 'Bash', input: { command: 'swb reply {{1}} "pong from claude"', description: 'Reply to the tester' } }],
              },
              { content: [{ type: 'text', text: 'Replied to the tester.' }] },
            ],
          },
        ],
        default: { content: [{ type: 'text', text: 'Hello from the stub.' }] },
      },
    });
  });

  afterAll(async () => {
    await stub?.close();
  });

  /** A config with one row, `claude`, running the real CLI offline (swb's own commands pre-approved). */
  function writeConfig(home: TempHome): { config: string; claudeHome: string } {
    const { config, claudeHome } = writeClaudeConfig(home, { bin: CLAUDE_BIN, stubUrl: stub.url, apiKey: API_KEY, args: `--permission-mode default --allowedTools 'Bash(swb:*)'` });
    return { config, claudeHome };
  }

  const dashboard = (home: TempHome, config: string): TerminalHarness => startSwb({ home, args: ['--config', config], cols: 120, rows: 40 });

  const inputShows = (text: string) => ({ waitFor: (s: string) => new RegExp(`^❯\\s${text}\\s*$`, 'mu').test(s), what: `"${text}" in Claude's input` });

  /** The running Claude Code of the row, once it is there. */
  async function runningClaude(home: TempHome, t: TerminalHarness): Promise<{ row: RowListing; pid: number; argv: string[] }> {
    let last: RowListing | undefined;
    return waitUntil(
      async () => {
        const row = (last = await claudeRow(home));
        if (!row.running || row.pid === null) return null;
        const p = claudeProcess(row.pid);
        return p && { row, ...p };
      },
      { timeoutMs: 30_000, intervalMs: 250, what: 'the Claude Code process of the row' },
    ).catch((err: Error) => {
      throw new Error(`${err.message}; row: ${JSON.stringify(last)}\n${t.describe()}\n${serverLogs(home)}`);
    });
  }

  it('a SIGKILLed server comes back with Claude resumed (--resume, the same minted id), its conversation kept, and mail still reaching it', async () => {
    const home = createTempHome();
    const { config, claudeHome } = writeConfig(home);

    // First server: Claude launched with the session id swb minted for it.
    const first = dashboard(home, config);
    await first.waitForText('claude · idle', { timeoutMs: 60_000 });
    const launched = await runningClaude(home, first);
    expect(launched.row).toMatchObject({ profile: 'claude', restored: null, running: true });
    const at = launched.argv.indexOf('--session-id');
    expect(at, `first launch argv: ${JSON.stringify(launched.argv)}`).toBeGreaterThan(0);
    const sessionId = launched.argv[at + 1]!;
    expect(sessionId).toMatch(UUID);
    expect(launched.argv.filter((a) => a === '--session-id')).toHaveLength(1);
    expect(launched.argv).not.toContain('--resume');
    expect(launched.argv).not.toContain('--continue');

    // One turn, so the conversation exists on disk.
    await operate(first, [
      FIRST_PROMPT,
      inputShows(FIRST_PROMPT),
      '\r',
      { waitFor: (s) => s.includes(FIRST_ANSWER), what: "the stub's answer on Claude's screen" },
    ]);
    await first.waitForText('claude · idle', { timeoutMs: 30_000 });
    await waitUntil(() => transcript(claudeHome, sessionId)?.includes(FIRST_ANSWER), { timeoutMs: 20_000, what: `Claude's transcript of session ${sessionId} to hold the answer` });
    // The profile's recipe reads the real file as swb will: this session had a turn.
    expect(hadTurns(claudeHome, sessionId)).toBe(true);
    await waitUntil(() => recordedSession(home, 'claude') === sessionId, { timeoutMs: 10_000, what: 'the row recorded with its session id' });

    // The server crashes: SIGKILL. Its rows lose their pty (Claude gets SIGHUP); whatever survives
    // is killed, as a reboot would.
    const before = await ls(home);
    const old = rowProcesses(launched.row.pid!);
    expect(old.has(launched.pid)).toBe(true);
    process.kill(before.pid, 'SIGKILL');
    await waitUntil(() => !isProcessAlive(before.pid), { what: 'the server to die' });
    const oldGone = () => [...old].every(([pid, start]) => startTimeOf(pid) !== start);
    await waitUntil(oldGone, { timeoutMs: 10_000, what: 'the old rows to end on their hang-up' }).catch(() => {
      for (const [pid, start] of old) {
        if (startTimeOf(pid) !== start) continue;
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
    });
    await waitUntil(oldGone, { what: 'the old rows to be gone' });
    await first.waitForExit({ timeoutMs: 15_000 });

    // A new swb in a new terminal, same home, workspace and config: a new server relaunches the
    // recorded row, resuming its conversation.
    const requestsBefore = stub.requests.length;
    const second = dashboard(home, config);
    // The note is on the strip for 8 s from the server's start; Claude may take longer than that to
    // read idle on a loaded machine, so it is watched for from the start, not after the idle.
    const noted = second.waitForText('@claude restored after the server crashed: resuming its conversation', { timeoutMs: 60_000 });
    await second
      .waitForText(/claude · idle\b.* · restored \(resumed\)/, { timeoutMs: 60_000 })
      .catch((err: Error) => {
        throw new Error(`${err.message}\n${serverLogs(home)}`);
      });
    await noted;
    // Claude shows the conversation it resumed.
    await second.waitForText(FIRST_ANSWER);
    const resumed = await runningClaude(home, second);
    const after = await ls(home);
    expect(after.pid).not.toBe(before.pid);
    expect(after.rows.map((r) => r.name)).toEqual(['claude']);
    expect(resumed.row).toMatchObject({ profile: 'claude', running: true, restored: 'resumed' });
    expect(old.has(resumed.pid)).toBe(false);
    const r = resumed.argv.indexOf('--resume');
    expect(r, `relaunch argv: ${JSON.stringify(resumed.argv)}`).toBeGreaterThan(0);
    expect(resumed.argv[r + 1]).toBe(sessionId);
    expect(resumed.argv.filter((a) => a === '--resume')).toHaveLength(1);
    expect(resumed.argv).not.toContain('--session-id');
    expect(resumed.argv).not.toContain('--continue');
    expect(resumed.argv).not.toContain('-c');
    // The row's own command line is kept as it was.
    expect(resumed.argv.slice(0, at)).toEqual(launched.argv.slice(0, at));
    expect(recordedSession(home, 'claude')).toBe(sessionId);

    // Its mail still reaches it: the wake line is typed once the prompt is free, the scripted model
    // runs `swb inbox` and `swb reply`, and the reply reaches the sender waiting in `swb ask`.
    const ask = spawnSwb(['ask', '--as', 'tester', '@claude', 'ping from tester', '--timeout', '170'], { home });
    const asked = await Promise.race([
      ask.exited,
      new Promise<never>((_, reject) =>
        setTimeout(
          () => reject(new Error(`no reply within 90 s; stub saw: ${JSON.stringify(stub.requests.slice(requestsBefore).map((q) => q.lastUser || q.toolResult?.slice(0, 80)))}\n${second.describe()}\n${serverLogs(home)}`)),
          90_000,
        ),
      ),
    ]);
    expect(asked.stderr).toBe('');
    expect(asked.status).toBe(0);
    expect(asked.stdout).toMatch(/from claude\s+response re #1/);
    expect(asked.stdout).toContain('pong from claude');

    const wakes = stub.requests.slice(requestsBefore).filter((q) => q.lastUser === WAKE_LINE && q.toolResult === undefined);
    expect(wakes).toHaveLength(1);
    // The resumed conversation's first turn carried the turn from before the crash (Claude Code also
    // sends a system-role environment note among the messages).
    expect(wakes[0]!.history.filter((h) => /^(user|assistant): /.test(h))).toEqual([`user: ${FIRST_PROMPT}`, `assistant: ${FIRST_ANSWER}`, `user: ${WAKE_LINE}`]);
    const results = () => stub.requests.slice(requestsBefore).map((q) => q.toolResult ?? '').filter(Boolean);
    await waitUntil(() => results().length >= 2, { timeoutMs: 20_000, what: 'the result of swb reply to reach the model' });
    expect(results()).toEqual([
      expect.stringMatching(/^#1 {2}from tester {2}task .*\n {4}ping from tester$/),
      expect.stringContaining('accepted #2 → @tester (re #1)'),
    ]);
    expect(typedIntoRows(home)).toEqual([
      ['claude', WAKE_LINE],
      ['claude', '\r'],
    ]);
    await second.waitForText('claude · idle', { timeoutMs: 20_000 });
  }, 240_000);

  it('a Claude row that never had a turn cannot be resumed ("No conversation found"): the next server starts it fresh, with a new id, and says so', async () => {
    const home = createTempHome();
    const { config, claudeHome } = writeConfig(home);
    const first = dashboard(home, config);
    await first.waitForText('claude · idle', { timeoutMs: 60_000 });
    const launched = await runningClaude(home, first);
    const minted = launched.argv[launched.argv.indexOf('--session-id') + 1]!;
    expect(minted).toMatch(UUID);
    // Whatever Claude wrote for it so far, the recipe sees no turn: a refused resume may start afresh.
    expect(hadTurns(claudeHome, minted)).toBe(false);
    await waitUntil(() => recordedSession(home, 'claude') === minted, { timeoutMs: 10_000, what: 'the row recorded with its session id' });
    const stopped = await runSwb(['kill-server', '--force'], { home });
    expect(stopped.status).toBe(0);
    await first.waitForExit({ timeoutMs: 15_000 });

    const second = dashboard(home, config);
    await second
      .waitForText(/@claude could not resume its conversation \(its agent exited with status 1 after [\d.]+ s\): started a new one/, { timeoutMs: 60_000 })
      .catch((err: Error) => {
        throw new Error(`${err.message}\n${serverLogs(home)}`);
      });
    await second.waitForText(/claude · idle\b.* · restored(?! \()/, { timeoutMs: 60_000 });
    const fresh = await runningClaude(home, second);
    const at = fresh.argv.indexOf('--session-id');
    expect(at, `relaunch argv: ${JSON.stringify(fresh.argv)}`).toBeGreaterThan(0);
    expect(fresh.argv[at + 1]).toMatch(UUID);
    expect(fresh.argv[at + 1]).not.toBe(minted);
    expect(fresh.argv).not.toContain('--resume');
    expect(fresh.row).toMatchObject({ running: true, restored: 'fresh' });
  }, 240_000);
});
