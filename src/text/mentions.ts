// @mentions, shared by the composer and the CLI. A message starts with its recipients: "@a @b rest of
// text" (a comma or colon may follow each leading mention: "@a, @b: hi"). Mentions later in the text are
// reported (for highlighting) but do not add recipients. An '@' only starts a mention at the start of the
// text, after whitespace, or after an opening bracket or quote, so "a@b.com" is not a mention.

import { HANDLE_HINT, HANDLE_PATTERN, isValidHandle } from '../protocol/handle.js';
import { parseRemoteAddress } from '../protocol/remote-address.js';

// One definition of a handle for the whole program (protocol/handle.ts); re-exported for UI and CLI callers.
export { HANDLE_HINT, HANDLE_PATTERN, isValidHandle };

export interface Mention {
  handle: string;
  /** Index of the '@'. */
  start: number;
  /** Index just past the handle. */
  end: number;
}

export interface ParsedMentions {
  /** Leading mentions, deduplicated, in order; 'all' for @all. */
  recipients: string[];
  /** The text after the leading mentions and the whitespace that follows them. */
  body: string;
  /** Every valid mention in the text, leading ones included. */
  mentions: Mention[];
  /** Leading '@' tokens that are not valid handles (the body starts at the first of them). */
  invalid: Array<{ token: string; start: number; end: number }>;
}

