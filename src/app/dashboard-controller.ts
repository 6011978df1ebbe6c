// The seam between the world below (rows, hub, store) and the UI: it turns row and hub events
// into app-store actions and carries out the UI's intents. Nothing here draws.
import { exitReason } from '../rows/exit-reason.js';
import type { ActionName } from '../config/keymap.js';
import type { BudgetHeld } from '../hub/hub.js';
import type { OperatorPort } from '../hub/operator-port.js';
import { OPERATOR } from '../protocol/handle.js';
import type { Row } from '../rows/row.js';
import type { RowManager } from '../rows/row-manager.js';
import type { RowSpec } from '../rows/row.js';
import { describeCommand, restoredMark, type RowFleet } from '../supervisor/row-fleet.js';
import { sanitize } from '../text/sanitize.js';
import { describeSkipped, type SkippedFile } from '../worktree/skipped-files.js';
import { DisposableStore, toDisposable, type Disposable } from '../util/lifecycle.js';
import type { AgentSupervisor } from '../supervisor/agent-supervisor.js';
import { runningCount, type ClosedRow, type NoteKind, type RowView, type WakePolicy } from './app-state.js';
import type { AppStore } from './app-store.js';
import { ComposerController } from './composer-controller.js';
import { PasteController, pasteTargetIn, type PasteBufferPort } from './paste-controller.js';
import type { MentionBinding } from './composer-state.js';
import type { Intents, NewRowRequest } from './intents.js';
import type { Event } from '../util/event.js';
import type { MouseEvent } from './intents.js';
import { MailViewController } from './mail-view-controller.js';
import { neighbour } from './layout.js';
import type { Layout } from './layout.js';

/** How long a note stays on the strip: information briefly, mail and problems longer. */
const STRIP_AGE_MS = { info: 8_000, news: 60_000 };

/** Two clicks on one row this close together attach it. */
const DOUBLE_CLICK_MS = 400;

/** Overlays whose lists the mouse wheel scrolls (as j / k). */
const SCROLLING_OVERLAYS: ReadonlySet<string> = new Set(['history', 'mail', 'notifications', 'review']);

/** How many audit entries the audit view shows. */
const AUDIT_VIEW_ENTRIES = 100;

export interface ControllerOptions {
  store: AppStore;
  /** The server's rows, shared by every client (this controller mirrors them into its store). */
  fleet: RowFleet;
  /** The mail core, through the one operator port. */
  port: OperatorPort;
  themeNames: readonly string[];
  /** The current layout (the painter computes and caches it). */
  layout: () => Layout;
  onQuit: () => void;
  /** The operator leaves this dashboard; the rows run on (absent: leaving is quitting). */
  onLeave?: () => void;
  onAttach: (row: Row) => void;
  /** A row's screen changed (the painter decides when to draw it). */
  onRowScreen: (row: Row) => void;
  /** The attached row's program wrote `chunk`, not parsed yet (Row.onOutput). */
  onRowOutput?: (row: Row, chunk: Buffer) => void;
  /** Lines kept under an attached row for its status line (0: the row takes the whole terminal). */
  attachedStatusLines?: number;
  /** The attached row is left without the detach key (it exited): the input router must let go too. */
  onDetach?: () => void;
  /** How long a note stays on the strip (default 8 s for information, 60 s for mail and problems). */
  stripAgeMs?: { info: number; news: number };
  /** Close the composer once a message is accepted (default: it stays open). */
  composerCloseAfterSend?: boolean;
  /** The key shown when a row is closed, for reopening it (the keymap's reopen). */
  reopenKey?: string;
  /** The key shown in the held-pair notification for granting another budget (the keymap's grantBudget). */
  grantKey?: string;
  /** Worktree rows' git state (the server's board), for their headers. */
  worktrees?: { statusOf(name: string): RowView['git']; onStatus: Event<{ row: string; status: NonNullable<RowView['git']> }> };
  /** Starts a row in a worktree of its own (`branch` '' for the default swb/<name>). */
  startWorktree?: (spec: RowSpec, branch: string, size: { cols: number; rows: number }) => Promise<{ path: string; branch: string; skipped?: SkippedFile[] } | { problem: string }>;
  /** Keys for Ink as if typed (the mouse wheel over a scrolling overlay). */
  injectKeys?: (keys: string) => void;
  /** Copies text for the operator: to the terminal's clipboard (OSC 52) when allowed, else to a file. */
  copyText?: (text: string) => string;
  /** The server's paste buffer: y in the history view fills it, p pastes it into the focused row. */
  pasteBuffer?: PasteBufferPort;
  /** The key that pastes (for the words that say so); default "p". */
  pasteKey?: string;
  /** Removes a worktree row's worktree and closes the row, or says what would be lost. */
  removeWorktree?: (row: string) => Promise<{ ok: true } | { problem: string }>;
  /** A worktree row's changes, ready to show (the server reads them with git). */
  review?: (row: string) => Promise<{ title: string; lines: string[] } | { problem: string }>;
  /** Turns the "new row" dialog's fields into a row spec, or the sentence saying why not. */
  planRow?: (request: NewRowRequest, taken: readonly string[]) => { spec: RowSpec } | { problem: string };
  /** Where the audit log is written (shown in the audit view). */
  auditLogPath?: string;
  /**
   * Bell / desktop notification hook (config `notifications: {bell, desktop}`), called for new mail
   * and delivery problems with a sanitized single-line text. Not called for the operator's own mail.
   */
  ring?: (text: string) => void;
}

