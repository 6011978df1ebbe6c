import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../helpers/seeded-random.js';
import { sanitize, TRUNCATION_MARKER_MAX, type SanitizeOptions } from '../../../src/text/sanitize.js';
import { CHAR_CLASSES, classifyCodePoint } from '../../../src/text/char-classes.js';
import { INTRODUCERS, scanEscapeSequence } from '../../../src/text/escape-sequences.js';
import { HOSTILE_CASES } from '../../fixtures/hostile/corpus.js';

const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/** The rules every output must keep, whatever the input. */
function expectTerminalSafe(out: string, opts: SanitizeOptions = {}): void {
  for (let i = 0; i < out.length; i++) {
    const c = out.charCodeAt(i);
    if ((c < 0x20 && c !== 0x0a) || c === 0x7f || (c >= 0x80 && c <= 0x9f)) {
      throw new Error(`unsafe U+${c.toString(16).padStart(4, '0')} at ${i} in ${JSON.stringify(out.slice(0, 200))}`);
    }
  }
  expect(out).not.toMatch(BIDI);
  expect(out).not.toMatch(/[\ud800-\udfff]/u); // lone surrogates only, with the u flag
  expect(out).not.toMatch(/[\u{e0000}-\u{e007f}\u200b-\u200d\u2060\ufeff]/u);
  const maxChars = opts.maxChars ?? 4000;
  expect(out.length).toBeLessThanOrEqual(maxChars + TRUNCATION_MARKER_MAX);
  const maxLines = opts.singleLine ? 1 : Math.max(1, opts.maxLines ?? 20);
  expect(out.split('\n').length).toBeLessThanOrEqual(maxLines);
  if (opts.singleLine) expect(out).not.toContain('\n');
}

describe('sanitize: the hostile corpus', () => {
  for (const c of HOSTILE_CASES) {
    it(`makes "${c.name}" safe in both placeholder modes`, () => {
      const strip = sanitize(c.input, { placeholder: 'strip' });
      const visible = sanitize(c.input);
      expectTerminalSafe(strip);
      expectTerminalSafe(visible);
      if (c.strip !== undefined) expect(strip).toBe(c.strip);
      if (c.visible !== undefined) expect(visible).toBe(c.visible);
      if (c.secret !== undefined) {
        expect(strip).not.toContain(c.secret);
        expect(visible).not.toContain(c.secret);
      }
      const single = sanitize(c.input, { singleLine: true, maxChars: 200 });
      expectTerminalSafe(single, { singleLine: true, maxChars: 200 });
    });
  }
});

describe('sanitize: plain text', () => {
  const plain = [
    '',
    'hello world',
    'héllo naïve café — “quotes” ‘single’ … ©®™',
    'e\u0301 combining acute, n\u0303',
    '日本語のテキスト、漢字とかな',
    '한국어 텍스트',
    '中文：全角标点。',
    'Ｆｕｌｌｗｉｄｔｈ',
    '😀 🎉 👍🏽 🇯🇵 ❤️ 1️⃣',
    'Ελληνικά, русский, עברית, العربية',
    'multi\nline\ntext\n',
    'a@b.com and @peer mentions, <tags> & {braces} [brackets] $vars `code` \\backslash',
    '␛ ␀ placeholders themselves are ordinary text',
  ];
  for (const text of plain) {
    it(`passes ${JSON.stringify(text.slice(0, 30))} through unchanged`, () => {
      expect(sanitize(text)).toBe(text);
      expect(sanitize(new TextEncoder().encode(text))).toBe(text);
    });
  }

  it('returns the same string object on the fast path', () => {
    const s = 'nothing to do here';
    expect(sanitize(s)).toBe(s);
  });
});

describe('sanitize: tabs', () => {
  it('expands tabs to the next tab stop, counting cells from the line start', () => {
    expect(sanitize('\tx')).toBe('    x');
    expect(sanitize('ab\tx')).toBe('ab  x');
    expect(sanitize('abcd\tx')).toBe('abcd    x');
    expect(sanitize('日\tx')).toBe('日  x');
    expect(sanitize('a\nb\tx')).toBe('a\nb   x');
    expect(sanitize('a\tb', { tabWidth: 8 })).toBe('a       b');
  });
});

