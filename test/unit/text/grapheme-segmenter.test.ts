import { describe, expect, it } from 'vitest';
import { lazyGraphemeSegmenter } from '../../../src/text/grapheme-segmenter.js';

const icu = new Intl.Segmenter();
const clusters = (segments: Iterable<Intl.SegmentData>) => [...segments].map(({ segment, index, input }) => ({ segment, index, input }));

/** Every UTF-16 unit of the ranges the segmenter answers without ICU. */
function* fastUnits(): Generator<string> {
  for (const [from, to] of [
    [0x00, 0x0c],
    [0x0e, 0x2ff],
    [0x2010, 0x20cf],
    [0x2100, 0x2bff],
  ] as const) {
    for (let c = from; c <= to; c++) yield String.fromCharCode(c);
  }
}

describe('lazyGraphemeSegmenter', () => {
  it('gives what Intl.Segmenter gives for every unit it answers alone, beside itself and beside its neighbours', () => {
    const units = [...fastUnits()];
    const segmenter = lazyGraphemeSegmenter();
    for (let i = 0; i < units.length; i++) {
      const text = `a${units[i]}${units[i]}${units[(i + 1) % units.length]}b`;
      expect(clusters(segmenter.segment(text)), `U+${units[i]!.charCodeAt(0).toString(16)}`).toEqual(clusters(icu.segment(text)));
    }
  });

  it('hands text that joins (CR LF, combining marks, ZWJ emoji, flags, jamo, surrogates) to the real segmenter', () => {
    const segmenter = lazyGraphemeSegmenter(undefined, { granularity: 'grapheme' });
    for (const text of ['a\r\nb', 'e\u0301x', '👩\u200d💻!', '🇯🇵', '\u1100\u1161\u11a8', '✔\ufe0f ok', 'a\u20d7', '\u2500\u0308', '']) {
      expect(clusters(segmenter.segment(text)), JSON.stringify(text)).toEqual(clusters(icu.segment(text)));
    }
  });

  it('answers containing() as Intl.Segmenter does, inside and outside the text', () => {
    const segmenter = lazyGraphemeSegmenter();
    const text = '│ row-1 · idle ▸ 3m';
    for (const at of [0, 1, 5, text.length - 1, text.length, -1, 2.7, undefined]) {
      const mine = segmenter.segment(text).containing(at as number);
      const real = icu.segment(text).containing(at as number);
      expect(mine && { segment: mine.segment, index: mine.index, input: mine.input }, String(at)).toEqual(real && { segment: real.segment, index: real.index, input: real.input });
    }
  });

  it('leaves other granularities to Intl.Segmenter itself', () => {
    const words = lazyGraphemeSegmenter('en', { granularity: 'word' });
    expect([...words.segment('two words')].map((s) => s.segment)).toEqual(['two', ' ', 'words']);
  });
});
