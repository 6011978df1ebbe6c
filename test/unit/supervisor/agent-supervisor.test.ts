// The agent wiring for the whole dashboard, on a fake clock: fake rows drawing captured Claude Code
// screens (their input line follows what is typed into them), a fake mail port, a real audit trail.
import { afterEach, describe, expect, it } from 'vitest';
import { loadProfiles } from '../../../src/agents/load-profiles.js';
import type { AuditEntry, UnreadMail } from '../../../src/agents/wake-controller.js';
import { AgentAuditTrail } from '../../../src/supervisor/agent-audit-trail.js';
import type { AgentMailPort } from '../../../src/supervisor/agent-hub-mail.js';
import { AgentSupervisor } from '../../../src/supervisor/agent-supervisor.js';
import type { AgentNotice, AgentRow, AgentStateEvent, AgentWakeEvent } from '../../../src/supervisor/row-agent.js';
import { defaultWakePolicy } from '../../../src/supervisor/agent-wake-policy.js';
import type { ScreenSnapshot } from '../../../src/rows/screen-snapshot.js';
import { Emitter } from '../../../src/util/event.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { loadScreenFixture } from '../../helpers/screen-fixture.js';

const profiles = loadProfiles({ configDir: '/nonexistent-swb-config' });
const claude = profiles.profiles.get('claude')!;
const WAKE = claude.wakeLine;

type Screen = 'idle' | 'busy' | 'dialog';

/** A Claude-like row on captured screens: typed text shows in the input; Enter starts a turn. */
class FakeRow implements AgentRow {
  readonly changes = new Emitter<void>();
  readonly exits = new Emitter<{ exitCode: number }>();
  readonly restarts = new Emitter<void>();
  readonly onScreenChange = this.changes.event;
  readonly onExit = this.exits.event;
  readonly onRestart = this.restarts.event;
  state: 'running' | 'exited' = 'running';
  screenKind: Screen = 'idle';
  input = '';
  writes: string[] = [];
  snapshots = 0;
  readonly screen = { snapshot: (): ScreenSnapshot => this.snapshot() };

  constructor(readonly name: string) {}

  private snapshot(): ScreenSnapshot {
    this.snapshots++;
    const file = this.screenKind === 'busy' ? 'real-busy.txt' : this.screenKind === 'dialog' ? 'real-permission-dialog.txt' : 'real-idle.txt';
    const s = loadScreenFixture('claude', file).snapshot;
    if (this.screenKind === 'dialog') return s;
    const i = s.lines.findIndex((l) => l.startsWith('❯'));
    const lines = [...s.lines];
    lines[i] = `❯\u00a0${this.input}`;
    return { ...s, lines, cursor: { ...s.cursor, x: 2 + this.input.length, y: i } };
  }

  show(kind: Screen): void {
    this.screenKind = kind;
    this.changes.fire();
  }

  write(bytes: string): void {
    this.writes.push(bytes);
    if (bytes === '\r') {
      this.input = '';
      this.screenKind = 'busy';
    } else this.input += bytes;
    this.changes.fire();
  }
}

class FakeMail implements AgentMailPort {
  readonly unread = new Map<string, UnreadMail>();
  readonly woken: Array<{ handle: string; ids: string[] }> = [];
  private readonly changed = new Emitter<readonly string[]>();
  readonly onUnreadMaybeChanged = this.changed.event;
  unreadOf(handle: string): UnreadMail {
    return this.unread.get(handle) ?? { messageIds: [], maxSeq: 0 };
  }
  recordWake(handle: string, ids: readonly string[]): void {
    this.woken.push({ handle, ids: [...ids] });
  }
  /** New mail for a handle: ids 1..n, unread. */
  deliver(handle: string, ids: number[]): void {
    this.unread.set(handle, { messageIds: ids.map(String), maxSeq: Math.max(...ids) });
    this.changed.fire([handle]);
  }
  readAll(handle: string): void {
    this.unread.delete(handle);
    this.changed.fire([handle]);
  }
}

let sup: AgentSupervisor | undefined;
afterEach(() => sup?.dispose());

