// What makes two sends "the same message" for idempotent retries: recipients as asked, kind,
// thread and text. Same sender + messageId + digest = retry; a different digest = conflict.
import { createHash } from 'node:crypto';

export function messageDigest(requestedTo: readonly string[], kind: string, replyTo: number | null, text: string): string {
  const to = [...new Set(requestedTo)].sort();
  return createHash('sha256').update(JSON.stringify([to, kind, replyTo, text])).digest('base64url').slice(0, 32);
}
