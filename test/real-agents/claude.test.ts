// The claude profile against the REAL Claude Code CLI, run offline against the local Anthropic API
// stub (test/support/model-api/anthropic-stub.mjs) in a pty with an emulated screen.
// Skipped unless the CLI is installed into the ignored .cache/ (see docs/AGENTS-REAL.md):
//   npm install --prefix .cache/agents @anthropic-ai/claude-code@2.1.332
// With SWB_CAPTURE=1 it also rewrites test/fixtures/screens/claude/real-*.txt from what it saw.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectState } from '../../src/agents/detect-state.js';
import { isPromptFree } from '../../src/agents/free-prompt.js';
import { loadProfiles } from '../../src/agents/load-profiles.js';
import { readPromptInput } from '../../src/agents/prompt-input.js';
import type { ScreenSnapshot } from '../../src/rows/screen-snapshot.js';
import { startAnthropicStub, type AnthropicStub } from '../support/model-api/anthropic-stub.mjs';
import { runHeadless, type HeadlessRun } from '../helpers/headless-screen.js';
import { claudeOfflineEnv, cliInstalled, pinnedVersion, CLAUDE_BIN, CLAUDE_API_KEY as API_KEY } from './agent-cli.js';
import { bottomHas, has, saveFixture, wakeLiveAgent } from '../helpers/real-agent-harness.js';

const VERSION = pinnedVersion('@anthropic-ai/claude-code');
const claude = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles.get('claude')!;
/** Claude draws its prompt as "❯" + NO-BREAK SPACE. */
const prompted = (text: string) => (s: ScreenSnapshot) => s.lines.some((l) => /^❯\s/u.test(l) && l.slice(2) === text);

