// The shared composer as plain data in the app store: the saved draft, the mentions bound to the rows
// they were completed to, the reply target, the send history and the last send with its live receipts.
// The line being edited lives in the Composer component while it is open (typing does not go through
// the throttled store); it is saved here on close, send and unmount.
import type { ReceiptState, SessionRole } from '../protocol/methods.js';

export type MentionTarget = 'row' | 'peer' | 'broadcast';

/** A mention completed to one exact target: a row incarnation, a known peer, or @all. */
export interface MentionBinding {
  handle: string;
  target: MentionTarget;
  /** The row's incarnation at completion time (rows only). */
  incarnation: number | null;
}

/** 'sending' until the hub answered; then the receipt state, which only moves forward. */
export type RecipientProgress = 'sending' | ReceiptState;

export interface RecipientStatus {
  to: string;
  state: RecipientProgress;
  /** The wake controller typed a nudge for this recipient (an event beside the receipt). */
  woken: boolean;
}

export interface SendError {
  code: string;
  /** Already sanitized, single line. */
  message: string;
}

export interface SendStatus {
  messageId: string;
  /** The hub's message id once accepted. */
  id: number | null;
  at: number;
  recipients: readonly RecipientStatus[];
  error: SendError | null;
  /** The hub already had this message (a retry). */
  duplicate: boolean;
}

export interface ReplyTarget {
  id: number;
  from: string;
}

export interface PeerView {
  handle: string;
  online: boolean;
  role: SessionRole;
}

export interface ComposerState {
  open: boolean;
  /** The saved draft (the editor's text when it was last closed or sent). */
  draft: string;
  /** Bumped when the draft is replaced from outside (a reply prefill), so an open editor reloads it. */
  draftVersion: number;
  bindings: readonly MentionBinding[];
  replyTo: ReplyTarget | null;
  /** Sent texts, oldest first. */
  history: readonly string[];
  lastSend: SendStatus | null;
  /** Why the last Enter did not send (already sanitized, single line). */
  warning: string | null;
}

export const MAX_HISTORY = 100;

export function initialComposer(): ComposerState {
  return { open: false, draft: '', draftVersion: 0, bindings: [], replyTo: null, history: [], lastSend: null, warning: null };
}

export interface ComposerPrefill {
  draft: string;
  replyTo: ReplyTarget | null;
  bindings: readonly MentionBinding[];
  warning?: string | null;
}

export function openComposer(c: ComposerState, prefill?: ComposerPrefill): ComposerState {
  if (!prefill) return c.open && c.warning === null ? c : { ...c, open: true, warning: null };
  return {
    ...c,
    open: true,
    draft: prefill.draft,
    draftVersion: c.draftVersion + 1,
    replyTo: prefill.replyTo,
    bindings: prefill.bindings,
    warning: prefill.warning ?? null,
  };
}

/** Esc: the draft is kept; an emptied draft also drops the reply target and bindings. */
export function closeComposer(c: ComposerState, draft: string): ComposerState {
  const empty = draft.trim() === '';
  return {
    ...c,
    open: false,
    draft,
    warning: null,
    replyTo: empty ? null : c.replyTo,
    bindings: empty ? [] : c.bindings,
  };
}

export function saveDraft(c: ComposerState, draft: string): ComposerState {
  return c.draft === draft ? c : { ...c, draft };
}

/** A completion was accepted: the handle now means exactly this target (replacing an older binding). */
export function bindMention(c: ComposerState, binding: MentionBinding): ComposerState {
  return { ...c, bindings: [...c.bindings.filter((b) => b.handle !== binding.handle), binding] };
}

/** Enter refused: keep the text, say why, and forget the bindings named (stale ones, so Enter again sends by name). */
export function refuseSend(c: ComposerState, draft: string, warning: string, dropBindings: readonly string[] = []): ComposerState {
  return { ...c, draft, warning, bindings: c.bindings.filter((b) => !dropBindings.includes(b.handle)) };
}

/** Enter accepted: history grows, the draft, bindings and reply target are spent, receipts start. */
export function startSend(c: ComposerState, text: string, status: SendStatus): ComposerState {
  const history = c.history[c.history.length - 1] === text ? c.history : [...c.history, text].slice(-MAX_HISTORY);
  return { ...c, draft: '', bindings: [], replyTo: null, warning: null, history, lastSend: status };
}
