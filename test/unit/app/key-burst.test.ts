import { describe, expect, it } from 'vitest';
import { splitKeyBurst } from '../../../src/app/key-burst.js';
import { key } from './key.js';

/** The steps as short labels: text in quotes, keys by name. */
function labels(input: string): string[] {
  return splitKeyBurst(input, key()).map(([text, k]) =>
    k.tab ? 'Tab' : k.return ? 'Enter' : k.delete || k.backspace ? 'Backspace' : k.ctrl ? `Ctrl-${text}` : JSON.stringify(text),
  );
}

describe('splitKeyBurst', () => {
  it('gives a single key back as Ink parsed it', () => {
    const tab = key({ tab: true });
    expect(splitKeyBurst('\t', tab)).toEqual([['\t', tab]]);
    expect(splitKeyBurst('a', key())).toEqual([['a', key()]]);
  });

  it('splits text from the control keys typed after it, in order', () => {
    expect(labels('@cl\t')).toEqual(['"@cl"', 'Tab']);
    expect(labels('ab\x7fc\x08d')).toEqual(['"ab"', 'Backspace', '"c"', 'Backspace', '"d"']);
    expect(labels('x\x15y\x17')).toEqual(['"x"', 'Ctrl-u', '"y"', 'Ctrl-w']);
    expect(labels('hi there\r')).toEqual(['"hi there"', 'Enter']);
  });

  it('drops control bytes no line editor reads rather than passing them on as text', () => {
    expect(labels('a\x00\x1cb')).toEqual(['"a"', '"b"']);
  });

  it('takes a burst with line breaks inside as a paste: one text, tabs and breaks as spaces, no keys', () => {
    expect(labels('one\rtwo\r\nthree\tfour\r')).toEqual(['"one two three four "']);
    expect(labels('one\n')).toEqual(['"one "']);
  });
});
