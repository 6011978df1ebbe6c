// A small non-cryptographic hash (FNV-1a, two independent 32-bit lanes) for naming things such
// as a workspace's runtime directory. Used instead of node:crypto on the CLI path because loading
// the crypto module costs more than the rest of `swb send` (start-up is an agent's hot path).
// Never use it where an adversary chooses the input and a collision matters.

export function fnvHex(text: string, hexChars = 16): string {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c ^ (i & 0xff), 0x01000193) >>> 0;
  }
  return (a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0')).slice(0, hexChars);
}
