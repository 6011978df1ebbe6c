// Grapheme clusters without paying for Intl before the first frame (issue #33). The first
// Intl.Segmenter a process makes costs V8's list of ICU's available locales, every one of them
// canonicalized (Intl::BuildLocaleSet, seen with perf): 30-100 ms of the server's cold start here,
// once, for the text of a first frame, which Ink tokenizes line by line (@alcalzone/ansi-tokenize)
// and which is ASCII, box drawing and a few symbols. Text in which every UTF-16 unit is a cluster
// of its own needs no segmenter: no CR (CR LF is one cluster), nothing that joins (combining marks,
// ZWJ, variation selectors, Hangul jamo, regional indicators, Indic prepend marks) and no surrogate
// (UAX #29: such text breaks everywhere, GB4/GB5/GB999). The real segmenter, made at the first
// text that needs it, takes the rest. scripts/bundle.mjs gives this to string-width, slice-ansi and
// ansi-tokenize in the server's bundle in place of their own `new Intl.Segmenter()`.

/** Units that are each a cluster: C0 but CR, Latin, IPA, spacing modifiers; general punctuation, currency, symbols, arrows, box drawing, shapes. */
const ONE_UNIT_CLUSTERS = /^[\x00-\x0c\x0e-\u02ff\u2010-\u20cf\u2100-\u2bff]*$/;

/** The part of Intl.Segmenter these callers use: segment(), iterated or asked what contains an index. */
export interface GraphemeSegmenter {
  segment(input: string): Intl.Segments;
}

/** Intl.Segmenter's grapheme clusters, the segmenter itself made only when a text needs it. */
export function lazyGraphemeSegmenter(locales?: string | string[], options?: Intl.SegmenterOptions): GraphemeSegmenter {
  if (options?.granularity !== undefined && options.granularity !== 'grapheme') return new Intl.Segmenter(locales, options);
  let real: Intl.Segmenter | null = null;
  return {
    segment(input) {
      if (ONE_UNIT_CLUSTERS.test(input)) return new OneUnitSegments(input);
      real ??= new Intl.Segmenter(locales, options);
      return real.segment(input);
    },
  };
}

/** The clusters of a text in which each unit is one: what Intl.Segmenter gives for it. */
class OneUnitSegments implements Intl.Segments {
  constructor(private readonly input: string) {}

  containing(codeUnitIndex = 0): Intl.SegmentData | undefined {
    const i = Math.trunc(Number(codeUnitIndex)) || 0;
    const { input } = this;
    return i >= 0 && i < input.length ? { segment: input[i]!, index: i, input } : undefined;
  }

  *[Symbol.iterator](): IterableIterator<Intl.SegmentData> {
    const { input } = this;
    for (let i = 0; i < input.length; i++) yield { segment: input[i]!, index: i, input };
  }
}
