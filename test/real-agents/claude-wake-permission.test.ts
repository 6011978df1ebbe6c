// Issue #31.15 on REAL Claude Code, with no permission rule of the user's own: a `claude` row's wake
// line asks Claude to run `swb inbox`, and the settings swb hands the row (--settings, its native
// recipe) allow exactly that command, so the wake's `swb inbox` runs without a permission question.
// Before, only the mcp__swb__* tools were allowed, and a user without `Bash(swb:*)` in their own
// settings was asked at every wake (the row sat `waiting` on "Do you want to proceed?").
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadProfiles } from '../../src/agents/load-profiles.js';
import { writeClaudeConfig } from '../helpers/claude-config.js';
import { runCleanups } from '../helpers/cleanup.js';
import { runSwb } from '../helpers/run-swb.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';
import { startAnthropicStub, type AnthropicStub } from '../support/model-api/anthropic-stub.mjs';
import { cliInstalled, CLAUDE_BIN, CLAUDE_API_KEY as API_KEY } from './agent-cli.js';

const claude = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles.get('claude')!;
const WAKE_LINE = claude.wakeLine;

afterEach(runCleanups);

describe.skipIf(!cliInstalled(CLAUDE_BIN))('real Claude Code: the wake needs no permission of the user\u2019s own', () => {
  let stub: AnthropicStub;

  beforeAll(async () => {
    stub = await startAnthropicStub({
      script: {
        turns: [
          {
            // The wake: run what it says, in the Bash tool.
            match: 'You have new mail',
            content: [{ type: 'tool_use', name: 'Bash', input: { command: 'swb inbox', description: 'Read Switchboard mail' } }],
            afterTool: 'Read my mail.',
          },
        ],
        default: { content: [{ type: 'text', text: 'Hello from the stub.' }] },
      },
    });
  });

  afterAll(async () => {
    await stub?.close();
  });

  it('the wake\u2019s `swb inbox` runs in Claude\u2019s Bash tool without asking, with only the settings swb gave the row', async () => {
    const home = createTempHome();
    // No --allowedTools and no settings.json in Claude's HOME: only swb's own --settings apply.
    const { config } = writeClaudeConfig(home, { bin: CLAUDE_BIN, stubUrl: stub.url, apiKey: API_KEY, args: '--permission-mode default' });
    const t = startSwb({ home, args: ['--config', config], cols: 120, rows: 40 });
    await t.waitForText('claude · idle', { timeoutMs: 60_000 });

    const sent = await runSwb(['send', '--as', 'tester', '@claude', 'ping for the wake'], { home });
    expect(sent.stderr).toBe('');
    expect(sent.status).toBe(0);

    await waitUntil(() => stub.requests.some((r) => r.lastUser === WAKE_LINE), { timeoutMs: 60_000, what: 'the wake line to reach the model' });
    const result = await waitUntil(() => stub.requests.find((r) => r.toolResult !== undefined && /from tester/.test(r.toolResult))?.toolResult, {
      timeoutMs: 30_000,
      what: 'the output of swb inbox to reach the model with no permission question',
    }).catch((err: Error) => {
      throw new Error(`${err.message}\n${t.describe()}`);
    });
    expect(result).toMatch(/^#1 {2}from tester {2}msg .*\n {4}ping for the wake$/);
    expect(t.screenText().join('\n')).not.toContain('Do you want to proceed?');
  }, 150_000);
});
