// The real `swb` watching a Claude-like agent (the scripted fake agent, read with the claude
// profile): its header follows busy and idle, mail that lands during a turn is woken only after the
// turn, never while a permission dialog is open, never over the operator's half-typed draft; the
// wake shows in `swb status`, the audit log and `swb explain`.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { RowExplainResult, SendResult } from '../../src/protocol/methods.js';
import { runCleanups } from '../helpers/cleanup.js';
import { runSwb } from '../helpers/run-swb.js';
import { createTempHome, type TempHome } from '../helpers/temp-home.js';
import { startSwb, type TerminalHarness } from '../helpers/terminal-harness.js';
import { waitUntil } from '../helpers/wait-until.js';

afterEach(runCleanups);

const FAKE_AGENT = new URL('../fixtures/agents/fake-agent.mjs', import.meta.url).pathname;
const WAKE_LINE = 'You have new mail in Switchboard - run `swb inbox` to read it.';
const ATTACH = '\r';
const DETACH = '\x1c'; // Ctrl-\
const LONG_TURN_MS = 3500;

interface AgentEvent {
  event: string;
  at: number;
  line?: string;
  yes?: boolean;
}

function agentEvents(log: string): AgentEvent[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as AgentEvent);
}

const submits = (log: string) => agentEvents(log).filter((e) => e.event === 'submit');

/** Types into the row as the operator: attach (Enter), the keys, detach (Ctrl-\). */
async function typeIntoRow(t: TerminalHarness, keys: string): Promise<void> {
  t.write(ATTACH);
  await t.waitForNoText(/enter attach/); // the attached view has no key hints
  t.write(keys);
  t.write(DETACH);
  await t.waitForText(/enter attach/);
}

async function send(home: TempHome, text: string): Promise<number> {
  const r = await runSwb(['send', '--as', 'tester', '--json', '@agent', text], { home });
  expect(r.stderr).toBe('');
  return (JSON.parse(r.stdout) as SendResult).id;
}

async function explain(home: TempHome): Promise<RowExplainResult> {
  const r = await runSwb(['explain', 'agent', '--json'], { home });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as RowExplainResult;
}

function start(home: TempHome): { t: TerminalHarness; log: string } {
  const log = join(home.home, 'agent-events.ndjson');
  const script = {
    rules: [
      { match: '^long', busyMs: LONG_TURN_MS, reply: 'Long done.' },
      // Woken, it wants to run `swb inbox` and asks for permission first.
      { match: '^You have new mail', dialog: true, command: 'swb inbox', busyMs: 300, reply: 'Read the inbox.' },
    ],
    default: { busyMs: 300, reply: 'Done.' },
  };
  const config = join(home.workspace, 'swb.json');
  writeFileSync(
    config,
    JSON.stringify({
      rows: [
        {
          name: 'agent',
          command: `${process.execPath} ${FAKE_AGENT}`,
          profile: 'claude',
          env: { FAKE_AGENT_SCRIPT_JSON: JSON.stringify(script), FAKE_AGENT_LOG: log },
        },
      ],
    }),
  );
  return { t: startSwb({ home, args: ['--config', config] }), log };
}