function setup() {
  const clock = new FakeClock();
  const mail = new FakeMail();
  const audit = new AgentAuditTrail(null, 10);
  sup = new AgentSupervisor({ profiles, mail, audit, clock });
  const states: AgentStateEvent[] = [];
  const wakes: AgentWakeEvent[] = [];
  const notices: AgentNotice[] = [];
  // Each row's agent fires its own events; the supervisor hands the agents out as rows are tracked.
  sup.onAgent((agent) => {
    agent.onStateChange((e) => states.push(e));
    agent.onWakeResult((e) => wakes.push(e));
    agent.onNotice((n) => notices.push(n));
  });
  sup.onNotice((n) => notices.push(n));
  const tick = async (ms: number) => {
    await Promise.resolve(); // the unread refresh runs in a microtask
    clock.advance(ms);
  };
  return { clock, mail, audit, sup, states, wakes, notices, tick };
}

describe('AgentSupervisor', () => {
  it('reports busy at once and idle only after the profile’s quiet time', async () => {
    const t = setup();
    const row = new FakeRow('claude');
    row.screenKind = 'busy';
    expect(t.sup.track(row, { profile: 'claude' })).toEqual({ policy: 'auto' });
    await t.tick(200);
    expect(t.sup.stateOf('claude')).toEqual({ state: 'busy', rule: 'esc_to_interrupt', reason: null });
    row.show('idle');
    await t.tick(200);
    expect(t.sup.stateOf('claude')!.state).toBe('busy'); // the turn is still finishing
    await t.tick(claude.quietMs);
    expect(t.sup.stateOf('claude')).toEqual({ state: 'idle', rule: 'prompt_box', reason: null });
    expect(t.states.map((s) => s.state)).toEqual(['busy', 'idle']);
  });

  it('mail that arrives while the agent is busy is typed only once the prompt is free, then recorded as woken', async () => {
    const t = setup();
    const row = new FakeRow('claude');
    row.screenKind = 'busy';
    t.sup.track(row, { profile: 'claude' });
    await t.tick(200);
    t.mail.deliver('claude', [7, 8]);
    await t.tick(5000);
    expect(row.writes).toEqual([]);
    expect(t.sup.explain('claude')).toMatchObject({ ok: { state: 'busy', prompt: { free: false, reason: 'not-idle' }, wake: { phase: 'pending' } } });

    row.show('idle');
    await t.tick(claude.quietMs + 300);
    expect(row.writes).toEqual([WAKE]);
    await t.tick(claude.submitDelayMs + 200);
    expect(row.writes).toEqual([WAKE, '\r']);
    await t.tick(300);
    expect(t.mail.woken).toEqual([{ handle: 'claude', ids: ['7', '8'] }]);
    expect(t.wakes).toEqual([{ row: 'claude', ok: true, messageIds: ['7', '8'], reason: '' }]);
    expect(t.audit.lines().map((l) => l.replace(/^\S+ /, ''))).toEqual([
      `claude wake-line#1 ${JSON.stringify(WAKE)} (mail 7, 8)`,
      'claude wake-submit#1 "\\r" (mail 7, 8)',
    ]);

    // The same unread mail does not wake it again; newer mail does, once the turn is over.
    t.mail.deliver('claude', [7, 8]);
    row.show('idle');
    await t.tick(claude.quietMs + 1000);
    expect(row.writes).toHaveLength(2);
  });

  it('mail while a permission dialog is open is not typed (Enter would answer the dialog)', async () => {
    const t = setup();
    const row = new FakeRow('claude');
    row.screenKind = 'dialog';
    t.sup.track(row, { profile: 'claude' });
    await t.tick(200);
    expect(t.sup.stateOf('claude')).toEqual({ state: 'waiting', rule: 'permission_dialog', reason: null });
    t.mail.deliver('claude', [1]);
    await t.tick(60_000);
    expect(row.writes).toEqual([]);
    const r = t.sup.explain('claude');
    expect(r).toMatchObject({ ok: { state: 'waiting', rule: 'permission_dialog', prompt: { free: false, reason: 'dialog-open' } } });
    expect('ok' in r && r.ok.text).toContain('prompt:   not free (dialog-open');
  });

  it('a half-typed draft in the input is never touched', async () => {
    const t = setup();
    const row = new FakeRow('claude');
    row.input = 'refactor the par';
    t.sup.track(row, { profile: 'claude' });
    await t.tick(claude.quietMs + 200);
    expect(t.sup.stateOf('claude')!.state).toBe('idle');
    t.mail.deliver('claude', [1]);
    await t.tick(60_000);
    expect(row.writes).toEqual([]);
    expect(t.sup.explain('claude')).toMatchObject({ ok: { prompt: { free: false, reason: 'draft' } } });
  });

  it('keystrokes of the attached operator hold wakes off for the typing quiet time only, not while they stay attached', async () => {
    const t = setup();
    const row = new FakeRow('claude');
    t.sup.track(row, { profile: 'claude' });
    await t.tick(claude.quietMs + 200);
    t.sup.agentOf('claude')!.operatorTyped();
    t.mail.deliver('claude', [1]);
    await t.tick(2000);
    expect(row.writes).toEqual([]);
    expect(t.sup.explain('claude')).toMatchObject({ ok: { wake: { phase: 'pending', reason: expect.stringMatching(/^the operator typed here \d+ ms ago/) } } });
    // Still attached, no key for more than the quiet time: the wake goes in.
    await t.tick(5000);
    expect(row.writes).toEqual([WAKE, '\r']);
  });

  it('a burst of screen changes costs one snapshot per interval, not one per change', async () => {
    const t = setup();
    const row = new FakeRow('claude');
    t.sup.track(row, { profile: 'claude' });
    const before = row.snapshots;
    for (let i = 0; i < 100; i++) row.changes.fire();
    await t.tick(100);
    expect(row.snapshots - before).toBe(1);
  });

  it('an exit is final for the incarnation; a restart starts a fresh agent that is told the unread mail', async () => {
    const t = setup();
    const row = new FakeRow('claude');
    t.sup.track(row, { profile: 'claude' });
    await t.tick(claude.quietMs + 200);
    row.state = 'exited';
    row.exits.fire({ exitCode: 3 });
    expect(t.sup.stateOf('claude')!.state).toBe('exited');
    expect(t.sup.explainText('claude')).toContain('process exited with code 3');
    t.mail.deliver('claude', [4]);
    await t.tick(10_000);
    expect(row.writes).toEqual([]);

    row.state = 'running';
    row.restarts.fire();
    expect(t.states.at(-1)).toEqual({ row: 'claude', state: 'unknown', rule: null, reason: null, source: 'screen' });
    await t.tick(claude.quietMs + 500);
    expect(t.sup.stateOf('claude')!.state).not.toBe('exited');
    expect(row.writes[0]).toBe(WAKE);
  });

  it('mail read before the prompt frees up cancels the pending wake', async () => {
    const t = setup();
    const row = new FakeRow('claude');
    row.screenKind = 'busy';
    t.sup.track(row, { profile: 'claude' });
    await t.tick(200);
    t.mail.deliver('claude', [1]);
    await t.tick(100);
    t.mail.readAll('claude');
    row.show('idle');
    await t.tick(claude.quietMs + 2000);
    expect(row.writes).toEqual([]);
  });

  it('an unknown profile is a visible warning, never another agent’s rules: state unknown, never woken', async () => {
    const t = setup();
    const row = new FakeRow('mystery');
    expect(t.sup.track(row, { profile: 'nonesuch', wake: 'auto' })).toEqual({ policy: 'off' });
    expect(t.notices).toEqual([{ kind: 'error', row: 'mystery', text: expect.stringContaining('no agent profile "nonesuch"') }]);
    t.mail.deliver('mystery', [1]);
    await t.tick(60_000);
    expect(t.sup.stateOf('mystery')!.state).toBe('unknown');
    expect(row.writes).toEqual([]);
    expect(t.sup.explainText('mystery')).toContain('warning: no agent profile "nonesuch"');
  });

  it('a row without a profile gets no agent and cannot be explained', () => {
    const t = setup();
    expect(t.sup.track(new FakeRow('plain'), {})).toBeNull();
    expect(t.sup.explain('plain')).toMatchObject({ error: { code: 'NOT_FOUND' } });
    expect(t.sup.setPolicy('plain', 'auto')).toBeUndefined();
  });

  it('the wake policy changes live: notify and off type nothing, back to auto wakes for newer mail', async () => {
    const t = setup();
    const row = new FakeRow('claude');
    t.sup.track(row, { profile: 'claude' });
    await t.tick(claude.quietMs + 200);
    expect(t.sup.setPolicy('claude', 'notify')).toBe('notify');
    t.mail.deliver('claude', [1]);
    await t.tick(5000);
    expect(t.sup.setPolicy('claude', 'off')).toBe('off');
    t.mail.deliver('claude', [1, 2]);
    await t.tick(5000);
    expect(row.writes).toEqual([]);
    expect(t.sup.setPolicy('claude', 'auto')).toBe('auto');
    await t.tick(1000);
    expect(row.writes).toEqual([WAKE, '\r']);
    expect(t.mail.woken).toEqual([{ handle: 'claude', ids: ['1', '2'] }]);
  });

  it('explain names the deciding rule, the region it read, the evidence and the quiet time', async () => {
    const t = setup();
    const row = new FakeRow('claude');
    row.screenKind = 'busy';
    t.sup.track(row, { profile: 'claude' });
    await t.tick(200);
    const r = t.sup.explain('claude', true);
    if (!('ok' in r)) throw new Error(r.error.message);
    expect(r.ok).toMatchObject({ row: 'claude', profile: 'claude', state: 'busy', rule: 'esc_to_interrupt', quietMs: claude.quietMs });
    expect(r.ok.region).toMatch(/bottom 2/);
    expect(r.ok.evidence).toContain('esc to interrupt');
    expect(r.ok.tried!.at(-1)).toMatchObject({ rule: 'esc_to_interrupt', matched: true });
    expect(r.ok.text).toContain('rule:     esc_to_interrupt → busy');
    expect(r.ok.text).toContain('quiet:    screen still for');
  });
});