export class DashboardController implements Intents, Disposable {
  private readonly lifetime = new DisposableStore();
  private readonly perRow = new Map<string, DisposableStore>();
  private resizeTimer: NodeJS.Timeout | null = null;
  private stripTimer: NodeJS.Timeout | null = null;
  /** The strip note `stripTimer` ages out. */
  private agingNote: number | null = null;
  private readonly composer: ComposerController;
  private readonly mailView: MailViewController;
  private readonly paste: PasteController | null;
  private readonly rows: RowManager;
  private readonly agents: AgentSupervisor | undefined;
  /** The last click on a row, to tell a double click. */
  private lastClick: { row: string; at: number } | null = null;
  /** Set while this client goes away: it sizes nothing any more. */
  private disposing = false;

  constructor(private readonly o: ControllerOptions) {
    const { port, store, fleet } = o;
    this.rows = fleet.rows;
    this.agents = fleet.agents;
    const note = (kind: NoteKind, text: string, row: string | null) => this.note(kind, text, row);
    this.composer = new ComposerController({ store, port, note, ...(o.composerCloseAfterSend ? { closeAfterSend: true } : {}) });
    this.lifetime.add(toDisposable(() => this.composer.dispose()));
    this.mailView = new MailViewController({ store, port, composer: this.composer, note });
    const operatorTyped = (name: string) => this.agents?.agentOf(name)?.operatorTyped();
    const buffer = o.pasteBuffer;
    this.paste = buffer ? this.lifetime.add(new PasteController({ store, buffer, target: pasteTargetIn(this.rows), operatorTyped, note, pasteKey: o.pasteKey ?? 'p' })) : null;
    this.lifetime.add(port.onUnreadMaybeChanged((handles) => handles.forEach((h) => this.refreshUnread(h))));
    this.lifetime.add(port.onMail((m) => {
      const rows = m.to.filter((t) => this.rows.has(t) || t === OPERATOR);
      if (rows.length > 0) {
        const lines = m.text.split(/\r\n|\r|\n/);
        // A multi-line message shows its first line and says there is more.
        const more = lines.length > 1 ? ` (+${lines.length - 1} line${lines.length === 2 ? '' : 's'})` : '';
        const first = sanitize(lines[0] ?? '', { singleLine: true, maxChars: 200 }) + more;
        const line = (t: string) => sanitize(t, { singleLine: true, maxChars: 64 });
        this.note('mail', `@${line(m.from)} → ${rows.map((r) => `@${line(r)}`).join(' ')} [${line(m.kind)}] ${first}`, rows[0] ?? null, m.from === OPERATOR, m.replyTo, m.id);
      }
      this.mailView.arrived(m);
    }));
    this.lifetime.add(port.onReceipt((r) => store.receiptChanged(r)));
    this.lifetime.add(port.onPeer(() => this.composer.refreshPeers()));
    // A row's own mail that the hub refused is a delivery problem the operator should see (the
    // operator's sends report theirs on the composer line).
    this.lifetime.add(
      port.onRefused((r) => {
        if (!this.rows.has(r.sender) || r.error.code === 'REPLY_BUDGET') return; // onHeld says it better
        const to = r.to.map((t) => `@${sanitize(t, { singleLine: true, maxChars: 64 })}`).join(' ');
        this.note('error', `@${r.sender} → ${to}: ${r.error.code}: ${sanitize(r.error.message, { singleLine: true, maxChars: 200 })}`, r.sender);
      }),
    );
    this.lifetime.add(port.onHeld((h) => this.held(h)));
    // Each row's agent is followed with its row (follow); the supervisor's own notes come from here.
    if (this.agents) this.lifetime.add(this.agents.onNotice((n) => this.note(n.kind, n.text, n.row)));
    this.lifetime.add(
      store.onChange(() => {
        this.scheduleResize();
        this.followStrip();
      }),
    );
    // Rows are the server's: this client shows the ones running now and follows what comes and goes.
    this.lifetime.add(fleet.onAdded((row) => this.show(row)));
    this.lifetime.add(fleet.onRemoved(({ row, closed }) => this.hide(row, closed.at)));
    this.lifetime.add(fleet.onReopened((name) => store.rowReopened(name)));
    this.lifetime.add(fleet.onPolicy((p) => store.updateRow(p.row, { wakePolicy: p.policy })));
    this.lifetime.add(fleet.onOrigin((name) => this.rows.has(name) && store.updateRow(name, { restored: restoredMark(fleet.originOf(name)) })));
    this.lifetime.add(fleet.onNotice((n) => this.note(n.kind, n.text, n.row)));
    if (o.worktrees) this.lifetime.add(o.worktrees.onStatus((s) => store.updateRow(s.row, { git: s.status })));
    this.lifetime.add(fleet.onSizeOwner(() => this.applySizes()));
    for (const c of [...fleet.closed()].reverse()) store.rowClosed(closedView(c.spec, c.at));
    for (const row of fleet.list()) this.show(row);
  }

