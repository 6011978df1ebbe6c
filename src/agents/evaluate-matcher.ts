// Evaluates a compiled matcher tree against region lines and says why: the matched text on a match,
// the first missing piece otherwise. Pure and allocation-light (runs for every rule of 32 rows).
import type { Matcher } from './profile-schema.js';

export interface MatchOutcome {
  matched: boolean;
  /** Matched text (truncated) when matched; a short reason when not. */
  evidence: string;
}

const EVIDENCE_MAX = 160;

function clip(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > EVIDENCE_MAX ? `${one.slice(0, EVIDENCE_MAX - 1)}…` : one;
}

export function describeMatcher(m: Matcher): string {
  switch (m.kind) {
    case 'contains':
      return m.needles.map((n) => JSON.stringify(n)).join(' + ');
    case 'regex':
      return `/${m.re.source}/`;
    case 'lineRegex':
      return `line /${m.re.source}/`;
    case 'all':
      return `all(${m.of.map(describeMatcher).join(', ')})`;
    case 'any':
      return `any(${m.of.map(describeMatcher).join(', ')})`;
    case 'not':
      return `not(${describeMatcher(m.of)})`;
  }
}

/** `text` is `lines.join('\n')`, lower-cased copy computed lazily by the caller via `lower()`. */
interface Subject {
  lines: string[];
  text: string;
  lower: () => string;
}

function run(m: Matcher, s: Subject): MatchOutcome {
  switch (m.kind) {
    case 'contains': {
      const hay = s.lower();
      for (const needle of m.needles) {
        if (!hay.includes(needle)) return { matched: false, evidence: `no ${JSON.stringify(needle)}` };
      }
      // Evidence: the first line holding the first needle, in its original case.
      const first = m.needles[0] ?? '';
      const line = s.lines.find((l) => l.toLowerCase().includes(first)) ?? first;
      return { matched: true, evidence: clip(line) };
    }
    case 'regex': {
      const hit = m.re.exec(s.text);
      return hit ? { matched: true, evidence: clip(hit[0]) } : { matched: false, evidence: `no match for /${m.re.source}/` };
    }
    case 'lineRegex': {
      for (const line of s.lines) if (m.re.test(line)) return { matched: true, evidence: clip(line) };
      return { matched: false, evidence: `no line matches /${m.re.source}/` };
    }
    case 'all': {
      const parts: string[] = [];
      for (const child of m.of) {
        const r = run(child, s);
        if (!r.matched) return r;
        if (r.evidence) parts.push(r.evidence);
      }
      return { matched: true, evidence: clip([...new Set(parts)].join(' | ')) };
    }
    case 'any': {
      const misses: string[] = [];
      for (const child of m.of) {
        const r = run(child, s);
        if (r.matched) return r;
        misses.push(r.evidence);
      }
      return { matched: false, evidence: clip(misses.join('; ')) };
    }
    case 'not': {
      const r = run(m.of, s);
      return r.matched ? { matched: false, evidence: clip(`excluded by ${r.evidence}`) } : { matched: true, evidence: '' };
    }
  }
}

export function evaluateMatcher(m: Matcher, lines: string[]): MatchOutcome {
  const text = lines.join('\n');
  let lowered: string | undefined;
  return run(m, { lines, text, lower: () => (lowered ??= text.toLowerCase()) });
}