describe('sanitize: limits', () => {
  it('cuts long text at maxChars with an ellipsis', () => {
    const out = sanitize('x'.repeat(100), { maxChars: 10 });
    expect(out).toBe(`${'x'.repeat(10)}…`);
  });

  it('cuts extra lines and says how many were hidden', () => {
    expect(sanitize('a\nb\nc\nd', { maxLines: 2 })).toBe('a\nb… (+2 lines)');
    expect(sanitize('a\nb', { maxLines: 1 })).toBe('a… (+1 line)');
  });

  it('does not mark a cut when only trailing newlines were dropped', () => {
    expect(sanitize('a\n\n\n', { maxLines: 1 })).toBe('a');
  });

  it('reports hidden lines after a character cut', () => {
    expect(sanitize('abcdef\nxyz\nq', { maxChars: 3 })).toBe('abc… (+2 lines)');
  });

  it('never splits a surrogate pair when cutting', () => {
    const out = sanitize('a😀😀', { maxChars: 2 });
    expect(out).toBe('a…');
  });

  it('does not count stripped sequences as hidden content', () => {
    expect(sanitize('a\n\x1b[0m', { maxLines: 1, placeholder: 'strip' })).toBe('a');
  });

  it('bounds 10,000 lines to maxLines', () => {
    const out = sanitize('line\n'.repeat(10_000));
    expect(out.split('\n')).toHaveLength(20);
    expect(out.endsWith('… (+9980 lines)')).toBe(true);
  });

  it('bounds a 100,000-character line to maxChars', () => {
    const out = sanitize('A'.repeat(100_000));
    expect(out).toBe(`${'A'.repeat(4000)}…`);
  });
});

describe('sanitize: singleLine', () => {
  it('shows newlines as ⏎, or spaces when stripping', () => {
    expect(sanitize('a\nb\r\nc', { singleLine: true })).toBe('a⏎b⏎c');
    expect(sanitize('a\nb', { singleLine: true, placeholder: 'strip' })).toBe('a b');
  });
});

describe('sanitize: escape sequence table, class by class', () => {
  for (const row of INTRODUCERS) {
    const seven = `\x1b${row.escFinal}`;
    const eight = String.fromCharCode(row.c1);
    const body = row.body === 'control' ? '1;2m' : row.body === 'single' ? 'x' : 'payload\x07';
    for (const [form, intro] of [['7-bit', seven], ['8-bit', eight]] as const) {
      it(`${row.cls} (${form}) is recognised and removed whole`, () => {
        const text = `${intro}${body}rest`;
        expect(scanEscapeSequence(text, 0)).toEqual({ cls: row.cls, end: intro.length + body.length, terminated: true });
        expect(sanitize(`<${text}`, { placeholder: 'strip' })).toBe('<rest');
      });
    }
    if (row.body === 'string') {
      it(`${row.cls} ends at ST (ESC \\ and U+009C) and runs to the end when unterminated`, () => {
        expect(scanEscapeSequence(`${seven}p\x1b\\z`, 0)).toEqual({ cls: row.cls, end: 5, terminated: true });
        expect(scanEscapeSequence(`${seven}p\u009cz`, 0)).toEqual({ cls: row.cls, end: 4, terminated: true });
        expect(scanEscapeSequence(`${seven}p\nq`, 0)).toEqual({ cls: row.cls, end: 5, terminated: false });
      });
    }
  }

  it('recognises two-byte escapes, nF escapes and lone ESC', () => {
    expect(scanEscapeSequence('\x1bc', 0)).toEqual({ cls: 'ESC', end: 2, terminated: true });
    expect(scanEscapeSequence('\x1b(0x', 0)).toEqual({ cls: 'nF', end: 3, terminated: true });
    expect(scanEscapeSequence('\x1b %', 0)).toEqual({ cls: 'nF', end: 3, terminated: false });
    expect(scanEscapeSequence('\x1b', 0)).toEqual({ cls: 'loneESC', end: 1, terminated: false });
    expect(scanEscapeSequence('\x1b\u00e9', 0)).toEqual({ cls: 'loneESC', end: 1, terminated: false });
  });

  it('leaves other characters and other C1 controls to the character table', () => {
    expect(scanEscapeSequence('a', 0)).toBeNull();
    expect(scanEscapeSequence('\u0085', 0)).toBeNull();
    expect(scanEscapeSequence('\u009c', 0)).toBeNull();
  });
});

