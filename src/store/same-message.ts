// What makes two sends "the same message" for idempotent retries: recipients as asked, kind,
// thread and text. Same sender + messageId + same content = a retry (answered as the first accept);
// different content = MESSAGE_ID_CONFLICT.
//
// Retries are rare and the store's unique key (sender, message_id) catches every one, so an accept
// computes no hash: a new row keeps in `messages.retry_key` only what the row does not hold itself, the
// recipients as asked (`all` kept; canonical: one as written, more deduplicated and sorted) as JSON,
// and a retry is compared with the stored row — kind, thread and text read back from it. Rows stored
// before schema 9 hold a sha256 digest of all four instead (32 base64url characters, never starting
// with '['): a retry of one of those is hashed the old way and compared with it, so the promise
// holds for old mail and across restarts.
import * as crypto from 'node:crypto';

/** What a retry is compared with: the stored row's own columns. */
export interface StoredContent {
  kind: string;
  text: string;
  reply_to: number | null;
  /** requestedKey(...) from schema 9 on; a sha256 messageDigest(...) in older rows. */
  retry_key: string;
}

/**
 * The recipients as asked, canonical, as JSON: the `retry_key` column of a new row. `recipientsJson`
 * is the row's recipients column (JSON of `to`), reused when the sender asked for exactly its one
 * recipient (most mail), so an accept makes no second string.
 */
export function requestedKey(requestedTo: readonly string[], to: readonly string[], recipientsJson: string): string {
  if (requestedTo.length === 1) return to.length === 1 && to[0] === requestedTo[0] ? recipientsJson : JSON.stringify(requestedTo);
  return JSON.stringify([...new Set(requestedTo)].sort());
}

/** Whether a retry (recipients as asked, kind, thread, text) is the message stored in `row`. */
export function sameMessage(row: StoredContent, requestedTo: readonly string[], kind: string, replyTo: number | null, text: string): boolean {
  if (!row.retry_key.startsWith('[')) return row.retry_key === messageDigest(requestedTo, kind, replyTo, text);
  return row.kind === kind && row.reply_to === replyTo && row.text === text && row.retry_key === requestedKey(requestedTo, [], '');
}

type OneShotHash = (algorithm: string, data: string, outputEncoding: 'base64url') => string;
const oneShot = (crypto as unknown as { hash?: OneShotHash }).hash;

/** The digest rows before schema 9 hold (and only they: see the header). */
export function messageDigest(requestedTo: readonly string[], kind: string, replyTo: number | null, text: string): string {
  const to = requestedTo.length === 1 ? requestedTo : [...new Set(requestedTo)].sort();
  const json = JSON.stringify([to, kind, replyTo, text]);
  const digest = oneShot ? oneShot('sha256', json, 'base64url') : crypto.createHash('sha256').update(json).digest('base64url');
  return digest.slice(0, 32);
}
