// The usage parsers (src/usage/) against the files the REAL pinned CLIs write, run offline against the
// model stand-ins (test/support/model-api/), which hand out realistic, distinct usage per request and log
// it. Each conversation's usage as read from the agent's own transcript must equal, exactly, the usage
// of the requests the transcript records (the conversation's requests; side requests such as a title
// from a small model are not in the transcript and are not counted, see the checks below).
// With SWB_CAPTURE=1 it also writes the transcripts (paths sanitized) and the stand-in's log of what it
// handed out to test/fixtures/usage/, where the unit tests read them.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnthropicStub, type AnthropicStub } from '../support/model-api/anthropic-stub.mjs';
import { startResponsesStub, type ResponsesStub } from '../support/model-api/openai-responses-stub.mjs';
import { runHeadless, type HeadlessRun } from '../helpers/headless-screen.js';
import { capturing, has } from '../helpers/real-agent-harness.js';
import { AGENTS_DIR, claudeOfflineEnv, cliInstalled, codexOfflineEnv, prepareCodexHome, stopCodexDaemons, CLAUDE_BIN, CLAUDE_API_KEY as API_KEY } from './agent-cli.js';
import { sumTranscript } from '../helpers/usage-sum.js';

const CODEX_JS = process.env.SWB_CODEX_JS ?? join(AGENTS_DIR, '@openai/codex/bin/codex.js');
/** Claude Code's prompt line ("❯" and a no-break space) under its box's top rule. */
const promptShown = (s: { lines: string[] }): boolean => s.lines.some((l) => /^❯\s*$/u.test(l));
const FIXTURES = join(new URL('../fixtures/usage/', import.meta.url).pathname);

/** Every regular file under `dir`. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile());
}

/** Writes `text` to test/fixtures/usage/<name> with the temp dir replaced by a stable path. */
function saveUsageFixture(name: string, text: string, tmp: string): void {
  if (!capturing) return;
  const path = join(FIXTURES, name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text.replaceAll(tmp, '/tmp/swb-usage-real').replaceAll(basename(tmp), 'swb-usage-real'));
}

/** Types `text`, sends it and waits for `answer` with the turn over (no "esc to interrupt" near the bottom). */
async function turn(run: HeadlessRun, text: string, answer: string): Promise<void> {
  run.write(text);
  await run.waitFor((s) => s.lines.some((l) => l.includes(text)), 10_000, `draft ${text}`);
  run.write('\r');
  await run.waitFor((s) => has(answer)(s) && !s.lines.slice(-6).some((l) => l.includes('esc to interrupt')), 90_000, `answer ${answer}`);
}