describe('agent state and wake', () => {
  test('busy then idle on the header; mail during a turn is typed after it, never into a dialog or over a draft', async () => {
    const home = createTempHome();
    const { t, log } = start(home);
    await t.waitForText('agent · claude · idle');

    // Busy: mail that lands during the turn waits for its end (and the quiet time after it).
    await typeIntoRow(t, 'long task\r');
    await t.waitForText('agent · claude · busy');
    const first = await send(home, 'first mail');
    await t.waitForText(/agent · claude · busy .*✉ 1/);
    expect(submits(log).map((e) => e.line)).toEqual(['long task']);
    await waitUntil(() => submits(log).length === 2, { timeoutMs: 15_000, what: 'the wake line to be submitted' });
    const [long, wake] = submits(log);
    expect(wake!.line).toBe(WAKE_LINE);
    expect(wake!.at - long!.at).toBeGreaterThanOrEqual(LONG_TURN_MS);
    await t.waitForText(`> ${WAKE_LINE}`); // the agent shows the wake line as its input

    // Woken, the agent asks for permission: waiting on the header, and the wake counted as taken.
    await t.waitForText('agent · claude · waiting');
    const status = await runSwb(['status', String(first), '--json'], { home });
    expect(JSON.parse(status.stdout)).toMatchObject({ summary: [{ to: 'agent', state: 'woken' }] });
    expect((await runSwb(['status', String(first)], { home })).stdout).toMatch(/@agent: accepted \(woken\)/);
    const audit = readFileSync(join(home.paths.runDir, 'audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { bytes: string; row: string });
    expect(audit.map((a) => [a.row, a.bytes])).toEqual([
      ['agent', WAKE_LINE],
      ['agent', '\r'],
    ]);

    // Mail while the dialog is open is held: Enter would answer the dialog.
    await send(home, 'second mail');
    await t.waitForText(/agent · claude · waiting .*✉ 2/);
    const held = await waitUntil(async () => {
      const e = await explain(home);
      return e.prompt.reason === 'dialog-open' && e.stillForMs > e.quietMs + 500 && e;
    }, { timeoutMs: 10_000, intervalMs: 250, what: 'the wake to be held over a still dialog' });
    expect(held).toMatchObject({ state: 'waiting', rule: 'permission_dialog', wake: { phase: 'pending' } });
    const why = await runSwb(['explain', 'agent'], { home });
    expect(why.stdout).toMatch(/^agent: waiting \(profile claude\)\n {2}rule: {5}permission_dialog → waiting\n {2}region: {3}bottom 25 .*\n {2}evidence: .*Do you want to proceed\?.*\n {2}quiet: {4}screen still for/);
    expect(submits(log)).toHaveLength(2);

    // The operator answers (Yes) and starts typing a draft: the draft is never touched.
    await typeIntoRow(t, '1half typed');
    await t.waitForText('● Read the inbox.');
    await t.waitForText('> half typed');
    const draft = await waitUntil(async () => {
      const e = await explain(home);
      return e.prompt.reason === 'draft' && e;
    }, { timeoutMs: 10_000, intervalMs: 250, what: 'the operator grace to end with the draft in place' });
    expect(draft).toMatchObject({ state: 'idle', wake: { phase: 'pending' } });
    expect(t.screenText()).toContain('> half typed');
    expect(submits(log)).toHaveLength(2);

    // Clearing the draft (Ctrl-C) frees the prompt: the held mail is woken once the grace is over.
    await typeIntoRow(t, '\x03');
    await waitUntil(() => submits(log).length === 3, { timeoutMs: 12_000, what: 'the held wake' });
    expect(submits(log)[2]!.line).toBe(WAKE_LINE);
  }, 60_000);

  test('an operator attached to the row but not typing does not hold its wake: the typing quiet time does', async () => {
    const home = createTempHome();
    const { t, log } = start(home);
    await t.waitForText('agent · claude · idle');
    t.write(ATTACH);
    await t.waitForNoText(/enter attach/);
    // A key and its erasure: the input is empty again, and the operator stops typing.
    t.write('x');
    t.write('\x7f');
    const typedAt = Date.now();
    await send(home, 'mail while attached');
    await waitUntil(() => submits(log).length === 1, { timeoutMs: 15_000, what: 'the wake, still attached' });
    expect(submits(log)[0]!.line).toBe(WAKE_LINE);
    // Not before the typing quiet time (5 s) had passed since the last key.
    expect(submits(log)[0]!.at - typedAt).toBeGreaterThanOrEqual(4500);
    expect(t.find('enter attach')).toBeNull();
  }, 40_000);

  test('K during the turn a wake started: the wake line the agent gives back as a draft is erased, and the mail waits to be woken again', async () => {
    const home = createTempHome();
    const log = join(home.home, 'agent-events.ndjson');
    const script = { rules: [{ match: '^You have new mail', busyMs: 60_000, reply: 'Read it.', restoreOnInterrupt: true }], default: { busyMs: 300, reply: 'Done.' } };
    const config = join(home.workspace, 'swb.json');
    writeFileSync(
      config,
      JSON.stringify({
        rows: [{ name: 'agent', command: `${process.execPath} ${FAKE_AGENT}`, profile: 'claude', env: { FAKE_AGENT_SCRIPT_JSON: JSON.stringify(script), FAKE_AGENT_LOG: log } }],
      }),
    );
    const t = startSwb({ home, args: ['--config', config] });
    await t.waitForText('agent · claude · idle');
    await send(home, 'read me');
    await waitUntil(() => submits(log).length === 1, { timeoutMs: 15_000, what: 'the wake line submitted' });
    await t.waitForText(/agent · claude · busy/);
    t.write('K');
    await waitUntil(() => agentEvents(log).some((e) => e.event === 'interrupt'), { what: 'the interrupt' });
    const audit = () => readFileSync(join(home.paths.runDir, 'audit.log'), 'utf8');
    await waitUntil(() => /"purpose":"wake-erase"/.test(audit()), { timeoutMs: 10_000, what: 'the restored wake line erased' });
    await t.waitForText(/agent · claude · idle .*✉ 1/);
    const why = await explain(home);
    expect(why.wake).toMatchObject({ phase: 'pending', reason: expect.stringContaining('the operator interrupted the turn the wake started') });
    expect(why.prompt.reason).not.toBe('draft');
  }, 60_000);
});
