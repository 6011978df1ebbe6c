// The seed-compatible dialect (DESIGN §4): Intercom envelopes
// {id, type, from_session, to_session, channel, reply_to, payload, timestamp} on the same socket,
// routed into the same store. register → welcome; chat to a handle or `*` (broadcast);
// problems → error. The sender is the registered session, whatever from_session later says.
import { swbError, type SwbErrorValue } from '../protocol/error-codes.js';
import { BROADCAST, HANDLE_PATTERN } from '../protocol/handle.js';
import { MESSAGE_ID_PATTERN, MESSAGE_KINDS, type MessageKind } from '../protocol/methods.js';
import { intercomErrorPayload, type HubConnection } from './hub-connection.js';
import type { HubCore } from './hub-core.js';
import { envelope } from './intercom-envelope.js';

function textOf(payload: unknown): string | null {
  if (typeof payload === 'string') return payload;
  if (typeof payload === 'object' && payload !== null) {
    const p = payload as Record<string, unknown>;
    for (const key of ['text', 'content', 'message']) if (typeof p[key] === 'string') return p[key] as string;
  }
  return null;
}

/** Handles one envelope; a returned promise is work later envelopes of this connection must wait for (register). */
export function handleIntercomEnvelope(core: HubCore, conn: HubConnection, env: Record<string, unknown>): Promise<void> | void {
  const replyTo = typeof env.id === 'string' || typeof env.id === 'number' ? String(env.id) : null;
  const failWith = (error: SwbErrorValue) =>
    conn.write(envelope('error', { reply_to: replyTo, to_session: conn.identity?.handle ?? null, payload: intercomErrorPayload(error) }));
  const fail = (code: Parameters<typeof swbError>[0], message: string) => failWith(swbError(code, message));

  switch (env.type) {
    case 'register': {
      const session = env.from_session;
      if (typeof session !== 'string' || !HANDLE_PATTERN.test(session)) {
        fail('BAD_REQUEST', 'register needs from_session: a handle of 1-64 of A-Z a-z 0-9 . _ -');
        return;
      }
      const payload = typeof env.payload === 'object' && env.payload !== null ? (env.payload as Record<string, unknown>) : {};
      const token = typeof payload.token === 'string' ? payload.token : undefined;
      return core.sessions.claim(conn, session, token).then((err) => {
        if (err) {
          failWith(err);
          return;
        }
        conn.subscription = 'mine';
        // The seed protocol's welcome lists peers: the online ones, one page at most.
        const { peers } = core.sessions.peersPage({ onlineOnly: true });
        conn.write(envelope('welcome', { reply_to: replyTo, to_session: session, payload: { session, peers } }));
      });
    }
    case 'chat': {
      const who = conn.identity;
      if (!who) {
        fail('UNAUTHENTICATED', 'Send register first.');
        return;
      }
      const target = env.to_session;
      const text = textOf(env.payload);
      if (typeof target !== 'string' || (target !== '*' && !HANDLE_PATTERN.test(target))) {
        fail('BAD_REQUEST', 'chat needs to_session: a handle, or * to broadcast.');
        return;
      }
      if (text === null) {
        fail('BAD_REQUEST', 'chat needs a payload: a string or {"text": ...}.');
        return;
      }
      const kind = MESSAGE_KINDS.includes(env.channel as MessageKind) ? (env.channel as MessageKind) : 'msg';
      const parent = typeof env.reply_to === 'string' || typeof env.reply_to === 'number' ? Number(env.reply_to) : NaN;
      const messageId = replyTo !== null && MESSAGE_ID_PATTERN.test(replyTo) ? replyTo : undefined;
      void core.sends
        .send(who.handle, {
          to: [target === '*' ? BROADCAST : target],
          text,
          kind,
          ...(Number.isSafeInteger(parent) && parent > 0 ? { replyTo: parent } : {}),
          ...(messageId ? { messageId } : {}),
        })
        .then((r) => {
          if ('error' in r) failWith(r.error);
          else conn.write(envelope('ack', { reply_to: replyTo, to_session: who.handle, payload: { id: r.ok.id, state: 'accepted', recipients: r.ok.recipients } }));
        });
      return;
    }
    default:
      fail('BAD_REQUEST', `Unknown envelope type ${JSON.stringify(String(env.type).slice(0, 32))}.`);
  }
}
