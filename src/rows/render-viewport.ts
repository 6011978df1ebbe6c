// Turns a rectangle of a row's emulated screen into ANSI lines the dashboard paints: SGR colours
// (16, 256, truecolor) and attributes exactly as the program drew them, wide characters kept
// whole, every line padded to the width and ending with an SGR reset. Built for a render loop:
// one reused cell object, no per-cell allocation, SGR emitted only where attributes change.
import type { IBuffer, IBufferCell } from '@xterm/headless';
import type { RowScreen } from './row-screen.js';

export interface ViewportRect {
  /** First line to draw: 0 = top of the live screen, negative = that many lines up in scrollback. */
  top: number;
  height: number;
  width: number;
  /** First column to draw (default 0). */
  left?: number;
}

export const SGR_RESET = '\x1b[0m';

// xterm's colour-mode numbers (IBufferCell.getFgColorMode): they tell `CSI 31 m` from
// `CSI 38;5;1 m`, which the public is*Palette() helpers cannot.
const CM_P16 = 0x1000000;
const CM_P256 = 0x2000000;
const CM_RGB = 0x3000000;
const DEFAULT_COLOR = -1;

const F_BOLD = 1;
const F_DIM = 2;
const F_ITALIC = 4;
const F_UNDERLINE = 8;
const F_BLINK = 16;
const F_INVERSE = 32;
const F_INVISIBLE = 64;
const F_STRIKE = 128;
const F_OVERLINE = 256;

const ASCII: readonly string[] = Array.from({ length: 128 }, (_, code) => (code < 32 || code === 127 ? ' ' : String.fromCharCode(code)));

function colorKey(mode: number, color: number): number {
  return mode === 0 ? DEFAULT_COLOR : mode + (color & 0xffffff);
}

function colorParams(key: number, base: number): string {
  if (key === DEFAULT_COLOR) return '';
  const mode = key & 0x3000000;
  const color = key & 0xffffff;
  if (mode === CM_P16) return color < 8 ? `;${base + color}` : `;${base + 60 + color - 8}`;
  if (mode === CM_P256) return `;${base + 8};5;${color}`;
  if (mode === CM_RGB) return `;${base + 8};2;${(color >> 16) & 0xff};${(color >> 8) & 0xff};${color & 0xff}`;
  return '';
}

function flagParams(flags: number): string {
  let s = '';
  if (flags & F_BOLD) s += ';1';
  if (flags & F_DIM) s += ';2';
  if (flags & F_ITALIC) s += ';3';
  if (flags & F_UNDERLINE) s += ';4';
  if (flags & F_BLINK) s += ';5';
  if (flags & F_INVERSE) s += ';7';
  if (flags & F_INVISIBLE) s += ';8';
  if (flags & F_STRIKE) s += ';9';
  if (flags & F_OVERLINE) s += ';53';
  return s;
}

/** The full SGR state of a cell, as one sequence starting from a reset. */
function sgr(fg: number, bg: number, flags: number): string {
  return `\x1b[0${flagParams(flags)}${colorParams(fg, 30)}${colorParams(bg, 40)}m`;
}

export class ViewportRenderer {
  private cell: IBufferCell | undefined;
  private blank = '';

  /**
   * Renders `rect` of the screen into `out` (reused when given; its length becomes rect.height).
   * Lines outside the buffer come out blank.
   */
  render(screen: RowScreen, rect: ViewportRect, out: string[] = []): string[] {
    return this.renderBuffer(screen.buffer, rect, out);
  }

  renderBuffer(buffer: IBuffer, rect: ViewportRect, out: string[] = []): string[] {
    const height = Math.max(0, Math.floor(rect.height));
    const width = Math.max(0, Math.floor(rect.width));
    const left = Math.max(0, Math.floor(rect.left ?? 0));
    out.length = height;
    if (this.blank.length !== width) this.blank = ' '.repeat(width);
    const cell = (this.cell ??= buffer.getNullCell());
    const first = buffer.baseY + Math.floor(rect.top);
    for (let row = 0; row < height; row++) {
      out[row] = this.renderLine(buffer, first + row, left, width, cell);
    }
    return out;
  }

  private renderLine(buffer: IBuffer, y: number, left: number, width: number, cell: IBufferCell): string {
    const line = y >= 0 ? buffer.getLine(y) : undefined;
    if (line === undefined || width === 0) return this.blank + SGR_RESET;
    const end = left + width;
    const lineLength = line.length;
    let out = '';
    let run = '';
    let curFg = DEFAULT_COLOR;
    let curBg = DEFAULT_COLOR;
    let curFlags = 0;
    let x = left;
    while (x < end) {
      if (x >= lineLength || line.getCell(x, cell) === undefined) {
        // Past the end of the emulated line: default blank cells.
        if (curFg !== DEFAULT_COLOR || curBg !== DEFAULT_COLOR || curFlags !== 0) {
          out += run + SGR_RESET;
          run = '';
          curFg = curBg = DEFAULT_COLOR;
          curFlags = 0;
        }
        run += this.blank.slice(0, end - x);
        break;
      }
      const cellWidth = cell.getWidth();
      let fg: number;
      let bg: number;
      let flags: number;
      if (cell.isAttributeDefault()) {
        fg = bg = DEFAULT_COLOR;
        flags = 0;
      } else {
        fg = colorKey(cell.getFgColorMode(), cell.getFgColor());
        bg = colorKey(cell.getBgColorMode(), cell.getBgColor());
        flags =
          (cell.isBold() !== 0 ? F_BOLD : 0) |
          (cell.isDim() !== 0 ? F_DIM : 0) |
          (cell.isItalic() !== 0 ? F_ITALIC : 0) |
          (cell.isUnderline() !== 0 ? F_UNDERLINE : 0) |
          (cell.isBlink() !== 0 ? F_BLINK : 0) |
          (cell.isInverse() !== 0 ? F_INVERSE : 0) |
          (cell.isInvisible() !== 0 ? F_INVISIBLE : 0) |
          (cell.isStrikethrough() !== 0 ? F_STRIKE : 0) |
          (cell.isOverline() !== 0 ? F_OVERLINE : 0);
      }
      if (fg !== curFg || bg !== curBg || flags !== curFlags) {
        out += run;
        run = '';
        out += fg === DEFAULT_COLOR && bg === DEFAULT_COLOR && flags === 0 ? SGR_RESET : sgr(fg, bg, flags);
        curFg = fg;
        curBg = bg;
        curFlags = flags;
      }
      if (cellWidth === 0) {
        // The right half of a wide character whose left half is outside the rectangle.
        run += ' ';
        x += 1;
      } else if (cellWidth === 2 && x + 1 >= end) {
        // A wide character that does not fit in the last column.
        run += ' ';
        x += 1;
      } else {
        const code = cell.getCode();
        run += code < 128 ? ASCII[code]! : cell.getChars() || ' ';
        x += cellWidth;
      }
    }
    return out + run + SGR_RESET;
  }
}

const shared = new ViewportRenderer();

/** Renders with a shared renderer; fine for one render loop at a time. */
export function renderViewport(screen: RowScreen, rect: ViewportRect, out?: string[]): string[] {
  return shared.render(screen, rect, out);
}
