// An Esc read from the agent's transcript (issue #37), end to end through the real server and a real
// pty: a `claude`-profile row runs the fake agent, which keeps its conversation where Claude Code does
// (under the session id swb minted) and, for an Esc once its answer has begun, writes Claude's
// `[Request interrupted by user]` line ~100 ms after the key, with no hook. The server's one usage
// follower reads that conversation as it grows during the turn and the row reads idle by `Esc
// (transcript)` well before the screen's quiet time (3 s here, so "before it" cannot be a slow screen).
// An Esc that gives the prompt back (nothing written) is not read from the transcript.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { RowExplainResult } from '../../src/protocol/methods.js';
import { runCleanups } from '../helpers/cleanup.js';
import { writeProfileQuietTime } from '../helpers/profile-quiet-time.js';
import { runSwb } from '../helpers/run-swb.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import { startSwb, type TerminalHarness } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';

afterEach(runCleanups);

const FAKE_AGENT = new URL('../fixtures/agents/fake-agent.mjs', import.meta.url).pathname;
const QUIET_MS = 3000;
const ATTACH = '\r';
const DETACH = '\x1c'; // Ctrl-\

async function typeIntoRow(t: TerminalHarness, keys: string): Promise<number> {
  t.write(ATTACH);
  await t.waitForNoText(/enter attach/);
  const at = Date.now();
  t.write(keys);
  t.write(DETACH);
  await t.waitForText(/enter attach/);
  return at;
}

async function explain(home: TempHome): Promise<RowExplainResult> {
  const r = await runSwb(['explain', 'agent', '--json'], { home });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as RowExplainResult;
}

/** One claude-profile row running the fake agent with a conversation file, its quiet time QUIET_MS. */
function start(home: TempHome): { t: TerminalHarness; agentHome: string } {
  writeProfileQuietTime(home, 'claude', QUIET_MS);
  const agentHome = join(home.home, 'agent-home');
  mkdirSync(agentHome);
  const script = {
    conversation: true,
    rules: [{ match: '^gives back', busyMs: 60_000, reply: 'never', restoreOnInterrupt: true }],
    default: { busyMs: 60_000, reply: 'never' },
  };
  const config = join(home.workspace, 'swb.json');
  writeFileSync(
    config,
    JSON.stringify({
      rows: [{ name: 'agent', command: `${process.execPath} ${FAKE_AGENT}`, profile: 'claude', wake: 'off', nativeTools: false, env: { HOME: agentHome, FAKE_AGENT_SCRIPT_JSON: JSON.stringify(script) } }],
    }),
  );
  return { t: startSwb({ home, args: ['--config', config] }), agentHome };
}

describe('an Esc read from the transcript', () => {
  test('an Esc once the answer has begun reads idle by the transcript line, well before the quiet time; explain names it', async () => {
    const home = createTempHome();
    const { t } = start(home);
    await t.waitForText('agent · claude · idle');
    // A first turn writes the conversation file (the server finds it), Esc'd too: then another.
    for (const prompt of ['first question', 'second question']) {
      await escMidTurn(t, home, prompt);
      const esc = await typeIntoRow(t, '\x1b');
      await t.waitForText('agent · claude · idle', { timeoutMs: 10_000 });
      // The line comes ~100 ms after the key and is read ~30 ms after it is written; the screen alone
      // would wait its 3 s quiet time after the redrawn prompt.
      expect(Date.now() - esc).toBeLessThan(QUIET_MS / 2);
      const e = await explain(home);
      expect(e.state).toBe('idle');
      expect(e.signals?.hook).toMatchObject({ event: 'Esc (transcript)', kind: 'turn-end' });
      // Read before the screen's own idle: the screen still holds its state through the quiet time.
      expect(e.signals?.screen.state).not.toBe('idle');
      await waitUntil(async () => (await explain(home)).signals?.screen.state === 'idle', { timeoutMs: 10_000, intervalMs: 200, what: 'the screen idle after its quiet time' });
    }
  }, 60_000);

  test('an Esc that gives the prompt back writes nothing: the transcript says nothing, the draft decides', async () => {
    const home = createTempHome();
    const { t } = start(home);
    await t.waitForText('agent · claude · idle');
    await escMidTurn(t, home, 'gives back');
    await typeIntoRow(t, '\x1b');
    await t.waitForText('agent · claude · idle', { timeoutMs: 10_000 });
    const e = await explain(home);
    expect(e.signals?.hook?.event).not.toBe('Esc (transcript)');
  }, 60_000);
});

/** Submits `prompt` and waits until the row reads busy by its screen (the Esc then comes mid-turn). */
async function escMidTurn(t: TerminalHarness, home: TempHome, prompt: string): Promise<void> {
  await typeIntoRow(t, `${prompt}\r`);
  await t.waitForText('agent · claude · busy', { timeoutMs: 10_000 });
  await waitUntil(async () => (await explain(home)).detected === 'busy', { timeoutMs: 10_000, intervalMs: 100, what: 'the screen reading busy' });
}
