// The codex profile against the REAL Codex CLI, run offline with a custom model provider pointing at
// the local Responses API stub (test/support/model-api/openai-responses-stub.mjs).
// Skipped unless the CLI is installed into the ignored .cache/ (see docs/AGENTS-REAL.md):
//   npm install --prefix .cache/agents @openai/codex@0.171.0
// With SWB_CAPTURE=1 it also rewrites test/fixtures/screens/codex/real-*.txt from what it saw.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectState } from '../../src/agents/detect-state.js';
import { loadProfiles } from '../../src/agents/load-profiles.js';
import { readPromptInput } from '../../src/agents/prompt-input.js';
import type { ScreenSnapshot } from '../../src/rows/screen-snapshot.js';
import { startResponsesStub, type ResponsesStub } from '../support/model-api/openai-responses-stub.mjs';
import { runHeadless, type HeadlessRun } from '../helpers/headless-screen.js';
import { AGENTS_DIR, cliInstalled, codexOfflineEnv, pinnedVersion, prepareCodexHome, stopCodexDaemons } from './agent-cli.js';
import { bottomHas, has, saveFixture, wakeLiveAgent } from '../helpers/real-agent-harness.js';

const CODEX_JS = process.env.SWB_CODEX_JS ?? join(AGENTS_DIR, '@openai/codex/bin/codex.js');
const VERSION = pinnedVersion('@openai/codex');
const codex = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles.get('codex')!;
const inputIs = (text: string) => (s: ScreenSnapshot) => readPromptInput(s, codex).text === text;

describe.skipIf(!cliInstalled(CODEX_JS))('real Codex CLI', () => {
  let stub: ResponsesStub;
  let dir: string;
  const runs: HeadlessRun[] = [];
  const homes: string[] = [];

  const save = (name: string, s: ScreenSnapshot, expect: Record<string, string>): void =>
    saveFixture('codex', name, s, { source: `captured from Codex CLI ${VERSION} (node-pty + @xterm/headless, offline Responses API stub)`, ...expect }, dir, '/tmp/swb-codex-real');

  beforeAll(async () => {
    stub = await startResponsesStub({
      script: {
        turns: [
          { match: '^slow', delayMs: 6000, output: [{ type: 'text', text: 'Slow answer done.' }] },
          {
            match: '^tool',
            output: [
              {
                type: 'function_call',
                name: 'exec_command',
                arguments: { cmd: 'touch created-by-stub.txt', justification: 'Create a marker file', sandbox_permissions: 'require_escalated' },
              },
            ],
            afterTool: 'Created the file.',
          },
          { match: 'You have new mail', delayMs: 1500, output: [{ type: 'text', text: 'Reading my inbox now.' }] },
        ],
        default: { output: [{ type: 'text', text: 'Hello from the stub.' }] },
      },
    });
    dir = mkdtempSync(join(tmpdir(), 'swb-codex-real-'));
  });

  afterAll(async () => {
    for (const r of runs) r.kill();
    await Promise.all(runs.map((r) => r.gone())); // kill()'s SIGKILL of a lingering group included
    stopCodexDaemons(CODEX_JS, homes);
    await stub?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  function launch(name: string, trusted: boolean): HeadlessRun {
    const home = join(dir, `${name}-home`);
    const project = join(dir, `${name}-project`);
    prepareCodexHome(home, project, stub.url, trusted);
    homes.push(home);
    const run = runHeadless(process.execPath, [CODEX_JS], {
      cols: 100,
      rows: 30,
      cwd: project,
      env: codexOfflineEnv(home),
    });
    runs.push(run);
    return run;
  }

  it('first start in a folder: the trust question reads as waiting', async () => {
    const run = launch('first', false);
    // The question is drawn over the start-up screen: wait for its footer, the last part drawn.
    const trust = await run.waitFor((s) => has('Trust this folder?')(s) && has('esc back')(s), 90_000, 'trust question');
    expect(detectState(trust, codex)).toMatchObject({ state: 'waiting', ruleId: 'trust_directory' });
    expect(readPromptInput(trust, codex)).toMatchObject({ found: false, dialogOpen: true });
    save('real-trust-dialog', trust, { expect: 'waiting', 'expect-rule': 'trust_directory', 'expect-input': 'none', 'expect-dialog': 'true' });
    run.kill();
  }, 120_000);

  it('idle, draft, busy, approval and a wake, live', async () => {
    const run = launch('main', true);
    // A fresh CODEX_HOME installs and starts the app-server daemon first; the footer names the model
    // once the session is ready (a message typed before that shows "Waiting for startup").
    const idle = await run.waitFor((s) => has('gpt-stub')(s) && has('Ask Codex to do anything')(s) && detectState(s, codex).state === 'idle', 90_000, 'idle prompt');
    expect(detectState(idle, codex).ruleId).toBe('prompt_line');
    expect(readPromptInput(idle, codex)).toMatchObject({ found: true, isEmpty: true, dialogOpen: false, cursorOnInput: true });
    save('real-idle', idle, { expect: 'idle', 'expect-rule': 'prompt_line', 'expect-input': 'empty', 'expect-dialog': 'false', 'expect-cursor-on-input': 'true' });

    run.write('slow question');
    const draft = await run.waitFor(inputIs('slow question'), 10_000, 'draft');
    expect(readPromptInput(draft, codex)).toMatchObject({ found: true, isEmpty: false, cursorOnInput: true });
    save('real-draft', draft, { expect: 'idle', 'expect-input': 'draft', 'expect-cursor-on-input': 'true' });

    run.write('\r');
    const busy = await run.waitFor(bottomHas('esc to interrupt', 8), 10_000, 'busy');
    expect(detectState(busy, codex)).toMatchObject({ state: 'busy' });
    expect(readPromptInput(busy, codex)).toMatchObject({ found: true, isEmpty: true });
    save('real-busy', busy, { expect: 'busy', 'expect-rule': 'esc_to_interrupt', 'expect-input': 'empty' });

    // The OSC title keeps its spinner a frame longer than the screen: wait for both to settle.
    const after = await run.waitFor(
      (s) => has('Slow answer done.')(s) && !has('esc to interrupt')(s) && detectState(s, codex).state === 'idle',
      20_000,
      'turn end',
    );
    expect(detectState(after, codex)).toMatchObject({ state: 'idle', ruleId: 'prompt_line' });
    save('real-after-turn', after, { expect: 'idle', 'expect-rule': 'prompt_line', 'expect-input': 'empty' });

    run.write('tool please');
    await run.waitFor(inputIs('tool please'), 10_000, 'tool draft');
    run.write('\r');
    const approval = await run.waitFor((s) => has('Would you like to run the following command?')(s) && has('esc to cancel')(s), 20_000, 'approval');
    expect(detectState(approval, codex).state).toBe('waiting');
    expect(readPromptInput(approval, codex).dialogOpen).toBe(true);
    save('real-approval', approval, { expect: 'waiting', 'expect-rule': detectState(approval, codex).ruleId ?? '', 'expect-dialog': 'true' });
    run.write('\x1b'); // esc: do not run it
    await run.waitFor((s) => !has('Would you like to run')(s) && detectState(s, codex).state === 'idle', 20_000, 'approval gone');

    expect(await wakeLiveAgent(run, codex)).toBe(1);
    await run.waitFor(has('Reading my inbox now.'), 20_000, 'wake turn');
    expect(stub.requests.some((r) => r.lastUser === codex.wakeLine)).toBe(true);
  }, 180_000);
});
