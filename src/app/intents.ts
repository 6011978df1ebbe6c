// What the UI may ask for. Components call these; the controller carries them out against rows,
// the hub and the store, and the results come back as new app state.
import type { WakePolicy } from './app-state.js';
import type { ActionName } from '../config/keymap.js';
import type { MentionBinding } from './composer-state.js';

/** The shared composer (its line is edited locally and handed over on these calls). */
export interface ComposerIntents {
  /** Esc: close, keeping the draft. */
  closeComposer(draft: string): void;
  /** Keep the draft without closing (the editor is going away). */
  saveComposerDraft(draft: string): void;
  /** A completion was taken: the handle now means exactly this target. */
  bindMention(binding: MentionBinding): void;
  /** Enter: true when the message went out (the editor clears), false when refused (the reason is shown). */
  sendComposer(text: string): boolean;
}

/** The mail view (overlay 'mail'). */
export interface MailViewIntents {
  selectMail(id: number): void;
  /** Load the next older page (the selection is near the end of what is loaded). */
  loadMoreMail(): void;
  /** Show a message in full, or close it again. */
  toggleMail(id: number): void;
  markMailRead(id: number): void;
  /** Every loaded message the view's filter covers, read. */
  markAllMailRead(): void;
  /** Open the composer prefilled to answer this message. */
  replyToMail(id: number): void;
  /** Open the composer for a new message. */
  composeMail(): void;
  /** `@` pressed to open the composer: open it with `@` typed, so the peers are offered at once. */
  composeMention(): void;
  /** Next (+1) or previous (-1) filter: all mail, the focused row, other rows, other handles. */
  cycleMailFilter(step: number): void;
  closeOverlay(): void;
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

export interface Intents extends ComposerIntents, MailViewIntents, NotificationIntents {
  /** A keymap action pressed on the dashboard. */
  action(action: ActionName): void;
  /** The mail view, filtered to one handle's mail (a row's inbox) or all mail. */
  openMailView(filter: string | null): void;
  closeOverlay(): void;
  confirmQuit(yes: boolean): void;
  /** The answer to the 'confirm' overlay (closing or restarting a running row). */
  confirmRow(yes: boolean, removeWorktree?: boolean): void;
  /** Reopens the `index`th row of the 'reopen' list (newest first). */
  reopenRow(index: number): void;
  /** The wake policy picked in the 'wakePolicy' overlay (null: keep it). */
  pickWakePolicy(policy: WakePolicy | null): void;
  /** The "new row" dialog's Enter: starts the row, or leaves the dialog open with the problem. */
  createRow(request: NewRowRequest): void;
  /** The history view: copy what it shows (y), save the whole history (s). */
  copyFromHistory(text: string): void;
  saveHistory(): void;
  /** From the review overlay: write to the reviewed row. */
  composeAboutReview(): void;
  /** The answer to the parked-mail review of the 'confirm' overlay: hand it over, or discard it. */
  reviewParked(redeliver: boolean | null): void;
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
