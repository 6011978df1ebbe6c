// Reads a ScreenSnapshot (screen-snapshot.ts) off an emulator's active buffer, through xterm's
// public buffer API: the visible lines as text, the cursor, and which cells are drawn dim. Kept
// apart from RowScreen so the screen's output path and the picture others read are separate
// concerns; snapshots are taken on demand, never per chunk.
import type { IBuffer, IBufferCell } from '@xterm/headless';
import type { ScreenSnapshot } from './screen-snapshot.js';

/** Drops trailing blanks: empty cells are trimmed by xterm, written spaces here. */
function trimSpaces(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 32) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** `cell` is a scratch cell the caller reuses (buffer.getNullCell()). */
export function readScreenSnapshot(buffer: IBuffer, cols: number, rows: number, cell: IBufferCell, cursorVisible: boolean, title: string): ScreenSnapshot {
  const lines: string[] = new Array<string>(rows);
  const dimRanges: Array<Array<[number, number]>> = new Array<Array<[number, number]>>(rows);
  for (let y = 0; y < rows; y++) {
    const line = buffer.getLine(buffer.baseY + y);
    lines[y] = line === undefined ? '' : trimSpaces(line.translateToString(true));
    const ranges: Array<[number, number]> = [];
    if (line !== undefined) {
      let start = -1;
      for (let x = 0; x < cols; x++) {
        const c = line.getCell(x, cell);
        const dim = c !== undefined && !c.isAttributeDefault() && c.isDim() !== 0;
        if (dim && start < 0) start = x;
        else if (!dim && start >= 0) {
          ranges.push([start, x]);
          start = -1;
        }
      }
      if (start >= 0) ranges.push([start, cols]);
    }
    dimRanges[y] = ranges;
  }
  return {
    lines,
    cols,
    rows,
    cursor: { x: Math.min(buffer.cursorX, cols - 1), y: buffer.cursorY, visible: cursorVisible },
    title,
    alternateScreen: buffer.type === 'alternate',
    dimRanges,
  };
}
