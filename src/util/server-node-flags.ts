// The V8 flags the workspace server's node runs with, in one place: the client that launches the
// server passes them (src/client/server-launch.ts), and the build writes the server bundle's code
// cache under the same ones (scripts/code-cache.mjs), since V8 refuses a cache made under other
// flags. bin/swb gives `swb server` the same.
//
// --max-semi-space-size: V8's young generation, where every pty chunk, parse and frame allocates
// first, grows by default to 16 MB a semi-space (two of them, and the large-object space beside):
// a flood of output in a few rows takes the server's RSS up by some 30 MB that it keeps, for
// garbage that dies young anyway. Issue #33's goal is 15 MB a flooding row; a smaller nursery is
// collected more often, each collection as cheap (only the living are copied). Measured here
// (bench:render --quick --only=flood --floods=colour, 8 rows, two runs each): peak RSS 129-130 MB
// at the default, 115-116 MB at 2 MB; the server's CPU 1.48-2.12 s and 1.43-1.57 s.
//
// --heap-growing-percent: after a full collection V8 lets the old generation grow to its live size
// times a factor it picks from its GC speed (often 2x and more) before it collects again. The rows'
// first output (16 idle rows that each printed 1 MB of coloured text, issue #33's memory workload)
// promotes young garbage into that room, and the peak RSS keeps it: 2.2-2.5 MB a row. Capped at
// 1.5x, the same workload peaks at 1.1-1.5 MB a row (bench:render --only=memory, see README).
//
// --no-memory-reducer: the reducer's one collection after start (idle-v8-flags.ts) handed back the
// room the uncapped growth had taken: 12 MB of a 16-row server. Under the cap there is little left
// to hand back (measured 80 s after start, the reducer's collection done: 16 rows that printed
// 1 MB each, RSS 105 MB with it, 112-113 MB without, as main's 112.8 MB with it; 16 idle rows,
// 90.0 and 90.7 MB), while its collection and its timer's polls until then cost the server 50-70 ms
// of CPU in an idle dashboard's first minute, a third of issue #33's budget for five minutes.
// The hub keeps the reducer (IDLE_V8_FLAGS): it has no such cap.
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=2', '--heap-growing-percent=50', '--no-memory-reducer'];