  /** A notification (strip and list); new mail and problems also ring when configured. */
  private note(kind: NoteKind, text: string, row: string | null, own = false, replyTo: number | null = null, mailId: number | null = null): void {
    // The operator's own mail is listed, but the strip and the bell are for news.
    this.o.store.notify(kind, text, row, !own, replyTo, mailId);
    if (kind !== 'info' && !own) this.o.ring?.(text);
  }

  /**
   * The strip shows news, not history: whatever put a note there, it leaves after a while (the list
   * keeps it). One timer, for the note shown now; a newer one replaces it.
   */
  private followStrip(): void {
    const strip = this.o.store.getState().strip;
    if (strip?.id === this.agingNote) return;
    this.agingNote = strip?.id ?? null;
    if (this.stripTimer) clearTimeout(this.stripTimer);
    this.stripTimer = null;
    if (!strip) return;
    const ages = this.o.stripAgeMs ?? STRIP_AGE_MS;
    this.stripTimer = setTimeout(() => this.o.store.dismissStrip(strip.id), strip.kind === 'info' ? ages.info : ages.news);
    this.stripTimer.unref();
  }

  /**
   * The wake controller could not nudge a row (or recovered): the row's header says so and a failure
   * shows as a notification like any delivery problem.
   */
  wakeResult(row: string, ok: boolean, reason = ''): void {
    if (!this.rows.has(row)) return;
    this.o.store.updateRow(row, { wakeFailed: !ok });
    if (!ok) this.note('error', `wake failed for @${row}${reason ? `: ${sanitize(reason, { singleLine: true, maxChars: 200 })}` : ''}`, row);
  }

  /** Focuses the next row after the focused one (wrapping) that `wanted` picks, or says there is none. */
  private focusNextWhere(wanted: (row: RowView) => boolean, none: string): void {
    const { store } = this.o;
    const { rows, focused } = store.getState();
    const start = Math.max(0, rows.findIndex((r) => r.name === focused));
    for (let step = 1; step <= rows.length; step++) {
      const row = rows[(start + step) % rows.length]!;
      if (wanted(row)) {
        store.focus(row.name);
        return;
      }
    }
    this.note('info', none, null);
  }

  /** Two rows ran out of their reply budget: the operator decides whether they go on. */
  private held(h: BudgetHeld): void {
    const name = (t: string) => `@${sanitize(t, { singleLine: true, maxChars: 64 })}`;
    if (h.kind === 'depth') {
      this.note('error', `${name(h.sender)}: a reply chain ${h.depth} deep among rows without you was refused (limit ${h.limit}); write to it to go on`, h.sender);
      return;
    }
    const keys = this.o.grantKey ? `${this.o.grantKey} grants ${h.limit} more, ` : '';
    this.note('error', `${name(h.a)} ↔ ${name(h.b)} held: ${h.used} messages to each other without you; ${keys}or write to either to go on`, h.sender);
  }

  /** Grants the newest held pair another budget. */
  private grantNewestHeld(): void {
    const held = this.o.port.heldPairs();
    const newest = held[held.length - 1];
    if (!newest) {
      this.note('info', 'no pair of rows is held by the reply budget', null);
      return;
    }
    void this.o.port.grantBudget(newest.a, newest.b).then((r) => {
      if ('error' in r) this.note('error', `grant failed: ${r.error.code}: ${sanitize(r.error.message, { singleLine: true, maxChars: 200 })}`, null);
      else this.note('info', `@${newest.a} ↔ @${newest.b}: granted ${r.ok.budget} more messages`, newest.a);
    });
  }