const HANDLE_CHAR = /[A-Za-z0-9._-]/;
const MENTION_BOUNDARY = /[\s([{<"'`]/;
const LEADING_SEPARATOR = /[,:;]/;

function isHandleChar(ch: string | undefined): boolean {
  return ch !== undefined && HANDLE_CHAR.test(ch);
}

/** Can an '@' at `at` start a mention (start of text, or after whitespace / an opening bracket or quote)? */
function atBoundary(text: string, at: number): boolean {
  return at === 0 || MENTION_BOUNDARY.test(text[at - 1] ?? '');
}

function handleEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length && isHandleChar(text[i])) i++;
  return i;
}

/** A handle, or `handle@node` (a session on another node; `all@*` every node's): the end of it. */
function recipientEnd(text: string, from: number): number {
  const end = handleEnd(text, from);
  if (text[end] !== '@' || end === from) return end;
  if (text[end + 1] === '*') return end + 2;
  const nodeEnd = handleEnd(text, end + 1);
  return nodeEnd > end + 1 ? nodeEnd : end;
}

/** A recipient as written after '@': a handle here, or handle@node on another machine. */
export function isValidRecipient(token: string): boolean {
  return isValidHandle(token) || parseRemoteAddress(token) !== null;
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && /\s/.test(text[i] ?? '')) i++;
  return i;
}

export function parseMentions(text: string): ParsedMentions {
  const recipients: string[] = [];
  const seen = new Set<string>();
  const mentions: Mention[] = [];
  const invalid: ParsedMentions['invalid'] = [];

  // Leading recipients.
  let i = skipSpace(text, 0);
  let bodyStart = i;
  while (text[i] === '@') {
    const end = recipientEnd(text, i + 1);
    const handle = text.slice(i + 1, end);
    let after = end;
    const separated = LEADING_SEPARATOR.test(text[after] ?? '');
    if (separated) after++;
    const endsToken = after >= text.length || /\s/.test(text[after] ?? '') || (separated && text[after] === '@');
    if (!endsToken || !isValidRecipient(handle)) {
      let tokenEnd = i;
      while (tokenEnd < text.length && !/\s/.test(text[tokenEnd] ?? '')) tokenEnd++;
      invalid.push({ token: text.slice(i, tokenEnd), start: i, end: tokenEnd });
      break;
    }
    if (!seen.has(handle)) {
      seen.add(handle);
      recipients.push(handle);
    }
    mentions.push({ handle, start: i, end });
    i = skipSpace(text, after);
    bodyStart = i;
  }

  // Inline mentions in the body.
  for (let j = text.indexOf('@', bodyStart); j !== -1; j = text.indexOf('@', j + 1)) {
    if (!atBoundary(text, j)) continue;
    const end = recipientEnd(text, j + 1);
    // A trailing '.' or '-' is punctuation ("thanks @bob."), not part of the handle.
    let trimmed = end;
    while (trimmed > j + 1 && /[.-]/.test(text[trimmed - 1] ?? '')) trimmed--;
    const handle = text.slice(j + 1, trimmed);
    if (end - (j + 1) <= 129 && isValidRecipient(handle)) mentions.push({ handle, start: j, end: trimmed });
    j = Math.max(j, end - 1);
  }

  return { recipients, body: text.slice(bodyStart), mentions, invalid };
}

export interface MentionAtCursor {
  /** What has been typed after the '@' up to the cursor (may be empty). */
  prefix: string;
  /** Index of the '@'. */
  start: number;
  /** End of the whole handle-like token around the cursor (what a completion replaces). */
  end: number;
}

/** The mention being typed at `cursor` (for completion), or null when the cursor is not in one. */
export function mentionAt(text: string, cursor: number): MentionAtCursor | null {
  const pos = Math.max(0, Math.min(cursor, text.length));
  let at = pos;
  while (at > 0 && isHandleChar(text[at - 1])) at--;
  if (at === 0 || text[at - 1] !== '@') return null;
  const start = at - 1;
  if (!atBoundary(text, start)) return null;
  const prefix = text.slice(at, pos);
  if (prefix.startsWith('-') || prefix.length > 64) return null;
  return { prefix, start, end: handleEnd(text, pos) };
}

/**
 * Replaces the mention at `cursor` with `@handle` followed by a space (unless one is already there) and
 * puts the cursor after it. Returns the input unchanged when there is no mention at the cursor or the
 * handle is invalid.
 */
export function completeMention(text: string, cursor: number, handle: string): { text: string; cursor: number } {
  const m = mentionAt(text, cursor);
  if (!m || !isValidRecipient(handle)) return { text, cursor };
  const before = text.slice(0, m.start);
  const after = text.slice(m.end);
  const insert = `@${handle}`;
  const needsSpace = after.length === 0 || !/^\s/.test(after);
  const next = before + insert + (needsSpace ? ' ' : '') + after;
  return { text: next, cursor: before.length + insert.length + 1 };
}

export type CliTargets = { ok: true; recipients: string[]; textArgs: string[] } | { ok: false; problem: string };

/**
 * Splits `swb send @a @b text words...` arguments into recipients and text. Leading arguments starting
 * with '@' are recipients (one per argument; "@a,@b" is also accepted); "--" ends the recipients; the
 * first other argument starts the text. A quoted "@a @b text" argument is split like composer input.
 * Whether the recipients exist is the hub's business (UNKNOWN_PEER), not this function's.
 */
export function splitCliTargets(args: readonly string[]): CliTargets {
  const recipients: string[] = [];
  const add = (h: string): void => {
    if (!recipients.includes(h)) recipients.push(h);
  };
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') {
      i++;
      break;
    }
    if (!arg.startsWith('@')) break;
    if (/\s/.test(arg)) {
      const parsed = parseMentions(arg);
      const bad = parsed.invalid[0];
      if (bad) return { ok: false, problem: badHandle(bad.token) };
      parsed.recipients.forEach(add);
      const rest = args.slice(i + 1);
      return finish(recipients, parsed.body.length > 0 ? [parsed.body, ...rest] : rest);
    }
    for (const piece of arg.split(',')) {
      if (piece === '' && arg.endsWith(',')) continue;
      const handle = piece.startsWith('@') ? piece.slice(1) : piece;
      if (!isValidRecipient(handle)) return { ok: false, problem: badHandle(piece) };
      add(handle);
    }
  }
  return finish(recipients, args.slice(i));
}

function finish(recipients: string[], textArgs: string[]): CliTargets {
  if (recipients.length === 0) return { ok: false, problem: 'no recipients: start with @peer (or @all)' };
  return { ok: true, recipients, textArgs };
}

function badHandle(token: string): string {
  const shown = JSON.stringify(token.length > 70 ? `${token.slice(0, 70)}…` : token);
  return `${shown} is not a valid recipient: ${HANDLE_HINT}`;
}
