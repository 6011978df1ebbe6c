// Client-chosen message ids make a retry after a lost answer safe: the hub stores the message
// once and answers the retry with the same receipt. They only need to be unique per sender, so
// time plus 60 random bits will do (node:crypto is not loaded on this start-up-critical path).

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

export function newMessageId(): string {
  let random = '';
  for (let i = 0; i < 10; i++) random += ALPHABET[Math.floor(Math.random() * 62)];
  return `m-${Date.now().toString(36)}-${random}`;
}
