// Widths for text Ink lays out: string-width's count, cut only between grapheme clusters, and the proof that
// matters: a line padded to a width is laid out by Ink at exactly that width, untouched.
import { Box, Text } from 'ink';
import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { padToWidth } from '../../../src/text/cell-width.js';
import { inkClusters, inkWidth, padToInkWidth, truncateToInkWidth } from '../../../src/text/ink-width.js';
import { plain } from '../components/ink-test.js';

afterEach(() => cleanup());

describe('inkWidth', () => {
  it.each([
    ['', 0],
    ['hello', 5],
    ['日本語', 6],
    ['ｶﾀｶﾅ', 4],
    ['e\u0301', 1],
    ['😀', 2],
    ['👍🏽', 2], // one cluster
    ['👨\u200d👩\u200d👧', 2], // one ZWJ cluster
    ['🇯🇵', 2],
    ['❤️', 2], // VS16 makes it an emoji
    ['1️⃣', 2],
    ['a\u200bb', 2],
    ['\x1b[31mred\x1b[0m', 3], // Ink strips escapes before measuring
  ])('%j is %i cells', (s, w) => {
    expect(inkWidth(s)).toBe(w);
  });
});

describe('truncateToInkWidth', () => {
  it('leaves text that fits alone', () => {
    expect(truncateToInkWidth('hello', 5)).toBe('hello');
    expect(truncateToInkWidth('👨\u200d👩\u200d👧❤️', 4)).toBe('👨\u200d👩\u200d👧❤️');
  });

  it('cuts with an ellipsis that fits in the width', () => {
    expect(truncateToInkWidth('hello world', 5)).toBe('hell…');
    expect(truncateToInkWidth('hello', 4, '...')).toBe('h...');
    expect(truncateToInkWidth('hello', 3, '')).toBe('hel');
  });

  it('cuts only between grapheme clusters, dropping a wide one that would straddle the edge', () => {
    expect(truncateToInkWidth('日本語', 4)).toBe('日…');
    expect(truncateToInkWidth('e\u0301e\u0301e\u0301x', 3)).toBe('e\u0301e\u0301…');
    expect(truncateToInkWidth('🇯🇵🇫🇷🇺🇳', 5)).toBe('🇯🇵🇫🇷…');
    expect(truncateToInkWidth('👍🏽👍🏽👍🏽', 5)).toBe('👍🏽👍🏽…');
    expect(truncateToInkWidth('👨\u200d👩\u200d👧👨\u200d👩\u200d👧', 3)).toBe('👨\u200d👩\u200d👧…');
    expect(truncateToInkWidth('❤️❤️❤️', 4)).toBe('❤️…');
  });

  it('handles tiny widths', () => {
    expect(truncateToInkWidth('hello', 1)).toBe('…');
    expect(truncateToInkWidth('hello', 0)).toBe('');
    expect(truncateToInkWidth('hello', 1, '...')).toBe('.');
  });
});

describe('padToInkWidth', () => {
  it('pads or truncates to exactly the width', () => {
    expect(padToInkWidth('ab', 4)).toBe('ab  ');
    expect(padToInkWidth('ab', 4, 'right')).toBe('  ab');
    expect(padToInkWidth('日本語', 4)).toBe('日… ');
    expect(inkWidth(padToInkWidth('❤️❤️❤️', 5))).toBe(5);
  });
});

describe('inkClusters', () => {
  it('splits into grapheme clusters', () => {
    expect(inkClusters('a👍🏽🇯🇵e\u0301')).toEqual(['a', '👍🏽', '🇯🇵', 'e\u0301']);
  });
});

describe('against Ink itself', () => {
  const SAMPLES = ['plain ascii text here', '日本語のテキスト', '❤️❤️❤️❤️❤️', '👍🏽 ok 👍🏽 ok', '1️⃣2️⃣3️⃣', 'mail from 👨\u200d👩\u200d👧', '🇯🇵🇫🇷 flags', 'e\u0301e\u0301 marks'];
  const shown = (text: string, width: number) =>
    plain(
      render(
        <Box width={width}>
          <Text wrap="truncate">{text}</Text>
        </Box>,
      ).lastFrame(),
    );

  it('a line padded with padToInkWidth is exactly what Ink shows, at every width', () => {
    for (const text of SAMPLES) {
      for (const width of [3, 5, 8, 13]) {
        const line = padToInkWidth(text, width);
        // (Ink drops the trailing blanks of a frame's lines.)
        expect({ text, width, shown: shown(line, width) }).toEqual({ text, width, shown: line.trimEnd() });
      }
    }
  });

  it('padded by the per-code-point table instead, Ink cuts what we meant to show (why components use string-width)', () => {
    const line = padToWidth('❤️❤️❤️', 4); // the table: each ❤️ is 1 cell, so "fits" with a space to spare
    expect(line).toBe('❤️❤️❤️ ');
    expect(shown(line, 4)).toBe('❤️❤️…'); // Ink counts 7 cells, so it cuts the third heart for its own ellipsis
  });
});
