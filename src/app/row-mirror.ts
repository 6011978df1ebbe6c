// Mirrors the server's rows into this client's app store: the rows running now and those that
// come, go and come back, their exits, restarts, titles, unread counts, wake policies, git state,
// notification mutes, their agents' states and usage. The one place a client hears the row fleet and the agent supervisor
// (onStateChange, onWakeResult, onNotice), so a change to those events is one change here.
import type { OperatorPort } from '../hub/operator-port.js';
import { exitReason } from '../rows/exit-reason.js';
import type { Row, RowSpec } from '../rows/row.js';
import { describeCommand, restoredMark } from '../supervisor/row-fleet.js';
import { sanitize } from '../text/sanitize.js';
import { DisposableMap } from '../util/disposable-map.js';
import { DisposableStore, type Disposable } from '../util/lifecycle.js';
import type { ClosedRow, RowView } from './app-state.js';
import type { AppStore } from './app-store.js';
import type { ClientDesk } from './client-desk.js';
import type { NoteStrip } from './note-strip.js';

export interface RowMirrorOptions {
  store: AppStore;
  desk: ClientDesk;
  port: OperatorPort;
  notes: NoteStrip;
  /** The attached row went away (closed, or exited: then the input router must let go too). */
  attachedGone: (exited: boolean) => void;
}

export class RowMirror implements Disposable {
  private readonly lifetime = new DisposableStore();
  private readonly perRow = this.lifetime.add(new DisposableMap<string, DisposableStore>());

  constructor(private readonly o: RowMirrorOptions) {
    const { store, desk, port, notes } = o;
    const { fleet } = desk;
    const note = notes.note;
    this.lifetime.add(port.onUnreadMaybeChanged((handles) => handles.forEach((h) => this.refreshUnread(h))));
    // Each row's agent is followed with its row (follow); the supervisor's own notes come from here.
    if (fleet.agents) this.lifetime.add(fleet.agents.onNotice((n) => note(n.kind, n.text, n.row)));
    // Rows are the server's: this client shows the ones running now and follows what comes and goes.
    this.lifetime.add(fleet.onAdded((row) => this.show(row)));
    this.lifetime.add(fleet.onRemoved(({ row, closed }) => this.hide(row, closed.at)));
    this.lifetime.add(fleet.onReopened((name) => store.rowReopened(name)));
    this.lifetime.add(fleet.onPolicy((p) => store.updateRow(p.row, { wakePolicy: p.policy })));
    this.lifetime.add(fleet.onOrigin((name) => fleet.has(name) && store.updateRow(name, { restored: restoredMark(fleet.originOf(name)) })));
    this.lifetime.add(fleet.onNotice((n) => note(n.kind, n.text, n.row)));
    if (desk.worktrees) this.lifetime.add(desk.worktrees.onStatus((s) => store.updateRow(s.row, { git: s.status })));
    if (desk.mutes) this.lifetime.add(desk.mutes.onMuted((m) => fleet.has(m.row) && store.updateRow(m.row, { muted: m.muted })));
    if (desk.usage) {
      this.lifetime.add(desk.usage.onUsage((u) => fleet.has(u.row) && store.updateRow(u.row, { usage: u.usage })));
      this.lifetime.add(desk.usage.onNote((n) => note(n.kind, n.text, n.row)));
    }
    for (const c of [...fleet.closed()].reverse()) store.rowClosed(closedView(c.spec, c.at));
    for (const row of fleet.list()) this.show(row);
  }

  /**
   * The wake controller could not nudge a row (or recovered): the row's header says so and a failure
   * shows as a notification like any delivery problem.
   */
  wakeResult(row: string, ok: boolean, reason = ''): void {
    if (!this.o.desk.fleet.has(row)) return;
    this.o.store.updateRow(row, { wakeFailed: !ok });
    if (!ok) this.o.notes.note('error', `wake failed for @${row}${reason ? `: ${sanitize(reason, { singleLine: true, maxChars: 200 })}` : ''}`, row);
  }

  private refreshUnread(handle: string): void {
    if (this.o.desk.fleet.has(handle)) this.o.store.updateRow(handle, { unread: this.o.port.unreadCount(handle) });
  }

  /** Why the row's agent is in its state, for the explain view. */
  explainText(name: string): string {
    return explainRowText(this.o.desk, name);
  }

  private refreshExplain(): void {
    const { store } = this.o;
    const focused = store.getState().focused;
    if (focused) store.openOverlay('explain', this.explainText(focused));
  }

