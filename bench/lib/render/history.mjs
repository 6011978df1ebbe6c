// Lines of history each row/pane keeps in the render benchmark. Floods fill history, so every
// system keeps the same depth: `--history=N` (default 5,000, swb's default scrollback) for swb (its
// config's scrollback), the floor and tmux (history-limit; tmux's own default is 2,000).
// `--tmux-history=N` changes tmux's alone. The floor process gets the depth in SWB_BENCH_HISTORY.
const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

function lines(what, text, fallback) {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 100_000) {
    process.stderr.write(`${what} wants a whole number of lines (0-100000), not ${JSON.stringify(text)}\n`);
    process.exit(2);
  }
  return n;
}

export const HISTORY_LINES = lines('--history', arg('history') ?? process.env.SWB_BENCH_HISTORY, 5000);
/** tmux's history-limit for this run. */
export const TMUX_HISTORY_LINES = lines('--tmux-history', arg('tmux-history'), HISTORY_LINES);
