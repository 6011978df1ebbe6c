// The scripted fake agent (test/fixtures/agents/fake-agent.mjs) run in a real pty and emulated
// screen, read through the claude profile: the double the e2e tests rely on must look like Claude.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/util/clock.js';
import { detectState } from '../../../src/agents/detect-state.js';
import { loadProfiles } from '../../../src/agents/load-profiles.js';
import { readPromptInput } from '../../../src/agents/prompt-input.js';
import { agentOnRow, headlessAgentRow } from '../../helpers/fake-agent-row.js';
import { runHeadless, type HeadlessRun } from '../../helpers/headless-screen.js';

const claude = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles.get('claude')!;
const FAKE = new URL('../../fixtures/agents/fake-agent.mjs', import.meta.url).pathname;

let run: HeadlessRun | undefined;
let dir: string | undefined;
afterEach(async () => {
  // The agent writes its event log until it is gone: removing the dir before that raced it (ENOTEMPTY).
  if (run) {
    run.kill();
    await run.exited;
  }
  run = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  dir = undefined;
});

function start(script: unknown): { run: HeadlessRun; logFile: string } {
  dir = mkdtempSync(join(tmpdir(), 'swb-fake-agent-'));
  const logFile = join(dir, 'events.ndjson');
  run = runHeadless(process.execPath, [FAKE], {
    cols: 90,
    rows: 24,
    env: { ...process.env, FAKE_AGENT_SCRIPT_JSON: JSON.stringify(script), FAKE_AGENT_LOG: logFile },
  });
  return { run, logFile };
}

const has = (text: string) => (s: { lines: string[] }) => s.lines.some((l) => l.includes(text));

describe('fake agent', () => {
  it('shows an idle prompt with a dim placeholder, echoes a draft, runs a busy turn and a permission dialog', async () => {
    const { run, logFile } = start({
      rules: [
        { match: '^work', busyMs: 800, reply: 'Worked.' },
        { match: '^deploy', dialog: true, busyMs: 300, reply: 'Deployed.' },
      ],
    });
    const ready = await run.waitFor(has('FAKE-AGENT-READY'), 10_000, 'ready marker');
    expect(detectState(ready, claude).state).toBe('idle');
    expect(readPromptInput(ready, claude)).toMatchObject({ found: true, isEmpty: true, cursorOnInput: true, dialogOpen: false });

    run.write('work now');
    const draft = await run.waitFor(has('> work now'), 5000, 'draft echo');
    expect(readPromptInput(draft, claude)).toMatchObject({ found: true, isEmpty: false, text: 'work now' });

    run.write('\r');
    const busy = await run.waitFor(has('esc to interrupt'), 5000, 'busy');
    expect(detectState(busy, claude)).toMatchObject({ state: 'busy', ruleId: 'esc_to_interrupt' });
    // The screen the turn ends on reads idle (judged on a settled screen, not on whatever chunk came last).
    const ended = await run.waitFor(has('● Worked.'), 5000, 'turn end');
    expect(detectState(ended, claude).state).toBe('idle');

    run.write('deploy it\r');
    const dialog = await run.waitFor(has('Do you want to proceed?'), 5000, 'dialog');
    expect(detectState(dialog, claude)).toMatchObject({ state: 'waiting', ruleId: 'permission_dialog' });
    expect(readPromptInput(dialog, claude).dialogOpen).toBe(true);
    run.write('1');
    await run.waitFor(has('● Deployed.'), 5000, 'deployed');

    const events = readFileSync(logFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: string; line?: string });
    expect(events.filter((e) => e.event === 'submit').map((e) => e.line)).toEqual(['work now', 'deploy it']);
  });

  it('is woken by the wake controller once its turn ends, and the wake line arrives as typed', async () => {
    const { run, logFile } = start({ rules: [{ match: '^long', busyMs: 1500, reply: 'Long done.' }], default: { busyMs: 400, reply: 'Reading inbox.' } });
    await run.waitFor(has('FAKE-AGENT-READY'), 10_000, 'ready marker');
    const writes: string[] = [];
    const agent = agentOnRow({
      row: headlessAgentRow(run, 'fake', (b) => {
        writes.push(b);
        run.write(b);
      }),
      profile: { ...claude, quietMs: 600 },
      clock: systemClock,
    });
    try {
      run.write('long task\r');
      await run.waitFor(has('esc to interrupt'), 5000, 'busy');
      agent.flushScreen(); // the agent has seen the turn begin when the mail comes
      agent.setUnread({ messageIds: ['m1'], maxSeq: 1 });
      const woken = new Promise<string[]>((resolve) => agent.onWakeResult((e) => e.ok && resolve(e.messageIds)));
      await run.waitFor(has('● Long done.'), 10_000, 'turn end');
      expect(writes).toEqual([]);
      expect(await woken).toEqual(['m1']);
      await run.waitFor(has('● Reading inbox.'), 10_000, 'wake turn');
      const submits = readFileSync(logFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: string; line?: string }).filter((e) => e.event === 'submit');
      expect(submits.map((e) => e.line)).toEqual(['long task', claude.wakeLine]);
      expect(writes).toEqual([claude.wakeLine, '\r']);
    } finally {
      agent.dispose();
    }
  });
});
