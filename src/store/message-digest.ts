// What makes two sends "the same message" for idempotent retries: recipients as asked, kind,
// thread and text. Same sender + messageId + digest = retry; a different digest = conflict.
// Computed for every accept: one recipient needs no set and no sort, and Node's one-shot hash
// (crypto.hash, Node 20.12+) skips the Hash object; the digest is the same either way.
import * as crypto from 'node:crypto';

type OneShotHash = (algorithm: string, data: string, outputEncoding: 'base64url') => string;
const oneShot = (crypto as unknown as { hash?: OneShotHash }).hash;

export function messageDigest(requestedTo: readonly string[], kind: string, replyTo: number | null, text: string): string {
  const to = requestedTo.length === 1 ? requestedTo : [...new Set(requestedTo)].sort();
  const json = JSON.stringify([to, kind, replyTo, text]);
  const digest = oneShot ? oneShot('sha256', json, 'base64url') : crypto.createHash('sha256').update(json).digest('base64url');
  return digest.slice(0, 32);
}
