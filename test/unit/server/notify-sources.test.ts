// The mapping from the server's sources to notification events, with fakes for the agents, the
// fleet and the operator port: each kind fired once at its source, with its reason, and nothing for
// what is not the operator's business (the operator's own mail, a zero exit, a repeated state).
import { describe, expect, it } from 'vitest';
import type { MailItem } from '../../../src/protocol/methods.js';
import type { BudgetHeld } from '../../../src/hub/send-pipeline.js';
import type { NotifyEvent } from '../../../src/notify/notify-event.js';
import type { AgentNotice, AgentStateEvent } from '../../../src/supervisor/row-agent.js';
import { followNotifySources, isLoopGuardHold, waitingReasonOf, type NotifyingAgent, type NotifyingRow } from '../../../src/server/notify-sources.js';
import { Emitter } from '../../../src/util/event.js';
import { FakeClock } from '../../helpers/fake-clock.js';

class FakeAgent implements NotifyingAgent {
  readonly states = new Emitter<AgentStateEvent>();
  readonly notices = new Emitter<AgentNotice>();
  readonly onStateChange = this.states.event;
  readonly onNotice = this.notices.event;
  constructor(readonly row: string) {}
  state(state: AgentStateEvent['state'], rule: string | null = null, extra: object = {}): void {
    this.states.fire({ row: this.row, state, rule, reason: null, source: 'screen', ...extra });
  }
}

class FakeRow implements NotifyingRow {
  readonly exits = new Emitter<{ exitCode: number }>();
  readonly onExit = this.exits.event;
  constructor(readonly name: string) {}
}

function setup(unread: Record<string, number> = {}) {
  const clock = new FakeClock(1_700_000_000_000);
  const agentAdded = new Emitter<NotifyingAgent>();
  const rowAdded = new Emitter<NotifyingRow>();
  const rowRemoved = new Emitter<{ row: { name: string } }>();
  const mail = new Emitter<MailItem>();
  const held = new Emitter<BudgetHeld>();
  const rows: NotifyingRow[] = [];
  const events: NotifyEvent[] = [];
  const sources = followNotifySources((e) => events.push(e), {
    agents: { onAgent: agentAdded.event },
    fleet: { onAdded: rowAdded.event, onRemoved: rowRemoved.event, list: () => rows },
    port: { onMail: mail.event, onHeld: held.event, unreadCount: (h) => unread[h] ?? 0 },
    clock,
  });
  const agent = (name: string) => {
    const a = new FakeAgent(name);
    agentAdded.fire(a);
    return a;
  };
  const row = (name: string) => {
    const r = new FakeRow(name);
    rowAdded.fire(r);
    return r;
  };
  const mailItem = (from: string, to: string[], text = 'the body'): MailItem => ({ id: 1, messageId: 'm1', from, to, kind: 'msg', text, replyTo: null, createdAt: clock.now() });
  return { clock, events, sources, agent, row, rowRemoved, mail, held, mailItem, unread };
}

