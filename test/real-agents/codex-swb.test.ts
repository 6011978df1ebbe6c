// REAL Codex CLI driven through the real `swb` dashboard (offline, against the scripted Responses API
// stub), as claude-swb.test.ts does for Claude Code: busy, idle and an approval question on the row's
// header; mail from an external sender held while the question is open and while Codex works; the wake
// line typed once the prompt is free; then the scripted model runs `swb inbox` and `swb reply` through
// Codex's own exec tool, and the reply reaches the waiting sender.
// What it found (docs/AGENTS-REAL.md, "Codex inside swb"): Codex runs commands in a login shell, whose
// profile resets PATH and loses `swb` (the codex profile starts it with `-c allow_login_shell=false`);
// its default sandbox refuses the hub's socket (EPERM; swb says HUB_DENIED, and the row's command may
// opt in with `-c sandbox_workspace_write.network_access=true`); and bare `codex` rows share one
// app-server daemon that runs every command with one row's environment (identities mixed), which any -c
// option avoids (Codex then runs its server embedded): two rows started the profile's way keep theirs.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadProfiles } from '../../src/agents/load-profiles.js';
import { runCleanups } from '../helpers/cleanup.js';
import { askWhileQuestionOpen, explainRow, firstReceipt, operate, submitPrompt } from '../helpers/swb-operator.js';
import { runSwb } from '../helpers/run-swb.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import type { TerminalHarness } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';
import { startResponsesStub, type ResponsesStub } from '../support/model-api/openai-responses-stub.mjs';
import { CODEX_JS, cliInstalled, launchAgentRow } from './agent-cli.js';

const codex = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles.get('codex')!;
const WAKE_LINE = codex.wakeLine;
const SLOW_MS = 6000;

afterEach(runCleanups);

