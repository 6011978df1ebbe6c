// Usage in swb (issue #38) with REAL Claude Code and Codex rows, driven through the real `swb` dashboard
// offline against the model stand-ins (test/support/model-api/), which hand out distinct, realistic usage
// per request and log it. After a few turns `swb usage --json` must equal, exactly, the usage of the
// responses the stand-in handed out for the row's conversation. What is counted: the conversation's
// requests (they offer the agent's tools); side requests — a title or a topic check from a small model,
// which offer no tools — are spent but are not in the agent's transcript, so swb does not count them.
import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadProfiles } from '../../src/agents/load-profiles.js';
import type { RowUsageView } from '../../src/usage/row-usage-view.js';
import type { UsageReport } from '../../src/usage/usage-report.js';
import { writeClaudeConfig } from '../helpers/claude-config.js';
import { runCleanups } from '../helpers/cleanup.js';
import { runSwb } from '../helpers/run-swb.js';
import { ls } from '../helpers/swb-ls.js';
import { operate, shellCommand } from '../helpers/swb-operator.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import { startSwb } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';
import { startAnthropicStub, type AnthropicStub } from '../support/model-api/anthropic-stub.mjs';
import { startResponsesStub, type ResponsesStub } from '../support/model-api/openai-responses-stub.mjs';
import { AGENTS_DIR, cliInstalled, prepareCodexHome, stopCodexDaemons, CLAUDE_BIN, CLAUDE_API_KEY as API_KEY } from './agent-cli.js';

const CODEX_JS = process.env.SWB_CODEX_JS ?? join(AGENTS_DIR, '@openai/codex/bin/codex.js');
const codex = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles.get('codex')!;

afterEach(runCleanups);

async function usageReport(home: TempHome): Promise<UsageReport> {
  const r = await runSwb(['usage', '--json'], { home });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as UsageReport;
}

/** Waits until swb has counted `turns` responses, then returns its report. */
async function counted(home: TempHome, turns: number, what: string): Promise<UsageReport> {
  return waitUntil(async () => {
    const r = await usageReport(home);
    return r.total.turns >= turns && r;
  }, { timeoutMs: 30_000, intervalMs: 250, what });
}

describe.skipIf(!cliInstalled(CLAUDE_BIN))('usage of a real Claude Code row', () => {
  let stub: AnthropicStub;

  beforeAll(async () => {
    stub = await startAnthropicStub({
      script: {
        turns: [{ match: '^read the notes', content: [{ type: 'text', text: 'Reading the notes.' }, { type: 'tool_use', name: 'Read', input: { file_path: 'NOTES' } }], afterTool: 'The notes say hello.' }],
        default: { content: [{ type: 'text', text: 'Hello from the stub.' }] },
      },
    });
  });

  afterAll(async () => {
    await stub?.close();
  });

  it('after a few turns, swb usage and swb ls equal the usage the stand-in handed out for the conversation', async () => {
    const home = createTempHome();
    const { config, project } = writeClaudeConfig(home, { bin: CLAUDE_BIN, stubUrl: stub.url, apiKey: API_KEY, args: '--permission-mode acceptEdits', row: { wake: 'off', nativeTools: false } });
    writeFileSync(join(project, 'NOTES'), 'hello\n');
    const t = startSwb({ home, args: ['--config', config], cols: 160, rows: 40 });
    await t.waitForText('claude · idle', { timeoutMs: 60_000 });
    const inputShows = (text: string) => ({ waitFor: (s: string) => new RegExp(`^❯\\s${text}\\s*$`, 'mu').test(s), what: `"${text}" in Claude's input` });
    for (const [text, answer] of [['hello there', 'Hello from the stub.'], ['read the notes', 'The notes say hello.'], ['one more', 'Hello from the stub.']] as const) {
      // This turn's own answer: the last turn's reads the same as the first's, so the screen alone
      // could show it before the prompt even reached the model (then the conversation came up short).
      const from = stub.answered.length;
      await operate(t, [text, inputShows(text), '\r']);
      await waitUntil(() => stub.answered.slice(from).some((a) => !a.toolUse && !a.failed), { timeoutMs: 60_000, what: `the stand-in to answer ${text}` });
      await operate(t, [{ waitFor: (s) => s.includes(answer) && !s.includes('esc to interrupt'), what: `the answer to ${text}` }]);
    }
    await t.waitForText('claude · idle', { timeoutMs: 30_000 });

    const conversation = stub.requests.filter((r) => r.usage && r.tools.length > 0);
    const expected = conversation.reduce(
      (s, r) => ({
        input: s.input + r.usage!.input_tokens,
        cacheRead: s.cacheRead + r.usage!.cache_read_input_tokens,
        cacheWrite: s.cacheWrite + r.usage!.cache_creation_input_tokens,
        output: s.output + r.usage!.output_tokens,
        reasoning: 0,
      }),
      { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0 },
    );
    expect(conversation.length).toBeGreaterThanOrEqual(4);
    const report = await counted(home, conversation.length, 'swb to count every response of the conversation');
    expect(report.total.turns).toBe(conversation.length);
    expect(report.total.tokens).toEqual(expected);
    const row = (await ls(home)).rows.find((r) => r.name === 'claude') as { usage: RowUsageView } | undefined;
    expect(row?.usage).toMatchObject({ turns: conversation.length, tokens: expected });
    // The last response's prompt is the context fill.
    const last = conversation.at(-1)!.usage!;
    expect(row!.usage.context?.tokens).toBe(last.input_tokens + last.cache_read_input_tokens + last.cache_creation_input_tokens);
  }, 240_000);
});