  private refreshUnread(handle: string): void {
    if (this.rows.has(handle)) this.o.store.updateRow(handle, { unread: this.o.port.unreadCount(handle) });
  }

  /** Starts a row (for every client: the fleet announces it). */
  addRow(spec: RowSpec, size: { cols: number; rows: number }): Row {
    return this.o.fleet.add(spec, size);
  }

  /** Mirrors a row of the fleet into this client's view and follows its changes. */
  private show(row: Row): void {
    const { spec } = row;
    const agent = this.agents?.stateOf(row.name);
    const origin = this.o.fleet.originOf(row.name);
    const view: RowView = {
      name: row.name,
      profile: spec.profile ?? null,
      command: describeCommand(spec),
      running: row.state === 'running',
      exitCode: row.exit?.exitCode ?? null,
      exitSignal: row.exit?.signal ?? null,
      agentState: row.state === 'exited' ? 'exited' : (agent?.state ?? null),
      stateRule: agent?.rule ?? null,
      unread: this.o.port.unreadCount(row.name),
      lastOutputAt: row.lastOutputAt,
      title: '',
      wakePolicy: this.o.fleet.policyOf(row.name) ?? 'notify',
      wakeFailed: false,
      incarnation: row.incarnation,
      restored: restoredMark(origin),
      git: this.o.worktrees?.statusOf(row.name) ?? null,
      ...(row.state === 'exited' ? { exitedAt: row.lastOutputAt || Date.now() } : {}),
    };
    this.o.store.addRow(view);
    this.follow(row);
    if (origin.kind === 'restored' && origin.note) this.originNote(origin.note, origin.noteAt ?? Date.now(), row.name);
  }

  /** The note about how a row came back: news to a client there when it happened, history to a later one. */
  private originNote(text: string, at: number, row: string): void {
    if (Date.now() - at < (this.o.stripAgeMs ?? STRIP_AGE_MS).info) this.note('info', text, row);
    else this.o.store.notifyPast('info', text, row, at);
  }

  private hide(row: Row, at: number): void {
    const { store } = this.o;
    this.perRow.get(row.name)?.dispose();
    this.perRow.delete(row.name);
    if (store.getState().attached === row.name) this.detach();
    store.removeRow(row.name);
    store.rowClosed(closedView(row.spec, at));
  }

  private follow(row: Row): void {
    const d = new DisposableStore();
    this.perRow.get(row.name)?.dispose();
    this.perRow.set(row.name, d);
    const { store } = this.o;
    d.add(row.onScreenChange(() => this.o.onRowScreen(row)));
    const onOutput = this.o.onRowOutput;
    if (onOutput) d.add(row.onOutput((chunk) => onOutput(row, chunk)));
    d.add(row.onTitleChange((title) => store.updateRow(row.name, { title: sanitize(title, { singleLine: true, maxChars: 120 }) })));
    const agent = this.agents?.agentOf(row.name);
    if (agent) {
      d.add(agent.onStateChange((e) => {
        store.updateRow(e.row, { agentState: e.state, stateRule: e.rule });
        if (store.getState().overlay === 'explain' && store.getState().focused === e.row) this.refreshExplain();
      }));
      d.add(agent.onWakeResult((e) => this.wakeResult(e.row, e.ok, e.reason)));
      d.add(agent.onNotice((n) => this.note(n.kind, n.text, n.row)));
    }
    d.add(row.onExit((exit) => {
      // Keys would go to a program that is gone: back to the dashboard, and say why.
      const wasAttached = store.getState().attached === row.name;
      if (wasAttached) {
        this.o.onDetach?.();
        this.detach();
      }
      store.updateRow(row.name, { running: false, exitCode: exit.exitCode, exitSignal: exit.signal ?? null, agentState: 'exited', exitedAt: Date.now() });
      const reason = exitReason(exit, row.spec);
      const how = exit.signal ? ` on signal ${exit.signal}` : ` with status ${exit.exitCode}${reason ? ` (${sanitize(reason, { singleLine: true, maxChars: 120 })})` : ''}`;
      store.notify('info', `${row.name} exited${how}${wasAttached ? '; detached, back to the dashboard' : ''}`, row.name);
    }));
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
  }

  /** Rows get the real size of their viewport; coalesced so focus hops do not make programs reflow many times. */
  private scheduleResize(): void {
    if (this.resizeTimer) return;
    this.resizeTimer = setTimeout(() => {
      this.resizeTimer = null;
      this.applySizes();
    }, 60);
  }

  /** This client's terminal got input: its sizes decide the rows' sizes from now on. */
  inputArrived(): void {
    this.o.fleet.claimSizes(this, this.o.store.getState().attached);
  }

