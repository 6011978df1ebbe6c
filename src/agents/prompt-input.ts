// Reads the agent's input line from a snapshot: where it is, whether the cursor sits on it, what is
// typed there, and whether that is empty (a dim placeholder or ghost suggestion is not a draft).
// Also reports whether one of the profile's dialog markers is on screen. Pure.
import type { ScreenSnapshot } from '../rows/screen-snapshot.js';
import { evaluateMatcher } from './evaluate-matcher.js';
import type { AgentProfile } from './profile-schema.js';
import { findPromptLine, regionText } from './screen-region.js';

export interface PromptInput {
  found: boolean;
  /** Screen row of the input line, -1 when not found. */
  lineIndex: number;
  cursorOnInput: boolean;
  /** Typed text after the prompt prefix, trailing border and spaces removed (dim text included). */
  text: string;
  /** Nothing but placeholder/ghost text (or nothing at all) is in the input. */
  isEmpty: boolean;
  dialogOpen: boolean;
  /** Id of the dialog marker that matched, if any. */
  dialogId: string | null;
}

/** Is column `col` inside one of the half-open `[start, end)` dim ranges? */
function isDim(ranges: Array<[number, number]> | undefined, col: number): boolean {
  if (!ranges) return false;
  for (const [start, end] of ranges) if (col >= start && col < end) return true;
  return false;
}

export function readPromptInput(snapshot: ScreenSnapshot, profile: AgentProfile): PromptInput {
  let dialogId: string | null = null;
  for (const d of profile.dialogs) {
    const region = regionText(snapshot, d.region, profile);
    if (region.lines.length > 0 && evaluateMatcher(d.match, region.lines).matched) {
      dialogId = d.id;
      break;
    }
  }
  const base = { dialogOpen: dialogId !== null, dialogId };
  const spec = profile.prompt;
  const lineIndex = findPromptLine(snapshot, profile);
  if (!spec || lineIndex < 0) {
    return { found: false, lineIndex: -1, cursorOnInput: false, text: '', isEmpty: false, ...base };
  }
  const line = snapshot.lines[lineIndex] ?? '';
  const prefix = spec.line.exec(line);
  // Work in code points so indices line up with terminal columns for narrow characters.
  const chars = Array.from(line);
  const startCol = Array.from(line.slice(0, (prefix?.index ?? 0) + (prefix?.[0].length ?? 0))).length;
  let endCol = chars.length;
  if (spec.end) {
    const tail = spec.end.exec(line);
    if (tail && tail.index >= (prefix?.index ?? 0) + (prefix?.[0].length ?? 0)) endCol = Array.from(line.slice(0, tail.index)).length;
  }
  const text = chars.slice(startCol, endCol).join('').trim();
  const dims = snapshot.dimRanges?.[lineIndex];
  let typed = '';
  for (let col = startCol; col < endCol; col++) {
    const ch = chars[col] ?? '';
    if (spec.dimIsPlaceholder && isDim(dims, col)) continue;
    typed += ch;
  }
  typed = typed.trim();
  const isEmpty = typed === '' || (spec.placeholder !== undefined && spec.placeholder.test(typed));

  const { cursor } = snapshot;
  const onLine = cursor.y === lineIndex && cursor.x >= startCol;
  let cursorOnInput: boolean;
  switch (spec.cursor) {
    case 'required':
      cursorOnInput = cursor.visible && onLine;
      break;
    case 'onLine':
      cursorOnInput = onLine;
      break;
    case 'ifVisible':
      cursorOnInput = cursor.visible ? onLine : true;
      break;
    case 'ignore':
      cursorOnInput = true;
      break;
  }
  return { found: true, lineIndex, cursorOnInput, text, isEmpty, ...base };
}

/** Convenience for explain output: the region a dialog marker read. */
export function dialogRegion(snapshot: ScreenSnapshot, profile: AgentProfile, dialogId: string): string {
  const d = profile.dialogs.find((x) => x.id === dialogId);
  return d ? regionText(snapshot, d.region, profile).description : '';
}
