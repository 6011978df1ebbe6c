// `rows.explain` and `swb explain`: answered by the dashboard that embeds the hub (its explain
// provider); a headless hub watches no rows and says so; screen evidence goes to the operator and to
// the row itself only.
import { afterEach, describe, expect, it } from 'vitest';
import type { RowExplainResult } from '../../../src/protocol/methods.js';
import { runCleanups } from '../../helpers/cleanup.js';
import { connectClient, connectOperator, startTestHub } from '../../helpers/hub-harness.js';
import { runSwb } from '../../helpers/run-swb.js';
import { createTempHome } from '../../helpers/temp-home.js';

afterEach(runCleanups);

const EXPLAINED: RowExplainResult = {
  row: 'agent',
  profile: 'claude',
  state: 'busy',
  detected: 'busy',
  rule: 'esc_to_interrupt',
  region: 'bottom 2 non-empty lines (rows 20-21)',
  evidence: 'esc to interrupt',
  quietMs: 1500,
  stillForMs: 200,
  idlePending: false,
  exitCode: null,
  warning: null,
  prompt: { free: false, reason: 'not-idle', detail: 'state is busy' },
  wake: { policy: 'auto', phase: 'quiet', reason: '' },
  text: 'agent: busy (profile claude)\n  rule:     esc_to_interrupt → busy',
};

describe('rows.explain', () => {
  it('a headless hub answers NOT_FOUND with a sentence saying no dashboard watches rows', async () => {
    const { paths } = await startTestHub();
    const { client } = await connectOperator(paths);
    await expect(client.request('rows.explain', { row: 'agent' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(/headless \(no swb dashboard\).*cannot explain agent/),
    });
  });

  it('the dashboard’s provider answers the operator and the row itself, not other sessions', async () => {
    const { hub, paths } = await startTestHub();
    const asked: Array<[string, boolean]> = [];
    hub.core.server.setExplainProvider((row, verbose) => {
      asked.push([row, verbose]);
      return { ok: { ...EXPLAINED, row } };
    });
    const reg = hub.core.sessions.registerRow('agent');
    if (!reg.ok) throw new Error(reg.error.message);
    const operator = await connectOperator(paths);
    await expect(operator.client.request('rows.explain', { row: 'agent', verbose: true })).resolves.toMatchObject({ rule: 'esc_to_interrupt' });
    const self = await connectClient(paths, { session: 'agent', token: reg.token });
    await expect(self.client.request('rows.explain', { row: 'agent' })).resolves.toMatchObject({ row: 'agent' });
    await expect(self.client.request('rows.explain', { row: 'other' })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    const visitor = await connectClient(paths, { session: 'visitor' });
    await expect(visitor.client.request('rows.explain', { row: 'agent' })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(asked).toEqual([
      ['agent', true],
      ['agent', false],
    ]);
    hub.core.server.setExplainProvider(null);
    await expect(operator.client.request('rows.explain', { row: 'agent' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('swb explain', () => {
  it('prints the explanation, or the result with --json', async () => {
    const { hub, home } = await startTestHub();
    hub.core.server.setExplainProvider((row) => ({ ok: { ...EXPLAINED, row, text: `${EXPLAINED.text}\n  evidence: \x1b]0;owned\x07esc to interrupt` } }));
    const r = await runSwb(['explain', '@agent'], { home });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('rule:     esc_to_interrupt → busy');
    expect(r.stdout).not.toContain('\x1b'); // screen text is sanitized before it reaches a terminal
    const j = await runSwb(['explain', 'agent', '--json'], { home });
    expect(JSON.parse(j.stdout)).toMatchObject({ row: 'agent', state: 'busy', rule: 'esc_to_interrupt', region: EXPLAINED.region });
  });

  it('against a headless hub it fails with NOT_FOUND and exit 1; with no hub at all it starts none', async () => {
    const { home } = await startTestHub();
    const r = await runSwb(['explain', 'agent'], { home });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^swb explain: NOT_FOUND: This hub runs headless/);

    const empty = createTempHome();
    const none = await runSwb(['explain', 'agent'], { home: empty });
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/NO_HUB/);
  });

  it('rejects a bad row name as a usage error', async () => {
    const home = createTempHome();
    const r = await runSwb(['explain', 'a/b'], { home });
    expect(r.status).toBe(2);
  });
});
