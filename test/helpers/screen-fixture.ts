// Loads a captured screen fixture (test/fixtures/screens/<agent>/<case>.txt) into a ScreenSnapshot.
//
// Format: header lines, a line `---`, then the screen, one line per terminal row (top to bottom).
// Header lines are `# key: value`; blank header lines are ignored. Keys:
//   size: COLSxROWS        default: 80 x (number of screen lines); missing rows are blank
//   cursor: X,Y            0-based; add ` hidden` for an invisible cursor (default: 0,0 hidden)
//   title: TEXT            OSC window title (default empty)
//   alt: true              on the alternate screen
//   dim: ROW START-END     half-open column range [START, END) drawn dim; END may be `$` (end of line);
//                          repeat the key for more ranges
//   expect: STATE          the state detectState must give
//   expect-rule: ID        the rule that must decide
//   expect-input: empty | draft | none     what readPromptInput must see (none = no input line)
//   expect-dialog: true | false
//   expect-cursor-on-input: true | false
//   source: TEXT           where the screen came from (e.g. "captured from claude 2.1.332 via tmux")
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ScreenSnapshot } from '../../src/rows/screen-snapshot.js';

export interface ScreenFixture {
  name: string;
  snapshot: ScreenSnapshot;
  expect: Record<string, string>;
}

export const SCREENS_DIR = new URL('../fixtures/screens/', import.meta.url).pathname;

export function parseScreenFixture(text: string, name = 'fixture'): ScreenFixture {
  const all = text.replace(/\r\n/g, '\n').split('\n');
  const sep = all.indexOf('---');
  if (sep < 0) throw new Error(`${name}: no '---' line between header and screen`);
  const header = all.slice(0, sep);
  const screen = all.slice(sep + 1);
  if (screen.length > 0 && screen[screen.length - 1] === '') screen.pop();
  let cols = 80;
  let rows = screen.length;
  let cursor = { x: 0, y: 0, visible: false };
  let title = '';
  let alternateScreen = false;
  const dims: Array<[number, number, number | '$']> = [];
  const expect: Record<string, string> = {};
  for (const raw of header) {
    if (raw.trim() === '') continue;
    const m = /^#\s*([a-z-]+):\s?(.*)$/.exec(raw);
    if (!m) throw new Error(`${name}: bad header line ${JSON.stringify(raw)}`);
    const key = m[1]!;
    const value = m[2]!;
    if (key === 'size') {
      const s = /^(\d+)x(\d+)$/.exec(value.trim());
      if (!s) throw new Error(`${name}: size must be COLSxROWS`);
      cols = Number(s[1]);
      rows = Number(s[2]);
    } else if (key === 'cursor') {
      const c = /^(\d+),(\d+)(\s+hidden)?$/.exec(value.trim());
      if (!c) throw new Error(`${name}: cursor must be X,Y [hidden]`);
      cursor = { x: Number(c[1]), y: Number(c[2]), visible: !c[3] };
    } else if (key === 'title') title = value;
    else if (key === 'alt') alternateScreen = value.trim() === 'true';
    else if (key === 'dim') {
      const d = /^(\d+)\s+(\d+)-(\d+|\$)$/.exec(value.trim());
      if (!d) throw new Error(`${name}: dim must be ROW START-END`);
      dims.push([Number(d[1]), Number(d[2]), d[3] === '$' ? '$' : Number(d[3])]);
    } else if (key.startsWith('expect') || key === 'source') expect[key] = value.trim();
    else throw new Error(`${name}: unknown header key ${key}`);
  }
  const lines = Array.from({ length: rows }, (_, i) => (screen[i] ?? '').replace(/\s+$/, ''));
  const snapshot: ScreenSnapshot = { lines, cols, rows, cursor, title, alternateScreen };
  if (dims.length > 0) {
    const dimRanges: Array<Array<[number, number]>> = lines.map(() => []);
    for (const [row, start, end] of dims) {
      const stop = end === '$' ? Array.from(lines[row] ?? '').length : end;
      dimRanges[row]?.push([start, stop]);
    }
    snapshot.dimRanges = dimRanges;
  }
  return { name, snapshot, expect };
}

export function loadScreenFixture(agent: string, file: string): ScreenFixture {
  return parseScreenFixture(readFileSync(join(SCREENS_DIR, agent, file), 'utf8'), `${agent}/${file}`);
}

/** Every fixture of every agent: [agent, file] pairs. */
export function listScreenFixtures(): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const agent of readdirSync(SCREENS_DIR).sort()) {
    for (const f of readdirSync(join(SCREENS_DIR, agent)).sort()) if (f.endsWith('.txt')) out.push([agent, f]);
  }
  return out;
}
