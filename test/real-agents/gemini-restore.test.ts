// Issue #10's restore on REAL Gemini CLI (offline, against the scripted Gemini API stub), as
// claude-restore.test.ts does for Claude Code: swb mints the row's session id and launches Gemini
// with `--session-id UUID`; after one turn the server is stopped (swb kill-server), and the next
// server relaunches the row with `--resume UUID` (never "latest": several agents may share a
// folder). The header says "restored (resumed)" and the resumed conversation carries the turn from
// before. A row that never had a turn cannot be resumed (Gemini exits 42, "Invalid session
// identifier"): swb starts it again as a new conversation, with a new id, and says so.
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadProfiles } from '../../src/agents/load-profiles.js';
import { sessionHadTurns } from '../../src/agents/session-transcript.js';
import type { RowListing } from '../../src/protocol/methods.js';
import { runCleanups } from '../helpers/cleanup.js';
import { argvOf, recordedSession, serverLogs } from '../helpers/server-records.js';
import { processFamily } from '../helpers/process-descendants.js';
import { isProcessAlive } from '../helpers/processes.js';
import { runSwb } from '../helpers/run-swb.js';
import { ls } from '../helpers/swb-ls.js';
import { operate, submitPrompt, type OperatorStep } from '../helpers/swb-operator.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import type { TerminalHarness } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';
import { startGeminiStub, type GeminiStub } from '../support/model-api/gemini-stub.mjs';
import { GEMINI_JS, cliInstalled, startDashboard, writeAgentRowConfig } from './agent-cli.js';

const gemini = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles.get('gemini')!;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const FIRST_PROMPT = 'remember the word avocado';
const FIRST_ANSWER = 'Noted: the word is avocado.';
const SECOND_PROMPT = 'which word';

afterEach(runCleanups);