describe.skipIf(!cliInstalled(CODEX_JS))('real Codex CLI in swb', () => {
  let stub: ResponsesStub;

  beforeAll(async () => {
    stub = await startResponsesStub({
      script: {
        turns: [
          { match: '^slow', delayMs: SLOW_MS, output: [{ type: 'text', text: 'Slow answer done.' }] },
          {
            match: '^tool please',
            output: [
              {
                type: 'function_call',
                name: 'exec_command',
                arguments: { cmd: 'touch created-by-stub.txt', justification: 'Create a marker file', sandbox_permissions: 'require_escalated' },
              },
            ],
            afterTool: 'Created the file.',
          },
          {
            match: '^sandbox check',
            output: [{ type: 'function_call', name: 'exec_command', arguments: { cmd: 'swb peers' } }],
            afterTool: 'Checked.',
          },
          {
            match: '^which row',
            output: [{ type: 'function_call', name: 'exec_command', arguments: { cmd: 'echo "row=$SWB_SESSION"' } }],
            afterTool: 'Checked.',
          },
          {
            // The wake: read the inbox, reply to the message found there, report. No escalation is
            // asked for: swb must work from inside Codex's default sandbox.
            match: 'You have new mail',
            output: [
              { type: 'text', text: 'Checking my Switchboard mail.' },
              { type: 'function_call', name: 'exec_command', arguments: { cmd: 'swb inbox' } },
            ],
            steps: [
              {
                capture: '#(\\d+)\\s+from tester',
                output: [{ type: 'function_call', name: 'exec_command', arguments: { cmd: 'swb reply {{1}} "pong from codex"' } }],
              },
              { output: [{ type: 'text', text: 'Replied to the tester.' }] },
            ],
          },
        ],
        default: { output: [{ type: 'text', text: 'Hello from the stub.' }] },
      },
    });
  });

  afterAll(async () => {
    await stub?.close();
  });

  /**
   * swb with rows (default: one, `codex`) running the real CLI offline against the stub, sharing one
   * HOME, each started the way the codex profile starts it (`-c allow_login_shell=false`, so the row's
   * PATH with `swb` reaches Codex's commands) plus, unless `sandboxed`, the documented opt-in that lets
   * Codex's sandbox reach the hub's socket.
   */
  function startDashboard(home: TempHome, names: string[] = ['codex'], { sandboxed = false } = {}): TerminalHarness {
    return launchAgentRow(home, { agent: 'codex', stubUrl: stub.url, names, args: sandboxed ? [] : ['-c', 'sandbox_workspace_write.network_access=true'] }).t;
  }

  const inputShows = (text: string) => ({ waitFor: (s: string) => new RegExp(`^›\\s${text}\\s*$`, 'mu').test(s), what: `"${text}" in Codex's input` });

  const wakeRequests = () => stub.requests.filter((r) => r.lastUser === WAKE_LINE && !r.toolResult);

  it('busy, idle and an approval question on the header; the wake waits for a free prompt; Codex reads and replies with swb from its sandbox', async () => {
    const home = createTempHome();
    const t = startDashboard(home);
    await t.waitForText('codex · idle', { timeoutMs: 90_000 });

    // An approval question reads as waiting.
    await operate(t, ['tool please', inputShows('tool please'), '\r']);
    await t.waitForText('codex · waiting', { timeoutMs: 30_000 });
    expect(await explainRow(home, 'codex')).toMatchObject({ state: 'waiting' });

    // An external sender asks; the question stays open, so nothing is typed.
    // Held by the open question itself, and still held well past the quiet time.
    const ask = await askWhileQuestionOpen(t, home, 'codex', { quietMs: codex.quietMs, what: 'the wake to be held over the open approval question' });
    expect(wakeRequests()).toEqual([]);

    // The operator declines and starts a slow turn: busy, and still nothing typed.
    await operate(t, [
      '\x1b',
      { waitFor: (s) => !s.includes('Would you like to run the following command?') && s.includes('Conversation interrupted'), what: 'the question to close' },
      'slow question',
      inputShows('slow question'),
      '\r',
    ]);
    await t.waitForText('codex · busy', { timeoutMs: 20_000 });
    const slow = await waitUntil(() => stub.requests.find((r) => r.lastUser === 'slow question'), { timeoutMs: 10_000, what: 'the slow question to reach the model' });
    expect(wakeRequests()).toEqual([]);

    // Once the turn is over and the prompt is free, the wake line is typed once; the model runs
    // `swb inbox`, then `swb reply`, and the reply reaches the sender waiting in `swb ask`.
    const asked = await Promise.race([
      ask.exited,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`no reply within 90 s; stub saw: ${JSON.stringify(stub.requests.map((r) => r.lastUser || r.toolResult?.slice(0, 300)))}\n${t.describe()}`)), 90_000),
      ),
    ]);
    expect(asked.stderr).toBe('');
    expect(asked.status).toBe(0);
    expect(asked.stdout).toContain('pong from codex');

    const wakes = wakeRequests();
    expect(wakes).toHaveLength(1);
    expect(wakes[0]!.at - slow.at).toBeGreaterThanOrEqual(SLOW_MS);
    // What Codex's exec tool printed, as the model received it: `swb inbox`, then `swb reply`.
    const results = () => stub.requests.map((r) => r.toolResult ?? '').filter((r) => r.includes('swb') || r.includes('#1') || r.includes('accepted'));
    await waitUntil(() => results().length >= 2, { timeoutMs: 20_000, what: 'the result of swb reply to reach the model' });
    expect(results()[0]).toMatch(/#1 {2}from tester {2}task .*\n {4}ping from tester/);
    expect(results()[1]).toContain('accepted #2 → @tester (re #1)');

    expect(await firstReceipt(home, 1)).toMatchObject({ to: 'codex', state: 'replied', wokenAt: expect.any(Number), repliedAt: expect.any(Number) });
    await t.waitForText('codex · idle', { timeoutMs: 20_000 });
  }, 240_000);

  it('two Codex rows sharing one CODEX_HOME, started as the profile starts them, each run commands with their own SWB_SESSION', async () => {
    // Bare `codex` rows would share the app-server daemon of the first one started, and every row's
    // commands would run with that codex's environment (seen: alpha's command got SWB_SESSION=beta).
    // Any -c makes Codex run its server embedded, per process, which the profile's flag does.
    const home = createTempHome();
    const t = startDashboard(home, ['alpha', 'beta']);
    await t.waitForText(/alpha · codex · idle/, { timeoutMs: 90_000 });
    await t.waitForText(/beta · codex · idle/, { timeoutMs: 90_000 });
    // The focused row's header is drawn bold.
    const focused = (name: string) => {
      const lines = t.screenText();
      const y = lines.findIndex((l) => l.includes(`${name} · codex`));
      return y >= 0 && t.cellAt(lines[y]!.indexOf(name), y).bold;
    };
    for (const row of ['alpha', 'beta']) {
      if (row === 'beta') {
        t.write('\t'); // focus the next row, and attach only once it has the focus
        await t.waitFor(() => focused('beta'), 'beta focused', { timeoutMs: 10_000 });
      }
      // (Typed until Codex's input shows it: on a loaded machine a freshly started Codex has dropped
      // the keys of its first prompt.)
      const before = stub.requests.length;
      await submitPrompt(t, 'which row', {
        inputShows: inputShows('which row').waitFor,
        submit: ['\r'],
        taken: () => stub.requests.slice(before).some((r) => r.lastUser === 'which row'),
        what: `${row}'s prompt to reach the model`,
      });
      await waitUntil(() => stub.requests.filter((r) => r.toolResult?.includes('row=')).length >= (row === 'alpha' ? 1 : 2), { timeoutMs: 30_000, what: `${row}'s command to run` });
    }
    const rows = stub.requests.map((r) => /row=(\S*)/.exec(r.toolResult ?? '')?.[1]).filter((r) => r !== undefined);
    expect(rows).toEqual(['alpha', 'beta']);
  }, 240_000);

  it("in Codex's default sandbox, swb says HUB_DENIED and what to do (no hub is started, nothing is unlinked)", async () => {
    const home = createTempHome();
    const t = startDashboard(home, ['codex'], { sandboxed: true });
    await t.waitForText('codex · idle', { timeoutMs: 90_000 });
    await operate(t, ['sandbox check', inputShows('sandbox check'), '\r']);
    const result = await waitUntil(() => stub.requests.find((r) => r.toolResult?.includes('swb peers:'))?.toolResult, { timeoutMs: 30_000, what: 'the output of swb peers' });
    expect(result).toMatch(/swb peers: HUB_DENIED: The system refused this process access to the hub socket .*hub\.sock \(EPERM\)\. A sandbox that blocks local sockets/s);
    // The dashboard's hub is untouched: the same socket still answers.
    const peers = await runSwb(['peers'], { home });
    expect(peers.status).toBe(0);
    expect(peers.stdout).toContain('codex');
  }, 240_000);
});