describe.skipIf(!cliInstalled(CLAUDE_BIN))('real Claude Code', () => {
  let stub: AnthropicStub;
  let dir: string;
  const runs: HeadlessRun[] = [];
  const save = (name: string, s: ScreenSnapshot, expect: Record<string, string>): void =>
    saveFixture('claude', name, s, { source: `captured from Claude Code ${VERSION} (node-pty + @xterm/headless, offline API stub)`, ...expect }, dir, '/tmp/swb-claude-real');

  beforeAll(async () => {
    stub = await startAnthropicStub({
      script: {
        turns: [
          { match: '^slow', delayMs: 6000, content: [{ type: 'text', text: 'Slow answer done.' }] },
          {
            match: '^tool',
            content: [
              { type: 'text', text: 'I will create the file.' },
              { type: 'tool_use', name: 'Bash', input: { command: 'touch created-by-stub.txt', description: 'Create a marker file' } },
            ],
            afterTool: 'Created the file.',
          },
          { match: 'You have new mail', delayMs: 1500, content: [{ type: 'text', text: 'Reading my inbox now.' }] },
        ],
        default: { content: [{ type: 'text', text: 'Hello from the stub.' }] },
      },
    });
    dir = mkdtempSync(join(tmpdir(), 'swb-claude-real-'));
  });

  afterAll(async () => {
    for (const r of runs) r.kill();
    await Promise.all(runs.map((r) => r.gone())); // kill()'s SIGKILL of a lingering group included
    await stub?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function launch(home: string, project: string, args: string[]): HeadlessRun {
    const run = runHeadless(CLAUDE_BIN, args, {
      cols: 100,
      rows: 30,
      cwd: project,
      env: claudeOfflineEnv(home, stub.url, API_KEY),
    });
    runs.push(run);
    return run;
  }

  /** A fresh HOME (with `.claude.json` from `claudeJson(projectDir)`) and an empty project dir. */
  function dirs(name: string, claudeJson: (project: string) => Record<string, unknown>): { home: string; project: string } {
    const home = join(dir, `${name}-home`);
    const project = join(dir, `${name}-project`);
    for (const d of [home, project]) mkdirSync(d, { recursive: true });
    writeFileSync(join(home, '.claude.json'), JSON.stringify(claudeJson(project)));
    return { home, project };
  }

  it('first start in a folder: the trust question reads as waiting', async () => {
    const { home, project } = dirs('first', () => ({ hasCompletedOnboarding: true }));
    const run = launch(home, project, []);
    // Claude Code 2.1.332 asks about folder trust first, then about the API key.
    const trust = await run.waitFor(has('Enter to confirm'), 30_000, 'first question');
    expect(detectState(trust, claude)).toMatchObject({ state: 'waiting', ruleId: 'trust_folder' });
    expect(readPromptInput(trust, claude)).toMatchObject({ found: false, dialogOpen: true });
    save('real-trust-dialog', trust, { expect: 'waiting', 'expect-rule': 'trust_folder', 'expect-input': 'none', 'expect-dialog': 'true' });
    run.kill();
  }, 60_000);

  it('the API-key question reads as waiting', async () => {
    const { home, project } = dirs('key', (projectDir) => ({
      hasCompletedOnboarding: true,
      projects: { [projectDir]: { hasTrustDialogAccepted: true } },
    }));
    const run = launch(home, project, []);
    const ask = await run.waitFor(has('Do you want to use this API key?'), 30_000, 'API key question');
    expect(detectState(ask, claude)).toMatchObject({ state: 'waiting', ruleId: 'selection_menu' });
    expect(readPromptInput(ask, claude)).toMatchObject({ found: false, dialogOpen: true });
    save('real-api-key-dialog', ask, { expect: 'waiting', 'expect-rule': 'selection_menu', 'expect-input': 'none', 'expect-dialog': 'true' });
    run.kill();
  }, 60_000);

  it('idle, draft, busy, permission dialog and a wake, live', async () => {
    // Onboarding done, the stub's API key approved (last 20 characters), this project trusted.
    const { home, project } = dirs('main', (projectDir) => ({
      hasCompletedOnboarding: true,
      customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] },
      projects: { [projectDir]: { hasTrustDialogAccepted: true } },
    }));
    const run = launch(home, project, ['--permission-mode', 'default']);

    const idle = await run.waitFor((s) => has('? for shortcuts')(s) && detectState(s, claude).state === 'idle', 30_000, 'idle prompt');
    const idleInput = readPromptInput(idle, claude);
    expect(detectState(idle, claude).ruleId).toBe('prompt_box');
    expect(idleInput).toMatchObject({ found: true, isEmpty: true, dialogOpen: false, cursorOnInput: true });
    save('real-idle', idle, { expect: 'idle', 'expect-rule': 'prompt_box', 'expect-input': 'empty', 'expect-dialog': 'false', 'expect-cursor-on-input': 'true' });

    run.write('slow question');
    const draft = await run.waitFor(prompted('slow question'), 10_000, 'draft');
    expect(readPromptInput(draft, claude)).toMatchObject({ found: true, isEmpty: false, text: 'slow question' });
    expect(detectState(draft, claude).state).toBe('idle');
    save('real-draft', draft, { expect: 'idle', 'expect-input': 'draft' });

    run.write('\r');
    const busy = await run.waitFor(bottomHas('esc to interrupt'), 10_000, 'busy');
    expect(detectState(busy, claude)).toMatchObject({ state: 'busy' });
    save('real-busy', busy, { expect: 'busy', 'expect-rule': 'esc_to_interrupt', 'expect-input': 'empty' });

    const after = await run.waitFor((s) => has('Slow answer done.')(s) && !bottomHas('esc to interrupt')(s), 20_000, 'turn end');
    expect(detectState(after, claude)).toMatchObject({ state: 'idle', ruleId: 'prompt_box' });
    save('real-after-turn', after, { expect: 'idle', 'expect-rule': 'prompt_box', 'expect-input': 'empty' });

    run.write('tool please');
    await run.waitFor(prompted('tool please'), 10_000, 'tool draft');
    run.write('\r');
    const dialog = await run.waitFor((s) => has('Do you want to proceed?')(s) && has('Esc to cancel')(s), 20_000, 'permission dialog');
    expect(detectState(dialog, claude)).toMatchObject({ state: 'waiting', ruleId: 'permission_dialog' });
    const dialogInput = readPromptInput(dialog, claude);
    expect(dialogInput.dialogOpen).toBe(true);
    expect(
      isPromptFree({ state: 'waiting', input: dialogInput, operatorTypedAt: null, now: 0, stillForMs: 1e6, quietMs: 0 }).free,
    ).toBe(false);
    save('real-permission-dialog', dialog, { expect: 'waiting', 'expect-rule': 'permission_dialog', 'expect-dialog': 'true' });
    run.write('\x1b'); // "Esc to cancel": the tool does not run
    await run.waitFor((s) => !has('Do you want to proceed?')(s) && detectState(s, claude).state === 'idle', 20_000, 'dialog gone');

    // A wake through the real controller: the fixed line must reach the model as the user's message.
    expect(await wakeLiveAgent(run, claude)).toBe(1);
    await run.waitFor(has('Reading my inbox now.'), 20_000, 'wake turn');
    expect(stub.requests.some((r) => r.lastUser === claude.wakeLine)).toBe(true);
  }, 120_000);
});