describe('sanitize: character class table, class by class', () => {
  for (const row of CHAR_CLASSES) {
    it(`classifies every range edge of ${row.cls}`, () => {
      for (const [first, last] of row.ranges) {
        expect(classifyCodePoint(first)).toBe(row.cls);
        expect(classifyCodePoint(last)).toBe(row.cls);
      }
    });
    it(`never lets ${row.cls} through in strip mode, except where documented`, () => {
      for (const [first, last] of row.ranges) {
        for (const cp of [first, last, (first + last) >> 1]) {
          const ch = String.fromCodePoint(cp);
          const out = sanitize(`a${ch}b`, { placeholder: 'strip' });
          expectTerminalSafe(out);
          if (scanEscapeSequence(ch, 0)) expect(out).toBe('a'); // ESC / C1 introducer: a sequence, takes the 'b'
          else if (row.cls === 'lineBreak') expect(out).toBe('a\nb');
          else if (row.cls === 'noncharacter') expect(out).toBe('a\ufffdb');
          else if (row.cls === 'variationSelector') expect(out).toBe(`a${ch}b`); // kept once after a character
          else expect(out).toBe('ab');
        }
      }
    });
  }

  it('drops a variation selector that follows nothing', () => {
    expect(sanitize('\ufe0fa', { placeholder: 'strip' })).toBe('a');
    expect(sanitize('a\ufe0f\ufe0f', { placeholder: 'strip' })).toBe('a\ufe0f');
    expect(sanitize('\n\ufe0f')).toBe('\n�');
  });

  it('does not classify ordinary characters, newline or tab', () => {
    for (const cp of [0x09, 0x0a, 0x20, 0x41, 0xa0, 0xe9, 0x4e00, 0x1f600]) expect(classifyCodePoint(cp)).toBeNull();
  });
});

const PIECES = [
  '\x1b', '[', ']', 'P', '_', '^', 'X', '\\', '\x07', '\x18', ';', '0', '1', '2', '?', 'm', 'H', 'J', 'a', ' ',
  '\n', '\r', '\t', '\b', '\0', '\x7f', '\u009b', '\u009c', '\u009d', '\u0090', '\u0085', '\u202e', '\u2066',
  '\u200b', '\u200d', '\ufe0f', '\u{e0041}', '\u{e0101}', '\ud800', '\udc00', '😀', '日', 'e\u0301', '\u2028', '\ufffe',
];

function randomString(rand: () => number): string {
  const len = Math.floor(rand() * 120);
  let s = '';
  for (let i = 0; i < len; i++) {
    const r = rand();
    if (r < 0.6) s += PIECES[Math.floor(rand() * PIECES.length)];
    else if (r < 0.9) s += String.fromCharCode(Math.floor(rand() * 0x10000)); // any BMP code unit, surrogates too
    else s += String.fromCodePoint(Math.floor(rand() * 0x110000) & ~0x800 /* avoid surrogate range */);
  }
  return s;
}

describe('sanitize: fuzz', () => {
  it('always produces safe, bounded output and never throws (2000 seeded cases)', () => {
    const rand = seededRandom(0x5eed);
    for (let n = 0; n < 2000; n++) {
      const opts: SanitizeOptions = {
        maxChars: 1 + Math.floor(rand() * 300),
        maxLines: 1 + Math.floor(rand() * 6),
        singleLine: rand() < 0.2,
        placeholder: rand() < 0.5 ? 'strip' : 'visible',
      };
      let input: string | Uint8Array;
      if (rand() < 0.3) {
        const bytes = new Uint8Array(Math.floor(rand() * 200));
        for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(rand() * 256);
        input = bytes;
      } else input = randomString(rand);
      let out = '';
      try {
        out = sanitize(input, opts);
        expectTerminalSafe(out, opts);
      } catch (err) {
        throw new Error(`case ${n} ${JSON.stringify(typeof input === 'string' ? input : [...input])} ${JSON.stringify(opts)}: ${String(err)}`);
      }
    }
  });

  it('is idempotent when nothing was cut', () => {
    const rand = seededRandom(42);
    for (let n = 0; n < 500; n++) {
      const input = randomString(rand);
      const opts: SanitizeOptions = { maxChars: 100_000, maxLines: 100_000, placeholder: rand() < 0.5 ? 'strip' : 'visible' };
      const once = sanitize(input, opts);
      expect(sanitize(once, opts)).toBe(once);
    }
  });
});
