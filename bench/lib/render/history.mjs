// Lines of history each row/pane keeps in the render benchmark. swb keeps its default scrollback
// (5,000); tmux gets the same history-limit by default (its own default is 2,000, and floods fill
// history, so a shorter one is less work): `--tmux-history=N` changes tmux's alone.
export const HISTORY_LINES = 5000;

const option = process.argv.find((a) => a.startsWith('--tmux-history='));
/** tmux's history-limit for this run. */
export const TMUX_HISTORY_LINES = option !== undefined ? Number(option.slice('--tmux-history='.length)) : HISTORY_LINES;
if (!Number.isInteger(TMUX_HISTORY_LINES) || TMUX_HISTORY_LINES < 0) {
  process.stderr.write(`--tmux-history wants a whole number of lines, not ${JSON.stringify(option)}\n`);
  process.exit(2);
}
