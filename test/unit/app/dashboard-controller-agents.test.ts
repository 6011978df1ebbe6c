// The controller's agent side against a real hub and a real row: detected states reach the row's
// view, `e` explains the focused row, `w` cycles its wake policy with a notification, `a` shows the
// audit view, and a failed wake marks the row.
import { afterEach, describe, expect, it } from 'vitest';
import { loadProfiles } from '../../../src/agents/load-profiles.js';
import { AgentAuditTrail } from '../../../src/supervisor/agent-audit-trail.js';
import { AgentSupervisor } from '../../../src/supervisor/agent-supervisor.js';
import { deferCleanup, runCleanups } from '../../helpers/cleanup.js';
import { startTestController } from '../../helpers/controller-harness.js';
import { connectClient } from '../../helpers/hub-harness.js';
import { waitUntil } from '../../helpers/wait-until.js';

afterEach(runCleanups);

async function setup() {
  let agents!: AgentSupervisor;
  const t = await startTestController((_hub, port) => {
    agents = new AgentSupervisor({
      profiles: loadProfiles({ configDir: '/nonexistent-swb-config' }),
      mail: port,
      audit: new AgentAuditTrail(null),
    });
    return { agents, auditLogPath: '/run/x/audit.log' };
  });
  deferCleanup('agent supervisor', () => agents.dispose());
  return { ...t, agents };
}

/** A shell-like row: prints a `$ ` prompt and waits (the sh profile reads it as idle). */
const PROMPT_ROW = { file: '/bin/sh', args: ['-c', 'printf "ready$ "; sleep 30'] };

describe('DashboardController agents', () => {
  it('a row with a profile shows its detected state and rule; e explains it; w picks the policy', async () => {
    const t = await setup();
    t.fleet.add({ name: 'sh1', command: PROMPT_ROW, profile: 'sh' }, { cols: 40, rows: 5 });
    expect(t.store.getState().rows[0]).toMatchObject({ wakePolicy: 'notify' });
    await waitUntil(() => t.store.getState().rows[0]!.agentState === 'idle', { what: 'idle', timeoutMs: 5000 });
    expect(t.store.getState().rows[0]!.stateRule).toBe('prompt_at_cursor');

    t.controller.action('explain');
    expect(t.store.getState().overlay).toBe('explain');
    expect(t.store.getState().explainText).toMatch(/^sh1: idle \(profile sh\)\n {2}rule: {5}prompt_at_cursor → idle/);

    // A picker, not a cycle: nothing changes until the operator chooses (cycling passed through auto).
    t.controller.action('wakePolicy');
    expect(t.store.getState()).toMatchObject({ overlay: 'wakePolicy', wakePick: 'sh1' });
    expect(t.agents.policyOf('sh1')).toBe('notify');
    t.controller.rows.pickWakePolicy('off');
    expect(t.store.getState().rows[0]!.wakePolicy).toBe('off');
    expect(t.store.getState().strip!.text).toBe('wake policy of @sh1: off (never woken; its mail still shows here)');
    // Choosing auto with unread mail says it will wake now.
    const { client } = await connectClient(t.paths, { session: 'tester' });
    await client.request('mail.send', { to: ['sh1'], text: 'news' });
    t.controller.action('wakePolicy');
    t.controller.rows.pickWakePolicy('auto');
    expect(t.agents.policyOf('sh1')).toBe('auto');
    expect(t.store.getState().strip!.text).toBe('wake policy of @sh1: auto (it has 1 unread, so it is woken as soon as its prompt is free)');
    t.controller.action('wakePolicy');
    t.controller.rows.pickWakePolicy(null);
    expect(t.store.getState().overlay).toBeNull();
    expect(t.agents.policyOf('sh1')).toBe('auto');
  });

  it('a row without a profile is not detected and explains why', async () => {
    const t = await setup();
    t.fleet.add({ name: 'plain', command: PROMPT_ROW }, { cols: 40, rows: 5 });
    t.controller.action('explain');
    expect(t.store.getState().explainText).toMatch(/^plain has no agent profile/);
    t.controller.action('wakePolicy');
    expect(t.store.getState().strip!.text).toBe('plain has no agent profile: it is never woken');
  });

  it('a shows the audit view with the log’s path; a failed wake marks the row', async () => {
    const t = await setup();
    t.fleet.add({ name: 'sh1', command: PROMPT_ROW, profile: 'sh' }, { cols: 40, rows: 5 });
    t.controller.action('auditLog');
    expect(t.store.getState().overlay).toBe('audit');
    expect(t.store.getState().explainText).toContain('(full log: /run/x/audit.log)');
    expect(t.store.getState().explainText).toContain('Nothing typed into any row yet.');
    t.controller.mirror.wakeResult('sh1', false, 'the typed wake line never showed in the input');
    expect(t.store.getState().rows[0]!.wakeFailed).toBe(true);
  });

  it('closing a row stops watching it', async () => {
    const t = await setup();
    t.fleet.add({ name: 'sh1', command: PROMPT_ROW, profile: 'sh' }, { cols: 40, rows: 5 });
    expect(t.agents.has('sh1')).toBe(true);
    t.controller.action('close');
    // Its program runs: the operator is asked first.
    expect(t.store.getState()).toMatchObject({ overlay: 'confirm', confirm: { action: 'close', row: 'sh1' } });
    expect(t.agents.has('sh1')).toBe(true);
    t.controller.rows.confirmRow(true);
    expect(t.agents.has('sh1')).toBe(false);
    expect(t.store.getState().closed).toEqual([expect.objectContaining({ name: 'sh1', profile: 'sh' })]);
  });
});
