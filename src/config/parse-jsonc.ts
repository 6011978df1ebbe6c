// The operator's JSON files — config, themes, agent profiles — may hold comments and trailing
// commas (JSONC), parsed by jsonc-parser, which also says where a syntax error is. Values are built
// from its syntax tree with own properties only, so a key named "__proto__" is an ordinary (and,
// to the strict schemas, unknown) key, never a prototype.
import { parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';

export type JsoncResult = { ok: true; value: unknown } | { ok: false; line: number; column: number; problem: string };

const MAX_DEPTH = 256;

export function parseJsonc(text: string): JsoncResult {
  // The parser recurses per level: hostile nesting is refused before it can overflow the stack.
  const deep = tooDeepAt(text);
  if (deep >= 0) return { ok: false, ...lineColumn(text, deep), problem: `nested more than ${MAX_DEPTH} levels` };
  // Most files are plain JSON (every theme and profile swb ships): V8's own parser builds the same
  // value (own properties, "__proto__" an ordinary key, the last of a repeated key) in a fraction of
  // the time — the tree parser took 5-8 ms of a cold start's way to its first frame on one theme
  // (issue #33). Comments, trailing commas and mistakes go on to the tree parser, which says where.
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    // not plain JSON
  }
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  const first = errors[0];
  if (first || !tree) {
    const offset = first?.offset ?? 0;
    return { ok: false, ...lineColumn(text, offset), problem: first ? describe(printParseErrorCode(first.error)) : 'the file is empty' };
  }
  try {
    return { ok: true, value: valueOf(tree, 0) };
  } catch (err) {
    if (!(err instanceof DepthError)) throw err;
    return { ok: false, ...lineColumn(text, err.offset), problem: `nested deeper than ${MAX_DEPTH} levels` };
  }
}

/** The offset where brackets (outside strings and comments) nest past MAX_DEPTH, or -1. */
function tooDeepAt(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // a string: to its closing quote, escapes skipped
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x2f && text.charCodeAt(i + 1) === 0x2f) {
      while (i < text.length && text.charCodeAt(i) !== 0x0a) i++;
    } else if (c === 0x2f && text.charCodeAt(i + 1) === 0x2a) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_DEPTH) return i;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return -1;
}

class DepthError extends Error {
  constructor(readonly offset: number) {
    super('too deep');
  }
}

function valueOf(node: Node, depth: number): unknown {
  if (depth > MAX_DEPTH) throw new DepthError(node.offset);
  switch (node.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const prop of node.children ?? []) {
        const [key, value] = prop.children ?? [];
        if (!key || !value) continue;
        Object.defineProperty(out, String(key.value), { value: valueOf(value, depth + 1), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    case 'array':
      return (node.children ?? []).map((c) => valueOf(c, depth + 1));
    default:
      return node.value;
  }
}

/** jsonc-parser's codes as sentences a person can act on. */
const PROBLEMS: Record<string, string> = {
  InvalidSymbol: 'unknown word (strings need double quotes; the literals are true, false, null)',
  InvalidNumberFormat: 'malformed number',
  PropertyNameExpected: 'expected a property name in double quotes',
  ValueExpected: 'expected a value',
  ColonExpected: 'expected ":"',
  CommaExpected: 'expected ","',
  CloseBraceExpected: 'missing "}"',
  CloseBracketExpected: 'missing "]"',
  EndOfFileExpected: 'unexpected text after the end',
  InvalidCommentToken: 'malformed comment',
  UnexpectedEndOfComment: 'unterminated comment',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'malformed number',
  InvalidUnicode: 'bad \\u escape',
  InvalidEscapeCharacter: 'bad escape',
  InvalidCharacter: 'raw control character in a string',
};

function describe(code: string): string {
  return PROBLEMS[code] ?? code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