  /** Mirrors a row of the fleet into this client's view and follows its changes. */
  private show(row: Row): void {
    const { spec } = row;
    const { fleet } = this.o.desk;
    const agent = fleet.agents?.stateOf(row.name);
    const origin = fleet.originOf(row.name);
    const view: RowView = {
      name: row.name,
      profile: spec.profile ?? null,
      command: describeCommand(spec),
      running: row.state === 'running',
      exitCode: row.exit?.exitCode ?? null,
      exitSignal: row.exit?.signal ?? null,
      agentState: row.state === 'exited' ? 'exited' : (agent?.state ?? null),
      stateRule: agent?.rule ?? null,
      waitingReason: agent?.reason ?? null,
      unread: this.o.port.unreadCount(row.name),
      lastOutputAt: row.lastOutputAt,
      title: '',
      wakePolicy: fleet.policyOf(row.name) ?? 'notify',
      wakeFailed: false,
      incarnation: row.incarnation,
      restored: restoredMark(origin),
      git: this.o.desk.worktrees?.statusOf(row.name) ?? null,
      muted: this.o.desk.mutes?.muted(row.name) ?? false,
      usage: this.o.desk.usage?.usageOf(row.name) ?? null,
      ...(row.state === 'exited' ? { exitedAt: row.lastOutputAt || Date.now() } : {}),
    };
    this.o.store.addRow(view);
    this.perRow.set(row.name, this.follow(row));
    if (origin.kind === 'restored' && origin.note) this.o.notes.noteFrom(origin.noteAt ?? Date.now(), origin.note, row.name);
  }

  private hide(row: Row, at: number): void {
    const { store } = this.o;
    this.perRow.delete(row.name);
    if (store.getState().attached === row.name) this.o.attachedGone(false);
    store.removeRow(row.name);
    store.rowClosed(closedView(row.spec, at));
  }

  private follow(row: Row): DisposableStore {
    const d = new DisposableStore();
    const { store } = this.o;
    d.add(row.onTitleChange((title) => store.updateRow(row.name, { title: sanitize(title, { singleLine: true, maxChars: 120 }) })));
    const agent = this.o.desk.fleet.agents?.agentOf(row.name);
    if (agent) {
      d.add(
        agent.onStateChange((e) => {
          store.updateRow(e.row, { agentState: e.state, stateRule: e.rule, waitingReason: e.reason });
          if (store.getState().overlay === 'explain' && store.getState().focused === e.row) this.refreshExplain();
        }),
      );
      d.add(agent.onWakeResult((e) => this.wakeResult(e.row, e.ok, e.reason)));
      d.add(agent.onNotice((n) => this.o.notes.note(n.kind, n.text, n.row)));
    }
    d.add(
      row.onExit((exit) => {
        // Keys would go to a program that is gone: back to the dashboard, and say why.
        const wasAttached = store.getState().attached === row.name;
        if (wasAttached) this.o.attachedGone(true);
        store.updateRow(row.name, { running: false, exitCode: exit.exitCode, exitSignal: exit.signal ?? null, agentState: 'exited', exitedAt: Date.now() });
        const reason = exitReason(exit, row.spec);
        const how = exit.signal ? ` on signal ${exit.signal}` : ` with status ${exit.exitCode}${reason ? ` (${sanitize(reason, { singleLine: true, maxChars: 120 })})` : ''}`;
        store.notify('info', `${row.name} exited${how}${wasAttached ? '; detached, back to the dashboard' : ''}`, row.name);
      }),
    );
    d.add(
      row.onRestart(() => {
        store.updateRow(row.name, {
          running: true,
          exitCode: null,
          exitSignal: null,
          agentState: null,
          incarnation: row.incarnation,
          command: describeCommand(row.spec),
          // (Its restored mark follows the fleet's onOrigin, told before the restart.)
        });
      }),
    );
    return d;
  }

  dispose(): void {
    this.lifetime.dispose();
  }
}

/** Why a row's agent is in its state: the explain view's text (every client's, the page's too). */
export function explainRowText(desk: Pick<ClientDesk, 'fleet'>, name: string): string {
  const agents = desk.fleet.agents;
  if (!agents) return `${name}: state detection is off in this dashboard.`;
  if (!agents.has(name)) {
    return `${name} has no agent profile, so nothing detects its state and it is never woken.\nGive it one with a profile name as the row (swb claude) or "profile" in the config's rows[].`;
  }
  return agents.explainText(name);
}

export function closedView(spec: RowSpec, at: number): ClosedRow {
  return { name: spec.name, command: describeCommand(spec), profile: spec.profile ?? null, at };
}
