import { describe, expect, it } from 'vitest';
import { pasteBytes, pasteText } from '../../../src/text/paste-text.js';

describe('pasteText / pasteBytes', () => {
  it('keeps the lines of plain text and sends line breaks as the Enter key (CR)', () => {
    expect(pasteText('one\r\ntwo\nthree')).toBe('one\ntwo\nthree');
    expect(pasteBytes('one\ntwo', false)).toBe('one\rtwo');
  });

  it('wraps the text in the bracketed-paste markers when the program asked for them', () => {
    expect(pasteBytes('a\nb', true)).toBe('\x1b[200~a\rb\x1b[201~');
  });

  it('never passes on a control sequence: escapes, C0 and C1 controls are dropped, so nothing ends the bracket early', () => {
    const hostile = 'ok\x1b[201~\x1b]52;c;AAAA\x07rm -rf /\x1b[2J\x9b31m\x00\x08end';
    const bytes = pasteBytes(hostile, true);
    const inner = bytes.slice('\x1b[200~'.length, -'\x1b[201~'.length);
    expect(inner).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(inner).toContain('ok');
    expect(inner).toContain('end');
    expect(bytes.match(/\x1b\[201~/g)).toHaveLength(1);
  });
});
