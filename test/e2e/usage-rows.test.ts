// Usage in the server (issue #38): an agent row (the claude profile, its program a script that only
// records the session id swb minted for it) whose conversation file — a real Claude Code transcript from
// test/fixtures/usage/, with its subagent's — appears late in the row's HOME and grows. `swb usage --json`
// and `swb ls --json` show exactly the fixture's totals (summed by the parser on its own), `swb events
// --kinds usage` streams the change, and the header shows the compact form.
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { runSwb, spawnSwb } from '../helpers/run-swb.js';
import { ls, rowOf } from '../helpers/swb-ls.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb } from '../helpers/terminal-harness.js';
import { sumTranscript } from '../helpers/usage-sum.js';
import { waitUntil } from '../helpers/wait-until.js';
import type { UsageReport } from '../../src/usage/usage-report.js';
import type { RowUsageView } from '../../src/usage/row-usage-view.js';

afterEach(runCleanups);

const FIXTURE = new URL('../fixtures/usage/claude/project/', import.meta.url).pathname;
const SESSION = '4d5e567b-1b28-47c9-b4ba-a1a345355ee6';
const MAIN = join(FIXTURE, `${SESSION}.jsonl`);
const SUBAGENT = join(FIXTURE, SESSION, 'subagents', 'agent-a45bef609042b61fb.jsonl');

function tokensOf(s: { input: number; cacheRead: number; cacheWrite: number; output: number; reasoning: number }) {
  return { input: s.input, cacheRead: s.cacheRead, cacheWrite: s.cacheWrite, output: s.output, reasoning: s.reasoning };
}

async function usageReport(home: ReturnType<typeof createTempHome>): Promise<UsageReport> {
  const r = await runSwb(['usage', '--json'], { home });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as UsageReport;
}

/**
 * swb with one row, `agent`, read with the claude profile: its program a script that records the
 * arguments swb gave it (the minted session id) and sleeps, its HOME a fresh folder. Returns the
 * dashboard, the config, the session id and the folder its conversation file goes in.
 */
async function startAgentRow(home: ReturnType<typeof createTempHome>, more: { row?: Record<string, unknown>; config?: Record<string, unknown> } = {}) {
  const agentHome = join(home.home, 'agent-home');
  mkdirSync(agentHome);
  const argsFile = join(home.workspace, 'args');
  const script = join(home.workspace, 'fake-claude.sh');
  writeFileSync(script, `printf '%s\\n' "$@" > ${JSON.stringify(argsFile)}\necho fake claude\nexec sleep 600\n`);
  const config = join(home.workspace, 'swb.json');
  writeFileSync(config, JSON.stringify({ rows: [{ name: 'agent', profile: 'claude', command: `sh ${script}`, env: { HOME: agentHome }, nativeTools: false, ...more.row }], ...more.config }));
  const t = startSwb({ home, args: ['--config', config], cols: 160 });
  // The file may be caught half written: wait for the id and the line's end.
  const id = await waitUntil(() => existsSync(argsFile) && /--session-id\n([0-9a-f-]{36})\n/.exec(readFileSync(argsFile, 'utf8'))?.[1], { what: 'the fake agent to start' });
  // The server waits for the conversation from the row's first look on. Folders made before that look
  // are ones it cannot tell from an older session's (it waits for the row to go quiet to look in them,
  // and this agent never does): the test makes its folders once the server says it waits.
  const log = join(home.paths.runDir, 'server.log');
  await waitUntil(() => existsSync(log) && readFileSync(log, 'utf8').includes('row agent: its conversation file is not there yet'), { what: 'the server to wait for the conversation' });
  return { t, config, id, dir: join(agentHome, '.claude', 'projects', '-tmp-some-project') };
}

