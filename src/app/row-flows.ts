// The operator's requests that go to the server's rows through the ClientDesk and come back as
// notes: new rows (in a worktree or not), restart and close (asked first when work would be lost),
// reopen, a worktree row's review, the mail parked for review, wake policy, mute, interrupt. The desk
// carries them out; this says how each went, in the dashboard's words.
import type { OperatorPort } from '../hub/operator-port.js';
import type { Row } from '../rows/row.js';
import { sanitize } from '../text/sanitize.js';
import { describeSkipped } from '../worktree/skipped-files.js';
import type { WakePolicy } from './app-state.js';
import type { AppStore } from './app-store.js';
import type { ClientDesk, RowSize } from './client-desk.js';
import type { ComposerController } from './composer-controller.js';
import type { NewRowRequest, RowIntents } from './intents.js';
import type { Note } from './note-strip.js';

const line = (text: string, maxChars: number) => sanitize(text, { singleLine: true, maxChars });

export interface RowFlowsOptions {
  store: AppStore;
  desk: ClientDesk;
  port: OperatorPort;
  note: Note;
  composer: ComposerController;
  /** The key shown when a row is closed, for reopening it (the keymap's reopen). */
  reopenKey?: string;
}

export class RowFlows implements RowIntents {
  constructor(private readonly o: RowFlowsOptions) {}

  /** Whether this server starts rows from the "new row" dialog (else only from swb new). */
  get canCreateRows(): boolean {
    return this.o.desk.newRow !== undefined;
  }

  /** A new row's size before it has a place: the terminal less the chrome and its header. */
  private newRowSize(): RowSize {
    const { size } = this.o.store.getState();
    return { cols: size.cols, rows: Math.max(1, size.rows - 3) };
  }

  createRow(request: NewRowRequest): void {
    const { store, desk, note } = this.o;
    const started = desk.newRow?.(request, this.newRowSize());
    if (!started) return;
    if ('problem' in started) {
      store.newRowDialog(line(started.problem, 300));
      return;
    }
    if ('started' in started) {
      store.openOverlay(null);
      store.focus(started.started);
      note('info', `@${started.started} started`, started.started);
      return;
    }
    // git makes the worktree first; the row shows up once it exists (or the dialog says why not).
    const { name } = started;
    store.newRowDialog(`making the worktree of ${name} ...`);
    void started.worktree.then((r) => {
      if ('problem' in r) {
        if (store.getState().overlay === 'newRow') store.newRowDialog(line(r.problem, 300));
        else note('error', `@${name} did not start: ${line(r.problem, 300)}`, null);
        return;
      }
      if (store.getState().overlay === 'newRow') store.openOverlay(null);
      store.focus(name);
      note('info', `@${name} started in ${line(r.path, 200)} on ${line(r.branch, 100)}`, name);
      if (r.skipped?.length) note('error', `@${name}: ${describeSkipped(r.skipped)}`, name);
    });
  }

  /** The restart key: a running program loses what it was doing, so it is asked first (as quit is). */
  askRestart(focused: Row): void {
    if (focused.state === 'running') this.o.store.askConfirm({ action: 'restart', row: focused.name });
    else this.restartRow(focused.name);
  }

  /** The close key: a worktree row is always asked about (the answer also says what becomes of its worktree). */
  askClose(focused: Row): void {
    const { store } = this.o;
    if (focused.spec.worktree) store.askConfirm({ action: 'close', row: focused.name, worktree: focused.spec.worktree.path });
    else if (focused.state === 'running') store.askConfirm({ action: 'close', row: focused.name });
    else this.closeRow(focused.name);
  }

  confirmRow(yes: boolean, removeWorktree = false): void {
    const { store, desk, note } = this.o;
    const { confirm } = store.getState();
    store.openOverlay(null);
    if (!yes || !confirm) return;
    if (confirm.action === 'close' && removeWorktree && confirm.worktree) {
      const name = confirm.row;
      // The worktree first: when git refuses (work would be lost), the row stays as it was.
      void desk.removeWorktree?.(name).then((r) => {
        if ('problem' in r) note('error', `@${name} kept: ${line(r.problem, 300)}`, name);
        else note('info', `@${name} closed and its worktree removed (the branch is kept)`, null);
      });
      return;
    }
    if (confirm.action === 'close') this.closeRow(confirm.row);
    else this.restartRow(confirm.row);
  }

  private restartRow(name: string): void {
    const { desk, note } = this.o;
    if (!desk.fleet.has(name)) return;
    let resumed: boolean;
    try {
      ({ resumed } = desk.restart(name));
    } catch (err) {
      note('error', `@${name} could not restart: ${line(String((err as Error).message ?? err), 200)}`, name);
      return;
    }
    note('info', `@${name} restarted${resumed ? ', resuming its conversation' : ''}`, name);
  }

