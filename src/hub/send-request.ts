// The first half of a send, as a value: a message checked against the limits (size, text,
// recipients), `@all` expanded to the sessions online now, the sender's rate taken, and the
// request the group committer stores — or the typed refusal. The hub passes in what it knows of
// sessions and rates; nothing here touches the store or a socket.
import { randomBytes } from 'node:crypto';
import { swbError, type SwbErrorValue } from '../protocol/error-codes.js';
import { BROADCAST } from '../protocol/handle.js';
import { messageTooLarge, type HubLimits } from '../protocol/limits.js';
import type { SendParams } from '../protocol/methods.js';
import type { AcceptRequest } from '../store/mail-store.js';
import { toWellFormed } from '../text/well-formed.js';

export interface SendContext {
  limits: Pick<HubLimits, 'maxMessageBytes' | 'maxRecipients' | 'ratePerSecond'>;
  /** Every session online now (rows with a running program included). */
  onlineHandles(): Iterable<string>;
  /** Whether some connection of `handle` hears pushed mail. */
  hearsPushes(handle: string): boolean;
  /** Milliseconds until `sender` may send again (takes a token when it is 0). */
  rateWait(sender: string): number;
  /** A retry of a message already stored (answered with its receipt, never RATE_LIMITED). */
  isStored(sender: string, messageId: string): boolean;
}

/** An empty set of handles (none reached only through `@all`, none that hears pushes): shared, never written. */
const NO_HANDLES: ReadonlySet<string> = new Set();

export function buildSendRequest(sender: string, sent: SendParams, ctx: SendContext): { request: AcceptRequest } | { error: SwbErrorValue } {
  const text = toWellFormed(sent.text);
  const { limits } = ctx;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > limits.maxMessageBytes) {
    return { error: messageTooLarge(bytes, limits.maxMessageBytes) };
  }
  if (text.length === 0) return { error: swbError('BAD_REQUEST', 'A message needs some text.') };
  // One recipient (most mail) needs no set to lose its duplicates, nor a copy (the params are this request's own).
  const requestedTo = sent.to.length === 1 ? sent.to : [...new Set(sent.to)];
  if (requestedTo.length > limits.maxRecipients) return { error: swbError('BAD_REQUEST', `At most ${limits.maxRecipients} recipients per message.`) };
  const to: string[] = [];
  let broadcast = false;
  for (const target of requestedTo) {
    if (target === BROADCAST || target === '*') {
      broadcast = true;
      // Broadcast reaches live sessions only (mail for offline rows would pile up unread).
      for (const h of ctx.onlineHandles()) if (h !== sender && !to.includes(h)) to.push(h);
    } else if (!to.includes(target)) to.push(target);
  }
  const messageId = sent.messageId ?? randomBytes(9).toString('base64url');
  const wait = ctx.rateWait(sender);
  if (wait > 0 && !(sent.messageId !== undefined && ctx.isStored(sender, sent.messageId))) {
    return {
      error: swbError('RATE_LIMITED', `${sender} is sending faster than ${limits.ratePerSecond} messages a second; retry in ${wait} ms.`, { retryAfterMs: wait }),
    };
  }
  // Most recipients have no connection that hears pushes: then no set is made.
  let live: Set<string> | undefined;
  for (const h of to) if (ctx.hearsPushes(h)) (live ??= new Set()).add(h);
  return {
    request: {
      sender,
      to,
      requestedTo: broadcast ? requestedTo.map((t) => (t === '*' ? BROADCAST : t)) : requestedTo,
      // Reached only through @all: one full inbox there skips that recipient instead of failing all.
      optional: broadcast ? optionalOf(to, requestedTo) : NO_HANDLES,
      text,
      kind: sent.kind ?? 'msg',
      replyTo: sent.replyTo ?? null,
      messageId,
      live: live ?? NO_HANDLES,
    },
  };
}

/** The recipients of a broadcast that were not also named. */
function optionalOf(to: readonly string[], requestedTo: readonly string[]): Set<string> {
  const named = new Set(requestedTo.filter((t) => t !== BROADCAST && t !== '*'));
  return new Set(to.filter((h) => !named.has(h)));
}