describe('usage of an agent row', () => {
  test('a transcript that appears late and grows: swb usage, swb ls and swb events show exactly its totals', async () => {
    const home = createTempHome();
    const { t, id, dir } = await startAgentRow(home);
    await t.waitForText('agent');

    const events = spawnSwb(['events', '--json', '--kinds', 'usage'], { home });
    await waitUntil(() => /watching/.test(events.stderr()), { what: 'swb events to subscribe' });

    // The conversation appears (with its subagent's file), its first half written.
    mkdirSync(join(dir, id, 'subagents'), { recursive: true });
    copyFileSync(SUBAGENT, join(dir, id, 'subagents', 'agent-a45bef609042b61fb.jsonl'));
    const lines = readFileSync(MAIN, 'utf8').split('\n').filter(Boolean);
    const half = Math.floor(lines.length / 2);
    const conversation = join(dir, `${id}.jsonl`);
    writeFileSync(conversation, lines.slice(0, half).map((l) => `${l}\n`).join(''));
    const partFile = join(home.home, 'part.jsonl');
    writeFileSync(partFile, lines.slice(0, half).map((l) => `${l}\n`).join(''));
    const first = sumTranscript('claude', [partFile, SUBAGENT]);
    await waitUntil(async () => (await usageReport(home)).total.turns === first.turns.length, { timeoutMs: 15_000, intervalMs: 200, what: 'the first half to be counted' }).catch(async (err: Error) => {
      throw new Error(`${err.message}: ${JSON.stringify((await usageReport(home)).total)} of ${first.turns.length}; ${readFileSync(join(home.paths.runDir, 'server.log'), 'utf8').slice(-2500)}`);
    });
    expect((await usageReport(home)).total.tokens).toEqual(tokensOf(first));

    // It grows: the rest of the conversation.
    appendFileSync(conversation, lines.slice(half).map((l) => `${l}\n`).join(''));
    const all = sumTranscript('claude', [MAIN, SUBAGENT]);
    expect(all.turns.length).toBeGreaterThan(first.turns.length);
    await waitUntil(async () => (await usageReport(home)).total.turns === all.turns.length, { timeoutMs: 15_000, intervalMs: 200, what: 'the whole conversation to be counted' });
    const report = await usageReport(home);
    expect(report.total.tokens).toEqual(tokensOf(all));
    expect(report.groups).toEqual([expect.objectContaining({ key: 'agent', turns: all.turns.length, tokens: tokensOf(all) })]);
    expect(report.total.cost).toBeGreaterThan(0);

    // swb ls --json: the row's usage, the same totals, its context fill from the last response.
    const row = rowOf(await ls(home), 'agent') as ReturnType<typeof rowOf> & { usage: RowUsageView | null };
    expect(row.usage).toMatchObject({ row: 'agent', turns: all.turns.length, tokens: tokensOf(all), unpriced: [] });
    expect(row.usage!.context?.tokens).toBeGreaterThan(0);

    // swb events --kinds usage streamed the change, ending at the same totals.
    const usageEvents = () =>
      events
        .stdout()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { kind: string; row: string; usage: RowUsageView });
    await waitUntil(() => usageEvents().some((e) => e.usage.turns === all.turns.length), { what: 'the usage event of the whole conversation' });
    expect(usageEvents().every((e) => e.kind === 'usage' && e.row === 'agent')).toBe(true);
    expect(usageEvents().at(-1)!.usage.tokens).toEqual(tokensOf(all));

    // By model and by agent; the header's compact form.
    const byModel = JSON.parse((await runSwb(['usage', '--json', '--by', 'model'], { home })).stdout) as UsageReport;
    expect(byModel.groups.reduce((n, g) => n + g.turns, 0)).toBe(all.turns.length);
    const byAgent = JSON.parse((await runSwb(['usage', '--json', '--by', 'agent'], { home })).stdout) as UsageReport;
    expect(byAgent.groups.map((g) => g.key)).toEqual(['claude']);
    await t.waitForText(/agent · claude .*tok \$\d/);
    // `$`: the overlay with every figure; Esc closes it.
    t.write('$');
    await t.waitForText('Usage (list prices)');
    await t.waitForText(`@agent · claude · ${all.turns.length} turns`);
    await t.waitForText(`  tokens   in ${all.input.toLocaleString('en-US')} · cache read ${all.cacheRead.toLocaleString('en-US')}`);
    t.write('\x1b');
    await t.waitForNoText('Usage (list prices)');
  });

  test('after swb kill-server the restored row keeps its totals, counted once; what it writes next is added', async () => {
    const home = createTempHome();
    const { t: first, config, id, dir } = await startAgentRow(home);
    mkdirSync(dir, { recursive: true });
    const lines = readFileSync(MAIN, 'utf8').split('\n').filter(Boolean);
    const half = Math.floor(lines.length / 2);
    const conversation = join(dir, `${id}.jsonl`);
    writeFileSync(conversation, lines.slice(0, half).map((l) => `${l}\n`).join(''));
    writeFileSync(join(home.home, 'part.jsonl'), lines.slice(0, half).map((l) => `${l}\n`).join(''));
    const part = sumTranscript('claude', [join(home.home, 'part.jsonl')]);
    await waitUntil(async () => (await usageReport(home)).total.turns === part.turns.length, { timeoutMs: 15_000, intervalMs: 200, what: 'the first half to be counted' }).catch(async (err: Error) => {
      throw new Error(`${err.message}: ${JSON.stringify((await usageReport(home)).total)} of ${part.turns.length}; file there: ${existsSync(conversation)}; ${readFileSync(join(home.paths.runDir, 'server.log'), 'utf8').slice(-2500)}`);
    });
    const serverPid = (await ls(home)).pid;
    const stopped = await runSwb(['kill-server', '--force'], { home });
    expect(stopped.status).toBe(0);
    await first.waitForExit();
    await waitUntil(() => { try { process.kill(serverPid, 0); return false; } catch { return true; } }, { what: 'the server to end' });
    // While no server runs, the agent's conversation grows.
    appendFileSync(conversation, lines.slice(half).map((l) => `${l}\n`).join(''));

    const second = startSwb({ home, args: ['--config', config], cols: 160 });
    await second.waitForText('restored (resumed)');
    const all = sumTranscript('claude', [MAIN]);
    await waitUntil(async () => (await usageReport(home)).total.turns >= all.turns.length, { timeoutMs: 15_000, intervalMs: 200, what: 'the rest to be counted after the restart' }).catch(async (err: Error) => {
      throw new Error(`${err.message}: ${JSON.stringify((await usageReport(home)).total)} of ${all.turns.length} (${part.turns.length} before); ${readFileSync(join(home.paths.runDir, 'server.log'), 'utf8').slice(-2500)}`);
    });
    const report = await usageReport(home);
    expect(report.total.turns).toBe(all.turns.length);
    expect(report.total.tokens).toEqual(tokensOf(all));
    const row = rowOf(await ls(home), 'agent') as ReturnType<typeof rowOf> & { usage: RowUsageView };
    expect(row.restored).toBe('resumed');
    expect(row.usage).toMatchObject({ turns: all.turns.length, tokens: tokensOf(all) });
  });

  test('a budget reached: a note, the header, an audit line, and the row\'s automatic wakes stopped', async () => {
    const home = createTempHome();
    const budgets = { rows: { agent: { tokens: 1000, action: 'both' } } };
    const { t, id, dir } = await startAgentRow(home, { row: { wake: 'auto' }, config: { usage: { budgets } } });
    expect(rowOf(await ls(home), 'agent').wake).toBe('auto');
    mkdirSync(dir, { recursive: true });
    copyFileSync(MAIN, join(dir, `${id}.jsonl`));
    await t.waitForText('OVER BUDGET, wakes off', { timeoutMs: 15_000 }).catch(async (err: Error) => {
      throw new Error(`${err.message}\nusage: ${JSON.stringify((await usageReport(home)).total)}; file there: ${existsSync(join(dir, `${id}.jsonl`))}; ${readFileSync(join(home.paths.runDir, 'server.log'), 'utf8').slice(-2500)}`);
    });
    await t.waitForText(/@agent reached its budget: .* of 1k tokens; wakes stopped for @agent/);
    const listed = rowOf(await ls(home), 'agent') as ReturnType<typeof rowOf> & { usage: RowUsageView };
    expect(listed.wake).toBe('notify');
    expect(listed.usage.budget).toMatchObject({ level: 'over', scope: 'row', wakesStopped: true });
    const audit = readFileSync(join(home.paths.runDir, 'audit.log'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, string>);
    expect(audit).toEqual([expect.objectContaining({ purpose: 'budget', row: 'agent', scope: 'row', level: 'over', from: 'ok', action: 'wakes stopped for @agent' })]);
  });
});