  /** Gives the rows this client decides the size of (see RowFleet.decidesSize) the size it shows them at. */
  applySizes(): void {
    if (this.disposing) return;
    const { fleet } = this.o;
    const state = this.o.store.getState();
    if (state.attached !== null) {
      if (fleet.decidesSize(state.attached, this)) {
        this.rows.get(state.attached)?.resize(state.size.cols, Math.max(1, state.size.rows - (this.o.attachedStatusLines ?? 0)));
      }
      return;
    }
    for (const p of this.o.layout().rows) {
      if (p.viewport.height > 0 && fleet.decidesSize(p.name, this)) this.rows.get(p.name)?.resize(p.viewport.width, p.viewport.height);
    }
  }

  // --- intents -------------------------------------------------------------------------------

  action(action: ActionName): void {
    const { store } = this.o;
    const rows = this.rows;
    const state = store.getState();
    const focused = state.focused ? rows.get(state.focused) : undefined;
    switch (action) {
      case 'focusNext':
        return store.focusBy(1);
      case 'focusPrev':
        return store.focusBy(-1);
      case 'focusUp':
      case 'focusDown':
      case 'focusLeft':
      case 'focusRight': {
        const dir = action === 'focusUp' ? 'up' : action === 'focusDown' ? 'down' : action === 'focusLeft' ? 'left' : 'right';
        const next = neighbour(this.o.layout(), state.focused, dir);
        if (next) store.focus(next);
        else if (dir === 'up' || dir === 'left') store.focusBy(-1);
        else store.focusBy(1);
        return;
      }
      case 'nextWaiting':
        return this.focusNextWhere((r) => r.running && r.agentState === 'waiting', 'no row is waiting for you');
      case 'nextUnread':
        return this.focusNextWhere((r) => r.unread > 0, 'no row has unread mail');
      case 'zoom':
        return store.toggleZoom();
      case 'layout':
        return store.setLayout(state.layoutMode === 'stack' ? 'grid' : 'stack');
      case 'theme': {
        const names = this.o.themeNames;
        const i = names.indexOf(state.themeName);
        const next = names[(i + 1) % names.length] ?? state.themeName;
        store.setTheme(next);
        return this.note('info', `theme: ${next}`, null);
      }
      case 'help':
        return store.openOverlay(state.overlay === 'help' ? null : 'help');
      case 'notifications':
        return store.openOverlay('notifications');
      case 'compose':
        return this.composer.open();
      case 'paste':
        return this.paste?.pasteInto(focused?.name ?? null);
      case 'mailView':
        return this.mailView.open(null);
      case 'rowInbox':
        // The focused row's mail (from or to it); with no row, all mail.
        return this.mailView.open(state.focused);
      case 'attach':
        if (focused) {
          store.attach(focused.name);
          this.o.fleet.setAttached(focused.name, this, true);
          this.applySizes(); // the whole terminal, less the status line under it
          this.o.onAttach(focused);
        }
        return;
      case 'detach':
        return this.detach();
      case 'restart':
        if (!focused) return;
        // Ending a running program loses what it was doing: ask first, as quit does.
        if (focused.state === 'running') store.askConfirm({ action: 'restart', row: focused.name });
        else this.restartRow(focused.name);
        return;
      case 'close':
        if (!focused) return;
        // A worktree row is always asked about: the answer also says what becomes of its worktree.
        if (focused.spec.worktree) store.askConfirm({ action: 'close', row: focused.name, worktree: focused.spec.worktree.path });
        else if (focused.state === 'running') store.askConfirm({ action: 'close', row: focused.name });
        else this.closeRow(focused.name);
        return;
      case 'reopen':
        if (store.getState().closed.length === 0) this.note('info', 'no row was closed in this dashboard', null);
        else store.openOverlay('reopen');
        return;
      case 'detachClient':
        return (this.o.onLeave ?? this.o.onQuit)();
      case 'newRow':
        if (!this.o.planRow) return this.note('info', 'new rows are started with swb new here', null);
        return store.newRowDialog(null);
      case 'history': {
        if (!focused) return;
        const lines = focused.screen.historyLines().map((l) => sanitize(l, { singleLine: true, maxChars: 1000 }));
        return store.showHistory({ row: focused.name, lines });
      }
      case 'interrupt': {
        if (!focused) return;
        const name = focused.name;
        if (!this.agents?.has(name)) return this.note('info', `${name} has no agent profile: swb does not know its interrupt key (attach and press it)`, name);
        void this.agents.interrupt(name).then((r) => {
          if (!r) return;
          if (!r.sent) this.note('info', `@${name} is ${r.before}, not busy: nothing to interrupt`, name);
          else this.note(r.leftBusy ? 'info' : 'error', r.leftBusy ? `@${name} interrupted: ${r.after} now` : `@${name} is still busy 5 s after its interrupt key`, name);
        });
        return;
      }
      case 'reviewRow': {
        if (!focused) return;
        if (!focused.spec.worktree) return this.note('info', `@${focused.name} does not run in a worktree of its own (N or swb new --worktree starts one)`, focused.name);
        const name = focused.name;
        void this.o.review?.(name).then((r) => {
          if ('problem' in r) this.note('error', `review of @${name}: ${sanitize(r.problem, { singleLine: true, maxChars: 200 })}`, name);
          else if (store.getState().overlay === null) store.showReview({ row: name, ...r });
        });
        return;
      }
      case 'reviewParked': {
        const parked = this.o.port.parkedMail();
        const pick = parked.find((p) => p.recipient === state.focused) ?? parked[0];
        if (!pick) return this.note('info', 'no mail is parked for review', null);
        return store.reviewParked({ row: pick.recipient, count: pick.count });
      }
      case 'quit':
        if (runningCount(state) > 0) store.openOverlay('quit');
        else this.o.onQuit();
        return;
      case 'explain':
        if (focused) store.openOverlay('explain', this.explainText(focused.name));
        return;
      case 'wakePolicy':
        if (!focused) return;
        if (!this.agents?.has(focused.name)) this.note('info', `${focused.name} has no agent profile: it is never woken`, focused.name);
        else store.pickWakePolicy(focused.name);
        return;
      case 'resources':
        return store.openOverlay('resources');
      case 'auditLog':
        return store.openOverlay('audit', this.auditText());
      case 'grantBudget':
        return this.grantNewestHeld();
      default:
        store.notify('info', `${action}: not available yet`);
    }
  }

