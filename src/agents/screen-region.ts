// Cuts the part of a screen snapshot a rule reads: the bottom N non-empty lines, the lines above the
// prompt box, the OSC title or the whole screen. Pure; used by the detector and the prompt reader.
import type { ScreenSnapshot } from '../rows/screen-snapshot.js';
import type { AgentProfile, Region } from './profile-schema.js';

export interface RegionText {
  /** The lines the rule sees, top to bottom. Empty when the region is not on screen. */
  lines: string[];
  /** For `explain`: which region, and which screen rows it covered. */
  description: string;
}

/** Index of the input line (bottom-most line matching the profile's prompt regex), or -1. */
export function findPromptLine(snapshot: ScreenSnapshot, profile: AgentProfile): number {
  const spec = profile.prompt;
  if (!spec) return -1;
  if (spec.atCursor) {
    const y = snapshot.cursor.y;
    return y < snapshot.rows && spec.line.test(snapshot.lines[y] ?? '') ? y : -1;
  }
  let seen = 0;
  for (let y = Math.min(snapshot.lines.length, snapshot.rows) - 1; y >= 0 && seen < spec.searchLines; y--) {
    const line = snapshot.lines[y] ?? '';
    if (line.trim() === '') continue;
    seen += 1;
    if (!spec.line.test(line)) continue;
    if (spec.requireBoxTop && !(spec.boxTop?.test(snapshot.lines[y - 1] ?? '') ?? false)) continue;
    return y;
  }
  return -1;
}

/** First row of the prompt box: the border line right above the input line when there is one. */
export function promptBoxTop(snapshot: ScreenSnapshot, profile: AgentProfile, inputLine: number): number {
  const boxTop = profile.prompt?.boxTop;
  if (!boxTop) return inputLine;
  // Multi-line prompt boxes: walk up at most a few lines to the border.
  for (let y = inputLine - 1; y >= Math.max(0, inputLine - 4); y--) {
    if (boxTop.test(snapshot.lines[y] ?? '')) return y;
  }
  return inputLine;
}

function nonEmptyAbove(lines: string[], endExclusive: number, count: number): { lines: string[]; first: number } {
  const picked: string[] = [];
  let first = endExclusive;
  for (let y = endExclusive - 1; y >= 0 && picked.length < count; y--) {
    const line = lines[y] ?? '';
    if (line.trim() === '') continue;
    picked.push(line);
    first = y;
  }
  return { lines: picked.reverse(), first };
}

export function regionText(snapshot: ScreenSnapshot, region: Region, profile: AgentProfile, promptLine?: number): RegionText {
  const screen = snapshot.lines.slice(0, snapshot.rows);
  switch (region.kind) {
    case 'title':
      return { lines: snapshot.title === '' ? [] : [snapshot.title], description: 'OSC window title' };
    case 'screen':
      return { lines: screen, description: `whole screen (${screen.length} rows)` };
    case 'cursorLine': {
      const y = snapshot.cursor.y;
      return { lines: [screen[y] ?? ''], description: `the cursor line (row ${y})` };
    }
    case 'bottom': {
      const { lines, first } = nonEmptyAbove(screen, screen.length, region.lines);
      const range = lines.length === 0 ? 'screen is empty' : `rows ${first}-${lastNonEmpty(screen)}`;
      return { lines, description: `bottom ${region.lines} non-empty lines (${range})` };
    }
    case 'abovePrompt': {
      const input = promptLine ?? findPromptLine(snapshot, profile);
      if (input < 0) return { lines: [], description: `${region.lines} non-empty lines above the prompt (no prompt on screen)` };
      const top = promptBoxTop(snapshot, profile, input);
      const { lines, first } = nonEmptyAbove(screen, top, region.lines);
      const range = lines.length === 0 ? 'nothing above it' : `rows ${first}-${top - 1}`;
      return { lines, description: `${region.lines} non-empty lines above the prompt box at row ${top} (${range})` };
    }
  }
}

function lastNonEmpty(lines: string[]): number {
  for (let y = lines.length - 1; y >= 0; y--) if ((lines[y] ?? '').trim() !== '') return y;
  return -1;
}