describe.skipIf(!cliInstalled(CLAUDE_BIN))('usage in real Claude Code transcripts', () => {
  let stub: AnthropicStub;
  let dir: string;
  const runs: HeadlessRun[] = [];

  beforeAll(async () => {
    stub = await startAnthropicStub({
      script: {
        turns: [
          { match: '^read the notes', content: [{ type: 'text', text: 'Reading the notes.' }, { type: 'tool_use', name: 'Read', input: { file_path: 'NOTES' } }], afterTool: 'The notes say hello.' },
          { match: '^ask a helper', content: [{ type: 'tool_use', name: 'Agent', input: { description: 'Count files', prompt: 'helper task: say how many files there are', subagent_type: 'general-purpose' } }], afterTool: 'The helper answered.' },
          { match: '^helper task', content: [{ type: 'text', text: 'There are two files.' }] },
          { match: '^after the resume', content: [{ type: 'text', text: 'Answer after the resume.' }] },
          { match: '^after compaction', content: [{ type: 'text', text: 'Answer after compaction.' }] },
        ],
        default: { content: [{ type: 'text', text: 'Hello from the stub.' }] },
      },
    });
    dir = mkdtempSync(join(tmpdir(), 'swb-usage-claude-'));
  });

  afterAll(async () => {
    for (const r of runs) r.kill();
    await Promise.all(runs.map((r) => Promise.race([r.exited, new Promise((res) => setTimeout(res, 2000))])));
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


  it('a conversation with a tool, a subagent, a resume and a compaction: the transcript holds exactly the usage handed out', async () => {
    const home = join(dir, 'home');
    const project = join(dir, 'project');
    for (const d of [home, project]) mkdirSync(d, { recursive: true });
    writeFileSync(join(project, 'NOTES'), 'hello\n');
    writeFileSync(
      join(home, '.claude.json'),
      JSON.stringify({ hasCompletedOnboarding: true, customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] }, projects: { [project]: { hasTrustDialogAccepted: true } } }),
    );
    const session = randomUUID();
    const first = launch(home, project, ['--session-id', session, '--permission-mode', 'acceptEdits']);
    await first.waitFor(promptShown, 30_000, 'idle prompt');
    await turn(first, 'hello there', 'Hello from the stub.');
    await turn(first, 'read the notes', 'The notes say hello.');
    await turn(first, 'ask a helper', 'The helper answered.');
    first.kill();
    await first.exited;

    const resumed = launch(home, project, ['--resume', session, '--permission-mode', 'acceptEdits']);
    await resumed.waitFor(promptShown, 30_000, 'idle prompt after resume');
    await turn(resumed, 'after the resume', 'Answer after the resume.');
    resumed.write('/compact');
    await resumed.waitFor((s) => s.lines.some((l) => l.includes('/compact')), 10_000, 'compact draft');
    resumed.write('\r');
    await resumed.waitFor((s) => s.lines.some((l) => /compacted/i.test(l)), 60_000, 'compacted');
    await turn(resumed, 'after compaction', 'Answer after compaction.');
    resumed.kill();
    await resumed.exited;

    const projects = join(home, '.claude', 'projects');
    const files = filesUnder(projects).filter((f) => f.endsWith('.jsonl'));
    const main = files.find((f) => basename(f) === `${session}.jsonl`)!;
    expect(main).toBeDefined();
    for (const f of files) saveUsageFixture(join('claude', relative(projects, f).replace(/^[^/]+\//, 'project/')), readFileSync(f, 'utf8'), dir);
    saveUsageFixture('claude/handed-out.json', `${JSON.stringify(stub.requests.filter((r) => r.usage), null, 1)}\n`, dir);

    const sum = sumTranscript('claude', files);
    // What is counted: the responses the transcript records, the conversation's and its subagents'.
    // Side requests offer no tools and are not recorded; nor are the summaries /compact asks for (its
    // requests carry Claude Code's compaction instruction): Claude Code spends them, its transcript has
    // no response line for them. Claude Code's own running total (its `cost-state` lines) has them all.
    const isCompaction = (r: { userTexts: string[] }) => r.userTexts.some((t) => t.includes('CRITICAL: Respond with TEXT ONLY'));
    const modelCalls = stub.requests.filter((r) => r.usage && r.tools.length > 0);
    const conversation = modelCalls.filter((r) => !isCompaction(r));
    expect(modelCalls.length - conversation.length).toBeGreaterThan(0);
    const total = (rs: typeof modelCalls) =>
      rs.reduce(
        (t, r) => ({
          input: t.input + r.usage!.input_tokens,
          cacheWrite: t.cacheWrite + r.usage!.cache_creation_input_tokens,
          cacheRead: t.cacheRead + r.usage!.cache_read_input_tokens,
          output: t.output + r.usage!.output_tokens,
        }),
        { input: 0, cacheWrite: 0, cacheRead: 0, output: 0 },
      );
    expect({ input: sum.input, cacheWrite: sum.cacheWrite, cacheRead: sum.cacheRead, output: sum.output }).toEqual(total(conversation));
    expect(sum.turns.length).toBe(conversation.length);
    const costState = readFileSync(main, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"type":"cost-state"'))
      .map((l) => JSON.parse(l) as { modelUsage: Record<string, { inputTokens: number; outputTokens: number; cacheReadInputTokens: number; cacheCreationInputTokens: number }> })
      .at(-1)!;
    const own = Object.values(costState.modelUsage).reduce(
      (t, m) => ({ input: t.input + m.inputTokens, cacheWrite: t.cacheWrite + m.cacheCreationInputTokens, cacheRead: t.cacheRead + m.cacheReadInputTokens, output: t.output + m.outputTokens }),
      { input: 0, cacheWrite: 0, cacheRead: 0, output: 0 },
    );
    expect(own).toEqual(total(modelCalls));
  }, 240_000);
});

describe.skipIf(!cliInstalled(CODEX_JS))('usage in real Codex rollout files', () => {
  let stub: ResponsesStub;
  let dir: string;
  const runs: HeadlessRun[] = [];
  const homes: string[] = [];

  beforeAll(async () => {
    stub = await startResponsesStub({
      script: {
        turns: [{ match: '^after the resume', output: [{ type: 'text', text: 'Answer after the resume.' }] }, { match: '^make a file', output: [{ type: 'function_call', name: 'exec_command', arguments: { cmd: 'touch made-by-stub.txt' } }], afterTool: 'Made the file.' }],
        default: { output: [{ type: 'text', text: 'Hello from the stub.' }] },
      },
    });
    dir = mkdtempSync(join(tmpdir(), 'swb-usage-codex-'));
  });

  afterAll(async () => {
    for (const r of runs) r.kill();
    await Promise.all(runs.map((r) => Promise.race([r.exited, new Promise((res) => setTimeout(res, 2000))])));
    stopCodexDaemons(CODEX_JS, homes);
    await stub?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  function launch(home: string, project: string, args: string[]): HeadlessRun {
    const run = runHeadless(process.execPath, [CODEX_JS, ...args], {
      cols: 100,
      rows: 30,
      cwd: project,
      env: codexOfflineEnv(home),
    });
    runs.push(run);
    return run;
  }


  it('turns, a tool and a resume appending to the same rollout: cumulative counters count each response once', async () => {
    const home = join(dir, 'home');
    const project = join(dir, 'project');
    prepareCodexHome(home, project, stub.url, true);
    homes.push(home);
    const first = launch(home, project, ['--dangerously-bypass-approvals-and-sandbox']);
    await first.waitFor((s) => s.lines.some((l) => l.includes('›')), 30_000, 'idle prompt');
    await turn(first, 'hello there', 'Hello from the stub.');
    await turn(first, 'make a file', 'Made the file.');
    first.kill();
    await first.exited;

    const sessions = join(home, '.codex', 'sessions');
    const rollout = filesUnder(sessions).find((f) => /rollout-.*\.jsonl$/.test(f))!;
    expect(rollout).toBeDefined();
    const id = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/.exec(rollout)![1]!;
    const resumed = launch(home, project, ['resume', id, '--dangerously-bypass-approvals-and-sandbox']);
    await resumed.waitFor((s) => s.lines.some((l) => l.includes('›')), 30_000, 'idle prompt after resume');
    await turn(resumed, 'after the resume', 'Answer after the resume.');
    resumed.kill();
    await resumed.exited;

    const rollouts = filesUnder(sessions).filter((f) => /rollout-.*\.jsonl$/.test(f));
    for (const f of rollouts) saveUsageFixture(join('codex', basename(f)), readFileSync(f, 'utf8'), dir);
    saveUsageFixture('codex/handed-out.json', `${JSON.stringify(stub.requests.filter((r) => r.usage), null, 1)}\n`, dir);

    const sum = sumTranscript('codex', rollouts);
    // Codex's side requests (a thread title) offer no tools and are not in the rollout.
    const handed = stub.requests.filter((r) => r.usage && r.tools.length > 0);
    const expected = handed.reduce(
      (t, r) => ({
        input: t.input + r.usage!.input_tokens - r.usage!.input_tokens_details.cached_tokens,
        cacheRead: t.cacheRead + r.usage!.input_tokens_details.cached_tokens,
        output: t.output + r.usage!.output_tokens,
        reasoning: t.reasoning + r.usage!.output_tokens_details.reasoning_tokens,
      }),
      { input: 0, cacheRead: 0, output: 0, reasoning: 0 },
    );
    expect({ input: sum.input, cacheRead: sum.cacheRead, output: sum.output, reasoning: sum.reasoning }).toEqual(expected);
  }, 240_000);
});