  detach(): void {
    const attached = this.o.store.getState().attached;
    this.o.store.detach();
    if (attached !== null) this.o.fleet.setAttached(attached, this, false);
    this.applySizes();
  }

  createRow(request: NewRowRequest): void {
    const { store } = this.o;
    const planned = this.o.planRow?.(request, this.rows.list().map((r) => r.name));
    if (!planned) return;
    if ('problem' in planned) {
      store.newRowDialog(sanitize(planned.problem, { singleLine: true, maxChars: 300 }));
      return;
    }
    const { size } = store.getState();
    if (request.worktree !== undefined && this.o.startWorktree) {
      // git makes the worktree first; the row shows up once it exists (or the dialog says why not).
      const name = planned.spec.name;
      store.newRowDialog(`making the worktree of ${name} ...`);
      void this.o.startWorktree(planned.spec, request.worktree, { cols: size.cols, rows: Math.max(1, size.rows - 3) }).then((r) => {
        if ('problem' in r) {
          if (store.getState().overlay === 'newRow') store.newRowDialog(sanitize(r.problem, { singleLine: true, maxChars: 300 }));
          else this.note('error', `@${name} did not start: ${sanitize(r.problem, { singleLine: true, maxChars: 300 })}`, null);
          return;
        }
        if (store.getState().overlay === 'newRow') store.openOverlay(null);
        store.focus(name);
        this.note('info', `@${name} started in ${sanitize(r.path, { singleLine: true, maxChars: 200 })} on ${sanitize(r.branch, { singleLine: true, maxChars: 100 })}`, name);
        if (r.skipped?.length) this.note('error', `@${name}: ${describeSkipped(r.skipped)}`, name);
      });
      return;
    }
    try {
      this.o.fleet.add(planned.spec, { cols: size.cols, rows: Math.max(1, size.rows - 3) });
    } catch (err) {
      store.newRowDialog(sanitize(`it did not start: ${(err as Error).message}`, { singleLine: true, maxChars: 300 }));
      return;
    }
    store.openOverlay(null);
    store.focus(planned.spec.name);
    this.note('info', `@${planned.spec.name} started`, planned.spec.name);
  }

  /**
   * The mouse on the dashboard: a click focuses the row under it, a second click there attaches, the
   * wheel up opens its history; over a scrolling overlay the wheel scrolls it.
   */
  mouse(e: MouseEvent): void {
    const { store } = this.o;
    const state = store.getState();
    if (state.attached !== null) return;
    if (state.overlay !== null) {
      if (SCROLLING_OVERLAYS.has(state.overlay) && (e.button === 'wheelUp' || e.button === 'wheelDown')) {
        this.o.injectKeys?.((e.button === 'wheelUp' ? 'k' : 'j').repeat(3));
      }
      return;
    }
    const hit = this.o.layout().rows.find((p) => {
      const top = p.header.y;
      const bottom = p.viewport.y + p.viewport.height;
      return e.y >= top && e.y < bottom && e.x >= p.header.x && e.x < p.header.x + p.header.width;
    });
    if (!hit) return;
    if (e.button === 'wheelUp') {
      store.focus(hit.name);
      return this.action('history');
    }
    if (e.button !== 'left' || !e.press) return;
    const now = Date.now();
    const double = this.lastClick?.row === hit.name && now - this.lastClick.at < DOUBLE_CLICK_MS;
    this.lastClick = double ? null : { row: hit.name, at: now };
    store.focus(hit.name);
    if (double) this.action('attach');
  }