describe.skipIf(!cliInstalled(CODEX_JS))('usage of a real Codex row', () => {
  let stub: ResponsesStub;
  const codexHomes: string[] = [];

  beforeAll(async () => {
    stub = await startResponsesStub({
      script: {
        turns: [{ match: '^make a file', output: [{ type: 'function_call', name: 'exec_command', arguments: { cmd: 'touch made-by-stub.txt' } }], afterTool: 'Made the file.' }],
        default: { output: [{ type: 'text', text: 'Hello from the stub.' }] },
      },
    });
  });

  afterAll(async () => {
    stopCodexDaemons(CODEX_JS, codexHomes);
    await stub?.close();
  }, 60_000);

  it('after a few turns, swb usage equals the usage the stand-in handed out, and ls shows the plan window', async () => {
    const home = createTempHome();
    const codexHome = join(home.home, 'codex-home');
    const project = join(home.home, 'project');
    prepareCodexHome(codexHome, project, stub.url);
    codexHomes.push(codexHome);
    const config = join(home.workspace, 'swb.json');
    const argv = [process.execPath, CODEX_JS, ...('argv' in codex.command ? codex.command.argv.slice(1) : []), '--dangerously-bypass-approvals-and-sandbox'];
    writeFileSync(config, JSON.stringify({ rows: [{ name: 'codex', profile: 'codex', command: shellCommand(argv), cwd: project, wake: 'off', nativeTools: false, env: { HOME: codexHome, SHELL: '/bin/bash', STUB_API_KEY: 'stub-key' } }] }));
    const t = startSwb({ home, args: ['--config', config], cols: 160, rows: 40 });
    await t.waitForText('codex · idle', { timeoutMs: 90_000 });
    const inputShows = (text: string) => ({ waitFor: (s: string) => new RegExp(`^›\\s${text}\\s*$`, 'mu').test(s), what: `"${text}" in Codex's input` });
    for (const [text, answer] of [['hello there', 'Hello from the stub.'], ['make a file', 'Made the file.'], ['one more', 'Hello from the stub.']] as const) {
      await operate(t, [text, inputShows(text), '\r', { waitFor: (s) => s.includes(answer) && !/esc to interrupt/i.test(s), what: `the answer to ${text}` }]);
    }
    await t.waitForText('codex · idle', { timeoutMs: 30_000 });

    // Codex's side requests (a thread title) offer no tools and are not in its rollout file.
    const conversation = stub.requests.filter((r) => r.usage && r.tools.length > 0);
    const expected = conversation.reduce(
      (s, r) => ({
        input: s.input + r.usage!.input_tokens - r.usage!.input_tokens_details.cached_tokens,
        cacheRead: s.cacheRead + r.usage!.input_tokens_details.cached_tokens,
        cacheWrite: 0,
        output: s.output + r.usage!.output_tokens,
        reasoning: s.reasoning + r.usage!.output_tokens_details.reasoning_tokens,
      }),
      { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, reasoning: 0 },
    );
    expect(conversation.length).toBeGreaterThanOrEqual(4);
    // Codex records a turn's usage as cumulative counters: swb counts each response once; it knows
    // the rollout's session id only once it found it among the row's open files.
    let seen: UsageReport | null = null;
    const report = await waitUntil(async () => {
      const r = (seen = await usageReport(home));
      return r.total.tokens.output === expected.output && r;
    }, { timeoutMs: 30_000, intervalMs: 250, what: `swb to count the conversation's usage ${JSON.stringify(expected)}` }).catch((err: Error) => {
      throw new Error(`${err.message}; swb counted ${JSON.stringify(seen?.total)}; the stand-in handed out ${JSON.stringify(stub.requests.map((r) => ({ tools: r.tools.length, usage: r.usage })))}; server log: ${readFileSync(join(home.paths.runDir, 'server.log'), 'utf8').slice(-3000)}`);
    });
    expect(report.total.tokens).toEqual(expected);
    const row = (await ls(home)).rows.find((r) => r.name === 'codex') as { usage: RowUsageView } | undefined;
    expect(row?.usage.tokens).toEqual(expected);
    // The plan's windows, as the stand-in's rate-limit headers said and Codex recorded them.
    expect(row?.usage.limits?.primary).toMatchObject({ usedPercent: expect.any(Number), windowMinutes: expect.any(Number) });
  }, 240_000);
});