  /** Ends a row; its spec is kept so `reopen` (from any client) can start it again while the server runs. */
  private closeRow(name: string): void {
    const { desk, note, reopenKey } = this.o;
    const worktree = desk.fleet.get(name)?.spec.worktree;
    if (!desk.close(name)) return;
    const kept = worktree ? `; its worktree stays in ${line(worktree.path, 200)}` : '';
    note('info', `@${name} closed${reopenKey ? ` (${reopenKey} reopens it)` : ''}${kept}`, null);
  }

  reopenRow(index: number): void {
    const { store, desk, note } = this.o;
    const closed = store.getState().closed[index];
    store.openOverlay(null);
    if (!closed) return;
    if (desk.fleet.has(closed.name)) {
      note('error', `@${closed.name} is running again already`, closed.name);
      return;
    }
    if (desk.reopen(closed.name, this.newRowSize())) note('info', `@${closed.name} reopened`, closed.name);
  }

  /** The focused worktree row's changes, in the review overlay. */
  review(focused: Row): void {
    const { store, desk, note } = this.o;
    if (!focused.spec.worktree) return note('info', `@${focused.name} does not run in a worktree of its own (N or swb new --worktree starts one)`, focused.name);
    const name = focused.name;
    void desk.review?.(name).then((r) => {
      if ('problem' in r) note('error', `review of @${name}: ${line(r.problem, 200)}`, name);
      else if (store.getState().overlay === null) store.showReview({ row: name, ...r });
    });
  }

  /** From the review: write to the reviewed row (the composer, addressed to it). */
  composeAboutReview(): void {
    const review = this.o.store.getState().review;
    this.o.store.openOverlay(null);
    if (review) this.o.composer.writeTo(review.row);
  }

  /** The mail parked for review: the focused row's, else the first row's that has some. */
  pickParked(): void {
    const { store, port, note } = this.o;
    const parked = port.parkedMail();
    const pick = parked.find((p) => p.recipient === store.getState().focused) ?? parked[0];
    if (!pick) return note('info', 'no mail is parked for review', null);
    store.reviewParked({ row: pick.recipient, count: pick.count });
  }

  reviewParked(redeliver: boolean | null): void {
    const { store, port, note } = this.o;
    const parked = store.getState().parked;
    store.openOverlay(null);
    if (!parked || redeliver === null) return;
    const row = parked.row;
    void (redeliver ? port.redeliverParked(row) : port.discardParked(row)).then((r) => {
      const n = 'error' in r ? 0 : r.ok.messages;
      const messages = `${n} parked message${n === 1 ? '' : 's'}`;
      if ('error' in r) note('error', `parked mail of @${row}: ${r.error.code}: ${line(r.error.message, 200)}`, row);
      else if (redeliver) note('info', `@${row}: ${messages} handed over; it is woken for them as usual`, row);
      else note('info', `@${row}: ${messages} discarded (their senders see expired)`, row);
    });
  }

  /** The wake policy key: a row without an agent profile is never woken, so there is nothing to pick. */
  /** Mutes the row's notifications, or unmutes them (the server keeps the mute: every client shows it). */
  toggleMute(focused: Row): void {
    const { desk, note } = this.o;
    if (!desk.mutes) return note('info', 'this server sends no notifications', focused.name);
    const muted = !desk.mutes.muted(focused.name);
    desk.mutes.setMuted(focused.name, muted);
    note('info', muted ? `@${focused.name} muted: no notifications about it until you unmute it` : `@${focused.name} unmuted: its notifications go out again`, focused.name);
  }

  askWakePolicy(focused: Row): void {
    if (!this.o.desk.fleet.agents?.has(focused.name)) this.o.note('info', `${focused.name} has no agent profile: it is never woken`, focused.name);
    else this.o.store.pickWakePolicy(focused.name);
  }

  pickWakePolicy(policy: WakePolicy | null): void {
    const { store, desk, port, note } = this.o;
    const name = store.getState().wakePick;
    store.openOverlay(null);
    if (name === null || policy === null || !desk.setWakePolicy(name, policy)) return;
    const unread = port.unreadCount(name);
    const meaning =
      policy === 'auto'
        ? unread > 0
          ? `it has ${unread} unread, so it is woken as soon as its prompt is free`
          : 'new mail types the wake line once its prompt is free'
        : policy === 'notify'
          ? 'new mail is only shown here'
          : 'never woken; its mail still shows here';
    note('info', `wake policy of @${name}: ${policy} (${meaning})`, name);
  }

  /** Cancels the focused agent's turn with its profile's interrupt key, and says whether it worked. */
  interrupt(focused: Row): void {
    const { desk, note } = this.o;
    const name = focused.name;
    const agents = desk.fleet.agents;
    if (!agents?.has(name)) return note('info', `${name} has no agent profile: swb does not know its interrupt key (attach and press it)`, name);
    void agents.interrupt(name).then((r) => {
      if (!r) return;
      if (!r.sent) note('info', `@${name} is ${r.before}, not busy: nothing to interrupt`, name);
      else note(r.leftBusy ? 'info' : 'error', r.leftBusy ? `@${name} interrupted: ${r.after} now` : `@${name} is still busy 5 s after its interrupt key`, name);
    });
  }
}
