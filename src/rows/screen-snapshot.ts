// The plain, UI-free picture of a row's emulated screen. The agent detector reads only this
// (it never touches the emulator), and tests build it by hand from captured fixtures.

export interface ScreenSnapshot {
  /** Visible lines, top to bottom, trailing spaces trimmed; length = rows. */
  lines: string[];
  cols: number;
  rows: number;
  /** Cursor position within the visible screen, 0-based. */
  cursor: { x: number; y: number; visible: boolean };
  /** Last OSC 0/2 window title the program set (raw; sanitize before showing). */
  title: string;
  /** True while the program is on the alternate screen (vim, less, full-screen TUIs). */
  alternateScreen: boolean;
  /**
   * Optional per-line attribute hints: for each visible line, the column ranges drawn dim/faint
   * (placeholders and ghost suggestions are dim; a real draft is not).
   */
  dimRanges?: Array<Array<[start: number, end: number]>>;
}
