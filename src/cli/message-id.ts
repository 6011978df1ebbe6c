// Client-chosen message ids make a retry after a lost answer safe: the hub stores the message
// once and answers the retry with the same receipt.
import { randomBytes } from 'node:crypto';

export function newMessageId(): string {
  return `m-${Date.now().toString(36)}-${randomBytes(6).toString('base64url')}`;
}