  /** The history view's y: what is on its screen, copied. */
  copyFromHistory(text: string): void {
    const row = this.o.store.getState().history?.row ?? '';
    const n = text.split('\n').length;
    const buffered = this.paste?.keep(text);
    this.copiedFromHistory('copied', text, `${n} line${n === 1 ? '' : 's'} of @${row}`, buffered);
  }

  /** The history view's s: the whole history, to a file. */
  saveHistory(): void {
    const h = this.o.store.getState().history;
    if (h) this.copiedFromHistory('saved', h.lines.join('\n'), `the history of @${h.row}`);
  }

  /** Says where a copy went: in the history view at once, and in the notification list for later. */
  private copiedFromHistory(verb: 'copied' | 'saved', text: string, what: string, also?: string): void {
    const where = this.o.copyText?.(text);
    if (where === undefined) return;
    const said = `${verb} ${what} ${where}${also ? ` · ${also}` : ''}`;
    this.o.store.historyDone(said);
    this.note('info', said, null);
  }

  /** From the review: write to the reviewed row (the composer, addressed to it). */
  composeAboutReview(): void {
    const review = this.o.store.getState().review;
    this.o.store.openOverlay(null);
    if (review) this.composer.writeTo(review.row);
  }

  reviewParked(redeliver: boolean | null): void {
    const { store } = this.o;
    const parked = store.getState().parked;
    store.openOverlay(null);
    if (!parked || redeliver === null) return;
    const row = parked.row;
    void (redeliver ? this.o.port.redeliverParked(row) : this.o.port.discardParked(row)).then((r) => {
      if ('error' in r) this.note('error', `parked mail of @${row}: ${r.error.code}: ${sanitize(r.error.message, { singleLine: true, maxChars: 200 })}`, row);
      else if (redeliver) this.note('info', `@${row}: ${r.ok.messages} parked message${r.ok.messages === 1 ? '' : 's'} handed over; it is woken for them as usual`, row);
      else this.note('info', `@${row}: ${r.ok.messages} parked message${r.ok.messages === 1 ? '' : 's'} discarded (their senders see expired)`, row);
    });
  }

  private explainText(name: string): string {
    if (!this.agents) return `${name}: state detection is off in this dashboard.`;
    if (!this.agents.has(name)) {
      return `${name} has no agent profile, so nothing detects its state and it is never woken.\nGive it one with a profile name as the row (swb claude) or "profile" in the config's rows[].`;
    }
    return this.agents.explainText(name);
  }

  private refreshExplain(): void {
    const { store } = this.o;
    const focused = store.getState().focused;
    if (focused) store.openOverlay('explain', this.explainText(focused));
  }

  pickWakePolicy(policy: WakePolicy | null): void {
    const { store } = this.o;
    const name = store.getState().wakePick;
    store.openOverlay(null);
    if (name === null || policy === null || !this.o.fleet.setPolicy(name, policy)) return;
    const unread = this.o.port.unreadCount(name);
    const meaning =
      policy === 'auto'
        ? unread > 0
          ? `it has ${unread} unread, so it is woken as soon as its prompt is free`
          : 'new mail types the wake line once its prompt is free'
        : policy === 'notify'
          ? 'new mail is only shown here'
          : 'never woken; its mail still shows here';
    this.note('info', `wake policy of @${name}: ${policy} (${meaning})`, name);
  }

  private auditText(): string {
    const lines = this.agents?.auditLines(AUDIT_VIEW_ENTRIES) ?? [];
    const where = this.o.auditLogPath ? `Every byte Switchboard types into a row, newest last (full log: ${sanitize(this.o.auditLogPath, { singleLine: true, maxChars: 300 })})` : 'Every byte Switchboard types into a row, newest last';
    return [where, '', ...(lines.length > 0 ? lines : ['Nothing typed into any row yet.'])].join('\n');
  }

  closeOverlay(): void {
    const state = this.o.store.getState();
    if (state.overlay === 'mail') this.mailView.close();
    else if (state.overlay !== null) this.o.store.openOverlay(null);
    else this.o.store.dismissStrip();
  }

  clearNotes(): void {
    this.o.store.clearNotes();
  }

