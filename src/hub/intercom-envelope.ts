// The Intercom dialect's envelope on the wire (DESIGN §4): {id, type, from_session, to_session,
// channel, reply_to, payload, timestamp}. Its own file because two sides write it: the dialect's
// answers (intercom-dialect.ts) and the fan-out's pushes of new mail (fan-out.ts), which must not
// import the dialect that takes the hub's core.
import { BROADCAST } from '../protocol/handle.js';
import type { MailItem } from '../protocol/methods.js';

/** An envelope from the hub itself; `fields` fill in what this one says. */
export function envelope(type: string, fields: Record<string, unknown>): Record<string, unknown> {
  return { id: null, type, from_session: 'hub', to_session: null, channel: null, reply_to: null, payload: null, timestamp: new Date().toISOString(), ...fields };
}

/** A message as the Intercom dialect pushes it to its clients. */
export function intercomMailEnvelope(item: MailItem): Record<string, unknown> {
  return {
    id: String(item.id),
    type: 'chat',
    from_session: item.from,
    to_session: item.to.length === 1 ? item.to[0] : BROADCAST,
    channel: item.kind,
    reply_to: item.replyTo === null ? null : String(item.replyTo),
    payload: { text: item.text, kind: item.kind, messageId: item.messageId },
    timestamp: new Date(item.createdAt).toISOString(),
  };
}