describe('wake policy defaults', () => {
  it('agents auto, shells notify, the config wins, unknown profiles off; w cycles auto → notify → off → auto', () => {
    expect(defaultWakePolicy('claude', { known: true })).toBe('auto');
    expect(defaultWakePolicy('bash', { known: true })).toBe('notify');
    expect(defaultWakePolicy('sh', { known: true, configured: 'auto' })).toBe('auto');
    expect(defaultWakePolicy('x', { known: false, configured: 'auto' })).toBe('off');
  });
});

describe('AgentAuditTrail', () => {
  it('keeps the newest entries, sanitized, and writes each to the log first', () => {
    const written: AuditEntry[] = [];
    const trail = new AgentAuditTrail({ append: (e) => written.push(e) }, 2);
    const e = (bytes: string): AuditEntry => ({ at: 0, row: 'r\x1b[31m', bytes, purpose: 'wake-line', messageIds: ['1'], attempt: 1 });
    trail.append(e('a'));
    trail.append(e('b'));
    trail.append(e('c'));
    expect(written).toHaveLength(3);
    expect(trail.lines()).toEqual([
      '1970-01-01T00:00:00.000Z r␛ wake-line#1 "b" (mail 1)',
      '1970-01-01T00:00:00.000Z r␛ wake-line#1 "c" (mail 1)',
    ]);
  });
});

