// What the UI may ask for. Components call these; the controller carries them out against rows,
// the hub and the store, and the results come back as new app state.
import type { WakePolicy } from './app-state.js';
import type { ActionName } from '../config/keymap.js';
import type { MentionBinding } from './composer-state.js';

/** The shared composer (its line is edited locally and handed over on these calls): ComposerController. */
export interface ComposerIntents {
  /** A new message. */
  open(): void;
  /** `@` pressed to open the composer: open it with `@` typed, so the peers are offered at once. */
  openAtMention(): void;
  /** Esc: close, keeping the draft. */
  close(draft: string): void;
  /** Keep the draft without closing (the editor is going away). */
  saveDraft(draft: string): void;
  /** A completion was taken: the handle now means exactly this target. */
  bind(binding: MentionBinding): void;
  /** Enter: true when the message went out (the editor clears), false when refused (the reason is shown). */
  send(text: string): boolean;
}

/** The mail view (overlay 'mail'): MailViewController. */
export interface MailViewIntents {
  select(id: number): void;
  /** Load the next older page (the selection is near the end of what is loaded). */
  loadPage(): void;
  /** Show a message in full, or close it again. */
  toggle(id: number): void;
  markRead(id: number): void;
  /** Every loaded message the view's filter covers, read. */
  markAllRead(): void;
  /** Open the composer prefilled to answer this message. */
  reply(id: number): void;
  /** Next (+1) or previous (-1) filter: all mail, the focused row, other rows, other handles. */
  cycleFilter(step: number): void;
  close(): void;
}

export interface NotificationIntents {
  clearNotes(): void;
  closeOverlay(): void;
  /** Enter on a notification: the message it is about (mail view), or the row it is about. */
  jumpToNote(id: number): void;
}

/** What the "new row" dialog asks for: an optional name, a profile or command line, a directory. */
export interface NewRowRequest {
  name: string;
  what: string;
  cwd: string;
  /** In a git worktree of its own: the branch ('' for the default swb/<name>); absent: no worktree. */
  worktree?: string;
}

/** What the operator asks of the server's rows through the dialogs and questions: RowFlows. */
export interface RowIntents {
  /** The "new row" dialog's Enter: starts the row, or leaves the dialog open with the problem. */
  createRow(request: NewRowRequest): void;
  /** The answer to the 'confirm' overlay (closing or restarting a running row). */
  confirmRow(yes: boolean, removeWorktree?: boolean): void;
  /** Reopens the `index`th row of the 'reopen' list (newest first). */
  reopenRow(index: number): void;
  /** The wake policy picked in the 'wakePolicy' overlay (null: keep it). */
  pickWakePolicy(policy: WakePolicy | null): void;
  /** From the review overlay: write to the reviewed row. */
  composeAboutReview(): void;
  /** The answer to the parked-mail review of the 'confirm' overlay: hand it over, or discard it. */
  reviewParked(redeliver: boolean | null): void;
}

export interface Intents extends NotificationIntents {
  readonly composer: ComposerIntents;
  readonly mailView: MailViewIntents;
  readonly rows: RowIntents;
  /** A keymap action pressed on the dashboard. */
  action(action: ActionName): void;
  closeOverlay(): void;
  confirmQuit(yes: boolean): void;
  /** The history view: copy what it shows (y), save the whole history (s). */
  copyFromHistory(text: string): void;
  saveHistory(): void;
}

/** The resources overlay (reservations, issue #35): the operator's hand on the hub's tickets. */
export interface ResourceIntents {
  moveResourceSelection(step: number): void;
  /** g: grant the selected queued ticket (it moves to the front; granted if there is room). */
  grantSelected(): void;
  /** x: ask to force-release the selected holder (the evidence is shown first). */
  askReleaseSelected(): void;
  /** The answer to that question. */
  answerRelease(yes: boolean): void;
  /** c: pick the controller of the selected line's resource. */
  askController(): void;
  /** A row's handle, `operator`, null (none: the hub grants in order), or undefined (keep it). */
  chooseController(controller: string | null | undefined): void;
  closeOverlay(): void;
}

/** A click or a wheel turn on the dashboard (SGR mouse report; cells counted from 0), as the input
 * router reads it and the controller hit-tests it. */
export interface MouseEvent {
  x: number;
  y: number;
  button: 'left' | 'middle' | 'right' | 'wheelUp' | 'wheelDown' | 'other';
  press: boolean;
}