describe('notify sources', () => {
  it('a row going into waiting is one event with the reason its screen rule means', () => {
    const t = setup();
    const a = t.agent('api');
    a.state('busy', 'spinner');
    a.state('waiting', 'permission_dialog');
    a.state('waiting', 'permission_dialog');
    a.state('busy', 'spinner');
    a.state('waiting', 'yes_no_question');
    expect(t.events).toEqual([
      { kind: 'waiting', reason: 'permission', row: 'api', at: t.clock.now() },
      { kind: 'waiting', reason: 'question', row: 'api', at: t.clock.now() },
    ]);
  });

  it('a row that keeps waiting but for another reason (permission answered, then a question) notifies again; the same reason does not', () => {
    const t = setup();
    const a = t.agent('api');
    a.state('waiting', 'permission_dialog', { reason: 'permission' });
    a.state('waiting', 'permission_dialog', { reason: 'permission' });
    a.state('waiting', 'permission_dialog', { reason: 'question' });
    a.state('waiting', 'permission_dialog', { reason: 'question' });
    a.state('waiting', 'permission_dialog', { reason: 'permission' });
    a.state('idle', 'prompt');
    a.state('waiting', 'permission_dialog', { reason: 'permission' });
    expect(t.events.map((e) => [e.kind, e.reason])).toEqual([
      ['waiting', 'permission'],
      ['waiting', 'question'],
      ['waiting', 'permission'],
      ['waiting', 'permission'],
    ]);
  });

  it('a reason the state event carries (the hooks) wins over the rule', () => {
    const t = setup();
    t.agent('api').state('waiting', 'permission_dialog', { reason: 'idle-prompt' });
    expect(t.events.map((e) => e.reason)).toEqual(['idle-prompt']);
  });

  it('waitingReasonOf: approvals, permissions, confirmations and trust ask permission; questions and menus are questions; an unknown reason is ignored', () => {
    const ev = (rule: string | null, reason?: string): { rule: string | null; reason?: string } => ({ rule, ...(reason !== undefined ? { reason } : {}) });
    expect(waitingReasonOf(ev('question'))).toBe('question');
    expect(waitingReasonOf(ev('selection_menu'))).toBe('question');
    expect(waitingReasonOf(ev('yes_no_question'))).toBe('question');
    expect(waitingReasonOf(ev('idle_prompt'))).toBe('idle-prompt');
    for (const rule of ['approval_question', 'permission_dialog', 'tool_confirmation', 'trust_folder', 'trust_directory', 'title_action_required', null]) expect(waitingReasonOf(ev(rule))).toBe('permission');
    expect(waitingReasonOf(ev('permission_dialog', 'question'))).toBe('question');
    expect(waitingReasonOf(ev('permission_dialog', 'nonsense'))).toBe('permission');
  });

  it('busy → idle with nothing unread is a turn that ended; with unread mail, or from another state, it is not', () => {
    const t = setup({ queued: 2 });
    const api = t.agent('api');
    api.state('busy', 'spinner');
    api.state('idle', 'prompt');
    const queued = t.agent('queued');
    queued.state('busy', 'spinner');
    queued.state('idle', 'prompt');
    const fresh = t.agent('fresh');
    fresh.state('unknown');
    fresh.state('idle', 'prompt');
    expect(t.events).toEqual([{ kind: 'turn-ended', reason: 'idle', row: 'api', at: t.clock.now() }]);
  });

  it('mail to the operator from anyone but the operator is a mail event about its sender, with the body kept for first-line', () => {
    const t = setup();
    t.mail.fire(t.mailItem('api', ['operator', 'web'], 'done\nsecond'));
    t.mail.fire(t.mailItem('operator', ['operator']));
    t.mail.fire(t.mailItem('api', ['web']));
    expect(t.events).toEqual([{ kind: 'mail', reason: 'to-operator', row: 'api', at: t.clock.now(), body: 'done\nsecond' }]);
  });

  it('a non-zero exit is a row-exited event with its status; a zero exit is not; a removed row is no longer followed', () => {
    const t = setup();
    const api = t.row('api');
    api.exits.fire({ exitCode: 0 });
    api.exits.fire({ exitCode: 2 });
    t.rowRemoved.fire({ row: { name: 'api' } });
    api.exits.fire({ exitCode: 9 });
    expect(t.events).toEqual([{ kind: 'row-exited', reason: 'non-zero', exitCode: 2, row: 'api', at: t.clock.now() }]);
  });

  it('a wake held by the loop guard (the agent’s notice) or the reply budget (the hub’s held event) is wake-held with its reason', () => {
    const t = setup();
    const api = t.agent('api');
    api.notices.fire({ kind: 'error', text: 'wake for @api held back (loop guard); the mail stays unread', row: 'api' });
    api.notices.fire({ kind: 'info', text: 'something else', row: 'api' });
    t.held.fire({ kind: 'pair', sender: 'web', a: 'web', b: 'api', used: 8, limit: 8 });
    t.held.fire({ kind: 'depth', sender: 'db', depth: 16, limit: 16 });
    expect(t.events).toEqual([
      { kind: 'wake-held', reason: 'loop-guard', row: 'api', at: t.clock.now() },
      { kind: 'wake-held', reason: 'reply-budget', row: 'web', at: t.clock.now() },
      { kind: 'wake-held', reason: 'reply-budget', row: 'db', at: t.clock.now() },
    ]);
  });

  it('isLoopGuardHold reads a reason field when the notice has one', () => {
    expect(isLoopGuardHold({ kind: 'error', text: 'held back', row: 'r', reason: 'rate' } as AgentNotice)).toBe(false);
    expect(isLoopGuardHold({ kind: 'info', text: 'x', row: 'r', reason: 'loop-guard' } as AgentNotice)).toBe(true);
  });

  it('once disposed, no source reaches the notifier (agents outlive it)', () => {
    const t = setup();
    const api = t.agent('api');
    const row = t.row('api');
    t.sources.dispose();
    api.state('waiting', 'question');
    row.exits.fire({ exitCode: 1 });
    t.mail.fire(t.mailItem('api', ['operator']));
    t.held.fire({ kind: 'depth', sender: 'db', depth: 16, limit: 16 });
    expect(t.events).toEqual([]);
  });
});