  /** Enter on a notification: its message in the mail view, else the row it is about. */
  jumpToNote(id: number): void {
    const { store } = this.o;
    const note = store.getState().notes.find((n) => n.id === id);
    store.openOverlay(null);
    if (!note) return;
    if (note.mailId !== undefined) {
      this.mailView.open(null);
      this.mailView.select(note.mailId);
      return;
    }
    if (note.row !== null && this.rows.has(note.row)) store.focus(note.row);
    else if (note.row !== null) this.note('info', `@${note.row} is not a row here any more`, null);
  }

  openMailView(filter: string | null): void {
    this.mailView.open(filter);
  }

  // composer

  closeComposer(draft: string): void {
    this.composer.close(draft);
  }

  saveComposerDraft(draft: string): void {
    this.composer.saveDraft(draft);
  }

  bindMention(binding: MentionBinding): void {
    this.composer.bind(binding);
  }

  sendComposer(text: string): boolean {
    return this.composer.send(text);
  }

  // mail view

  selectMail(id: number): void {
    this.mailView.select(id);
  }

  loadMoreMail(): void {
    this.mailView.loadPage();
  }

  toggleMail(id: number): void {
    this.mailView.toggle(id);
  }

  markMailRead(id: number): void {
    this.mailView.markRead(id);
  }

  markAllMailRead(): void {
    this.mailView.markAllRead();
  }

  replyToMail(id: number): void {
    this.mailView.reply(id);
  }

  composeMail(): void {
    this.composer.open();
  }

  composeMention(): void {
    this.composer.openAtMention();
  }

  cycleMailFilter(step: number): void {
    this.mailView.cycleFilter(step);
  }

  confirmQuit(yes: boolean): void {
    if (yes) this.o.onQuit();
    else this.o.store.openOverlay(null);
  }

  confirmRow(yes: boolean, removeWorktree = false): void {
    const { confirm } = this.o.store.getState();
    this.o.store.openOverlay(null);
    if (!yes || !confirm) return;
    if (confirm.action === 'close' && removeWorktree && confirm.worktree) {
      const name = confirm.row;
      // The worktree first: when git refuses (work would be lost), the row stays as it was.
      void this.o.removeWorktree?.(name).then((r) => {
        if ('problem' in r) this.note('error', `@${name} kept: ${sanitize(r.problem, { singleLine: true, maxChars: 300 })}`, name);
        else this.note('info', `@${name} closed and its worktree removed (the branch is kept)`, null);
      });
      return;
    }
    if (confirm.action === 'close') this.closeRow(confirm.row);
    else this.restartRow(confirm.row);
  }

  private restartRow(name: string): void {
    if (!this.rows.has(name)) return;
    let resumed: boolean;
    try {
      ({ resumed } = this.o.fleet.restart(name));
    } catch (err) {
      this.note('error', `@${name} could not restart: ${sanitize(String((err as Error).message ?? err), { singleLine: true, maxChars: 200 })}`, name);
      return;
    }
    this.note('info', `@${name} restarted${resumed ? ', resuming its conversation' : ''}`, name);
  }

  /** Ends a row; its spec is kept so `reopen` (from any client) can start it again while the server runs. */
  private closeRow(name: string): void {
    const worktree = this.rows.get(name)?.spec.worktree;
    if (!this.o.fleet.close(name)) return;
    const kept = worktree ? `; its worktree stays in ${sanitize(worktree.path, { singleLine: true, maxChars: 200 })}` : '';
    this.note('info', `@${name} closed${this.o.reopenKey ? ` (${this.o.reopenKey} reopens it)` : ''}${kept}`, null);
  }

  reopenRow(index: number): void {
    const { store } = this.o;
    const closed = store.getState().closed[index];
    store.openOverlay(null);
    if (!closed) return;
    if (this.rows.has(closed.name)) {
      this.note('error', `@${closed.name} is running again already`, closed.name);
      return;
    }
    const { size } = store.getState();
    if (this.o.fleet.reopen(closed.name, { cols: size.cols, rows: Math.max(1, size.rows - 3) })) this.note('info', `@${closed.name} reopened`, closed.name);
  }

  dispose(): void {
    const attached = this.o.store.getState().attached;
    this.disposing = true;
    if (attached !== null) this.o.fleet.setAttached(attached, this, false);
    if (this.o.fleet.sizeOwner === this) this.o.fleet.claimSizes(null);
    if (this.resizeTimer) clearTimeout(this.resizeTimer);
    if (this.stripTimer) clearTimeout(this.stripTimer);
    for (const d of this.perRow.values()) d.dispose();
    this.perRow.clear();
    this.lifetime.dispose();
  }
}

function closedView(spec: RowSpec, at: number): ClosedRow {
  return { name: spec.name, command: describeCommand(spec), profile: spec.profile ?? null, at };
}