describe.skipIf(!cliInstalled(GEMINI_JS))('real Gemini CLI restored by the swb server', () => {
  let stub: GeminiStub;

  beforeAll(async () => {
    stub = await startGeminiStub({
      script: {
        turns: [{ match: '^remember the word', parts: [{ text: FIRST_ANSWER }] }],
        default: { parts: [{ text: 'Hello from the stub.' }] },
      },
    });
  });

  afterAll(async () => {
    await stub?.close();
  });

  /** A config with one row, `gemini`, running the real CLI offline against the stub in a trusted project. */
  const writeConfig = (home: TempHome): string => writeAgentRowConfig(home, { agent: 'gemini', stubUrl: stub.url }).config;

  /** Whether the gemini profile's resume recipe (transcript and turn marker) says session `id` had turns. */
  const hadTurns = (home: TempHome, id: string): boolean =>
    sessionHadTurns(gemini.resume!.transcript!, id, { HOME: join(home.home, 'gemini-home') }, gemini.resume!.turnMarker);
  const dashboard = startDashboard;
  const inputShows = (text: string) => ({ waitFor: (s: string) => new RegExp(`^\\s*>\\s${text}\\s*$`, 'mu').test(s), what: `"${text}" in Gemini's input` });
  // Gemini takes an Enter right after fast typing as part of a paste (a newline, not a submit).
  const SUBMIT: OperatorStep[] = [{ pauseMs: gemini.submitDelayMs }, '\r'];

  /** The row's running Gemini CLI (the node process running its bundle), once it is there. */
  async function runningGemini(home: TempHome, t: TerminalHarness, not?: number): Promise<{ row: RowListing; pid: number; argv: string[] }> {
    let last: RowListing | undefined;
    return waitUntil(
      async () => {
        const row = (last = (await ls(home)).rows.find((r) => r.name === 'gemini'));
        if (!row?.running || row.pid === null) return null;
        for (const pid of [row.pid, ...processFamily(row.pid)]) {
          const argv = argvOf(pid);
          if (pid !== not && argv?.[1] === GEMINI_JS) return { row, pid, argv };
        }
        return null;
      },
      { timeoutMs: 60_000, intervalMs: 250, what: 'the Gemini CLI process of the row' },
    ).catch((err: Error) => {
      throw new Error(`${err.message}; row: ${JSON.stringify(last)}\n${t.describe()}\n${serverLogs(home)}`);
    });
  }

  /** The value after `flag` in an argv (exactly one such flag), checked to be a UUID. */
  function argAfter(argv: readonly string[], flag: string): string {
    expect(argv.filter((a) => a === flag), `argv: ${JSON.stringify(argv)}`).toHaveLength(1);
    const value = argv[argv.indexOf(flag) + 1]!;
    expect(value).toMatch(UUID);
    return value;
  }

  async function killServer(home: TempHome, t: TerminalHarness): Promise<void> {
    const serverPid = (await ls(home)).pid;
    const r = await runSwb(['kill-server', '--force'], { home });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    await t.waitForExit({ timeoutMs: 15_000 });
    await waitUntil(() => !isProcessAlive(serverPid), { timeoutMs: 15_000, what: 'the server to end' });
  }

  it('after swb kill-server, Gemini is relaunched with --resume and the same minted id, and its conversation goes on', async () => {
    const home = createTempHome();
    const config = writeConfig(home);
    const first = dashboard(home, config);
    await first.waitForText('gemini · idle', { timeoutMs: 90_000 });
    const launched = await runningGemini(home, first);
    const sessionId = argAfter(launched.argv, '--session-id');
    expect(launched.argv).not.toContain('--resume');

    await operate(first, [FIRST_PROMPT, inputShows(FIRST_PROMPT), ...SUBMIT, { waitFor: (s) => s.includes(FIRST_ANSWER), what: "the stub's answer on Gemini's screen" }]);
    await first.waitForText('gemini · idle', { timeoutMs: 30_000 });
    await waitUntil(() => recordedSession(home, 'gemini') === sessionId, { timeoutMs: 10_000, what: 'the row recorded with its session id' });
    // The profile's recipe reads Gemini's real chat file as swb will: this session had a turn.
    await waitUntil(() => hadTurns(home, sessionId), { timeoutMs: 10_000, what: "Gemini's chat file of the session to show the turn (the profile's transcript and turnMarker)" });
    await killServer(home, first);

    const second = dashboard(home, config);
    // The note is on the strip for 8 s from the server's start; Gemini may take longer than that to
    // read idle on a loaded machine, so it is watched for from the start, not after the idle.
    const noted = second.waitForText('@gemini restored after the server stopped: resuming its conversation', { timeoutMs: 90_000 });
    await second.waitForText(/gemini · idle\b.* · restored \(resumed\)/, { timeoutMs: 90_000 }).catch((err: Error) => {
      throw new Error(`${err.message}\n${serverLogs(home)}`);
    });
    await noted;
    const resumed = await runningGemini(home, second);
    expect(argAfter(resumed.argv, '--resume')).toBe(sessionId);
    expect(resumed.argv).not.toContain('--session-id');
    expect(resumed.argv).not.toContain('latest');
    expect(resumed.row).toMatchObject({ running: true, restored: 'resumed' });

    // The next turn carries the one from before the stop.
    // (Typed until the input shows it: a resumed Gemini on a loaded machine has dropped the keys of
    // its first prompt.)
    await submitPrompt(second, SECOND_PROMPT, {
      inputShows: inputShows(SECOND_PROMPT).waitFor,
      submit: SUBMIT,
      taken: () => stub.requests.some((r) => !r.side && r.lastUser === SECOND_PROMPT),
      what: 'the second prompt to reach the model',
    });
    const asked = stub.requests.find((r) => !r.side && r.lastUser === SECOND_PROMPT)!;
    expect(asked.history).toEqual([`user: ${FIRST_PROMPT}`, `model: ${FIRST_ANSWER}`, `user: ${SECOND_PROMPT}`]);
  }, 240_000);

  it('a row that never had a turn cannot be resumed: the next server starts it again fresh, with a new id, and says so', async () => {
    const home = createTempHome();
    const config = writeConfig(home);
    const first = dashboard(home, config);
    await first.waitForText('gemini · idle', { timeoutMs: 90_000 });
    const minted = argAfter((await runningGemini(home, first)).argv, '--session-id');
    await waitUntil(() => recordedSession(home, 'gemini') === minted, { timeoutMs: 10_000, what: 'the row recorded with its session id' });
    // Gemini writes its chat file at start (metadata and a session-context message of its own): the
    // recipe still sees no turn in it.
    expect(hadTurns(home, minted)).toBe(false);
    await killServer(home, first);

    const second = dashboard(home, config);
    await second.waitForText(/@gemini could not resume its conversation \(its agent exited with status 42 after [\d.]+ s\): started a new one/, { timeoutMs: 90_000 }).catch((err: Error) => {
      throw new Error(`${err.message}\n${serverLogs(home)}`);
    });
    await second.waitForText(/gemini · idle\b.* · restored(?! \()/, { timeoutMs: 90_000 });
    const fresh = await runningGemini(home, second);
    const renewed = argAfter(fresh.argv, '--session-id');
    expect(renewed).not.toBe(minted);
    expect(fresh.argv).not.toContain('--resume');
    expect(fresh.row).toMatchObject({ running: true, restored: 'fresh' });
    await waitUntil(() => recordedSession(home, 'gemini') === renewed, { timeoutMs: 10_000, what: 'the new session id to be recorded' });
  }, 240_000);
});