describe('AgentSupervisor.interrupt', () => {
  /** A tracked Claude row that is busy, with its interrupt on the way (not awaited). */
  async function busyAndInterrupted(waitMs?: number) {
    const t = setup();
    const row = new FakeRow('claude');
    row.screenKind = 'busy';
    t.sup.track(row, { profile: 'claude' });
    await t.tick(200);
    let settled: Awaited<ReturnType<AgentSupervisor['interrupt']>> | null = null;
    const done = t.sup.interrupt('claude', waitMs).then((r) => (settled = r ?? null));
    return { t, row, done, settled: () => settled };
  }

  it('answers as soon as the agent leaves busy, without waiting out its deadline', async () => {
    const { t, row, done, settled } = await busyAndInterrupted(60_000);
    await t.tick(1000);
    expect(settled()).toBeNull(); // still busy: still waiting
    row.show('idle');
    await t.tick(claude.quietMs + 200);
    await done;
    expect(settled()).toEqual({ key: claude.interruptKey, sent: true, before: 'busy', after: 'idle', leftBusy: true });
    expect(t.clock.pendingTimers).toBe(0); // the deadline went with the wait
  });

  it('gives up at its deadline on the clock when the agent stays busy', async () => {
    const { t, done, settled } = await busyAndInterrupted(5000);
    await t.tick(4999);
    await Promise.resolve();
    expect(settled()).toBeNull();
    await t.tick(1);
    await done;
    expect(settled()).toMatchObject({ sent: true, before: 'busy', after: 'busy', leftBusy: false });
  });

  it('stops waiting when the row is untracked meanwhile', async () => {
    const { t, done, settled } = await busyAndInterrupted(60_000);
    t.sup.untrack('claude');
    await done;
    expect(settled()).toMatchObject({ sent: true, before: 'busy', leftBusy: false });
  });
});
