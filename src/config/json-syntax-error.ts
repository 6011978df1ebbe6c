// Finds where and why a JSON text is malformed, for config and theme errors a person can act on
// ("switchboard.json:12:5: trailing comma is not allowed"). Only runs after JSON.parse has failed, so it
// validates without building values. Depth is capped so hostile nesting cannot overflow the stack.

export interface JsonSyntaxProblem {
  offset: number;
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units. */
  column: number;
  problem: string;
}

const MAX_DEPTH = 256;

class Stop {
  constructor(
    readonly offset: number,
    readonly problem: string,
  ) {}
}

export function findJsonSyntaxError(text: string): JsonSyntaxProblem | null {
  try {
    new JsonChecker(text).document();
    return null;
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
    return { ...lineColumn(text, err.offset), offset: err.offset, problem: err.problem };
  }
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

function show(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  return cp >= 0x21 && cp < 0x7f ? `"${ch}"` : `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

class JsonChecker {
  private pos = 0;
  constructor(private readonly text: string) {}

  document(): void {
    this.ws();
    if (this.pos >= this.text.length) throw new Stop(this.pos, 'the file is empty (expected a JSON object)');
    this.value(0);
    this.ws();
    if (this.pos < this.text.length) throw new Stop(this.pos, 'unexpected content after the end of the JSON value');
  }

  private ws(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t[this.pos];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') this.pos++;
      else break;
    }
  }

  private value(depth: number): void {
    if (depth > MAX_DEPTH) throw new Stop(this.pos, `nested more than ${MAX_DEPTH} levels deep`);
    const t = this.text;
    const c = t[this.pos];
    if (c === undefined) throw new Stop(this.pos, 'unexpected end of file (a value is missing)');
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"') return this.string();
    if (c === '-' || (c >= '0' && c <= '9')) return this.number();
    for (const word of ['true', 'false', 'null']) {
      if (t.startsWith(word, this.pos)) {
        this.pos += word.length;
        return;
      }
    }
    if (c === '/') throw new Stop(this.pos, 'comments are not allowed in JSON');
    if (c === "'") throw new Stop(this.pos, 'strings must use double quotes');
    if (c === '}' || c === ']' || c === ',') throw new Stop(this.pos, `expected a value before ${show(c)}`);
    const word = /^[A-Za-z_$][\w$]*/.exec(t.slice(this.pos, this.pos + 32))?.[0];
    if (word) throw new Stop(this.pos, `unknown word "${word}" (strings need double quotes; literals are true, false, null)`);
    throw new Stop(this.pos, `unexpected character ${show(c)}`);
  }

  private object(depth: number): void {
    this.pos++; // {
    this.ws();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return;
    }
    let commaAt = -1;
    for (;;) {
      this.ws();
      const c = this.text[this.pos];
      if (c === '}') throw new Stop(commaAt, 'trailing comma is not allowed');
      if (c === undefined) throw new Stop(this.pos, 'unexpected end of file inside an object (missing "}")');
      if (c === "'") throw new Stop(this.pos, 'property names must use double quotes');
      if (c !== '"') throw new Stop(this.pos, `expected a double-quoted property name, found ${show(c)}`);
      this.string();
      this.ws();
      if (this.text[this.pos] !== ':') throw new Stop(this.pos, 'expected ":" after the property name');
      this.pos++;
      this.ws();
      this.value(depth + 1);
      this.ws();
      const next = this.text[this.pos];
      if (next === ',') {
        commaAt = this.pos++;
        continue;
      }
      if (next === '}') {
        this.pos++;
        return;
      }
      if (next === undefined) throw new Stop(this.pos, 'unexpected end of file inside an object (missing "}")');
      throw new Stop(this.pos, `expected "," or "}" after a property value, found ${show(next)}`);
    }
  }

  private array(depth: number): void {
    this.pos++; // [
    this.ws();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return;
    }
    let commaAt = -1;
    for (;;) {
      this.ws();
      if (this.text[this.pos] === ']') throw new Stop(commaAt, 'trailing comma is not allowed');
      this.value(depth + 1);
      this.ws();
      const next = this.text[this.pos];
      if (next === ',') {
        commaAt = this.pos++;
        continue;
      }
      if (next === ']') {
        this.pos++;
        return;
      }
      if (next === undefined) throw new Stop(this.pos, 'unexpected end of file inside an array (missing "]")');
      throw new Stop(this.pos, `expected "," or "]" after an array item, found ${show(next)}`);
    }
  }

  private string(): void {
    const t = this.text;
    const start = this.pos;
    this.pos++; // "
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === 0x22) {
        this.pos++;
        return;
      }
      if (c < 0x20) throw new Stop(this.pos, 'raw control character in a string (write a newline as \\n, a tab as \\t)');
      if (c === 0x5c) {
        const e = t[this.pos + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(t.slice(this.pos + 2, this.pos + 6))) throw new Stop(this.pos, 'bad \\u escape (needs 4 hex digits)');
          this.pos += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) throw new Stop(this.pos, 'bad escape in a string (valid: \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)');
        this.pos += 2;
        continue;
      }
      this.pos++;
    }
    throw new Stop(start, 'unterminated string');
  }

  private number(): void {
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(this.text.slice(this.pos, this.pos + 400));
    if (!m || m[0] === '-' || m[0] === '') throw new Stop(this.pos, 'malformed number');
    const after = this.text[this.pos + m[0].length];
    if (after !== undefined && /[0-9.eE+-]/.test(after)) throw new Stop(this.pos, 'malformed number (no leading zeros, a digit after "." and "e")');
    this.pos += m[0].length;
  }
}
