// The id of a JSON-RPC request read from the first bytes of its line alone, for answering a line that
// is too long (or broken) to parse whole: an error about a request should name it, so the client
// can tell which call failed. Only a top-level "id" member counts (never an "id" inside params); a
// head that does not reach it, or a value cut off by the end of the head, gives null, as JSON-RPC
// says to answer when the id cannot be known.
import type { RpcId } from '../protocol/rpc.js';

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/;

export function idFromHead(head: string): RpcId | null {
  let i = skipSpace(head, 0);
  if (head[i] !== '{') return null;
  let depth = 0;
  /** The last structural character seen: a string at depth 1 after `{` or `,` is a member's name. */
  let previous = '';
  while (i < head.length) {
    const c = head[i]!;
    if (c === '"') {
      const end = stringEnd(head, i);
      if (end === -1) return null;
      const isName = depth === 1 && (previous === '{' || previous === ',');
      const token = head.slice(i, end + 1);
      i = end + 1;
      previous = '"';
      if (isName) {
        const colon = skipSpace(head, i);
        if (head[colon] !== ':') return null;
        if (parseString(token) === 'id') return idValue(head, skipSpace(head, colon + 1));
        i = colon + 1;
        previous = ':';
      }
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    if ('{}[],:'.includes(c)) previous = c;
    i++;
  }
  return null;
}

/** The id's value at `at`, only when it is whole within the head (followed by a delimiter). */
function idValue(head: string, at: number): RpcId | null {
  let end: number;
  let value: unknown;
  if (head[at] === '"') {
    const close = stringEnd(head, at);
    if (close === -1) return null;
    end = close + 1;
    value = parseString(head.slice(at, end));
  } else {
    const m = NUMBER.exec(head.slice(at, at + 64));
    if (!m) return null;
    end = at + m[0].length;
    value = Number(m[0]);
  }
  const after = head[skipSpace(head, end)];
  if (after !== ',' && after !== '}') return null;
  if (typeof value === 'string') return value.length <= 128 ? value : null;
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** Index of the quote closing the string that opens at `open`, or -1 when the head ends first. */
function stringEnd(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

/** A JSON string token's value, or null when its escapes are broken. */
function parseString(token: string): string | null {
  try {
    return JSON.parse(token) as string;
  } catch {
    return null;
  }
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && (text[at] === ' ' || text[at] === '\t' || text[at] === '\n' || text[at] === '\r')) at++;
  return at;
}
