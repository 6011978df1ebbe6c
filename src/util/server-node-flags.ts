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
//
// Two of them cost every start 15-40 ms, unless the server turns them off while it loads: V8 hashes
// its non-default flags into every code cache and refuses one made under another hash, and node's
// embedded cache of its own built-in modules (net, crypto, tty, child_process, the ES module
// loader: some 80 of them in a server's start) was made under V8's defaults. Under either heap
// flag each compiles from source (13 built-ins: 4.4 ms with no flags or --no-memory-reducer alone,
// 14-21 ms with either heap flag). So the server starts with them, and its entry's first statement
// sets both back to V8's defaults (src/server/server-flag-hash.ts) while it loads its code:
// --max-semi-space-size is read once, when the heap is set up at node's start, and the heap keeps
// its 2 MB semi-spaces whatever the flag says after (new_space 4.0 MB after 3 million short-lived
// objects with the flag reset at once, 32 MB without the flag); --heap-growing-percent is read at
// every full collection, and is set again once the server's code is loaded.
// --no-memory-reducer leaves the hash as it is (measured: a cache made without it is used with it).
//
// --expose-gc: the load's own full collection (one, at some 10 MB of old generation) sets the next
// one's threshold with V8's own growing factor, 2x and more, since the cap is off then; the cap
// would only apply from the collection after, which a flood of output reaches some 6 MB later
// (bench:render --only=flood --floods=colour, 8 rows: peak RSS 103-105 MB against 97-98 MB before
// the cap was lifted while loading). So the entry starts one more, under the cap, as soon as the
// code is loaded (incremental and concurrent: it does not hold up the start), with the gc() this
// flag gives the main context: with it the flood peaks at 93-94 MB, the base server 75-76 MB
// against 80-81 MB before. The flag goes back to its default with the others while loading, and
// gc() leaves the global object at once.

/** A heap flag of the server: `value` on its command line, V8's `fallback` while its code loads. */
export interface ServerHeapFlag {
  name: string;
  value: number;
  /** V8's default (`node --v8-options`), the value the built-ins' code cache was made under. */
  v8Default: number;
  /** heap-setup: V8 reads it once, as node starts; every-collection: at each full collection, so it must be set again after the load. */
  readAt: 'heap-setup' | 'every-collection';
}

export const SERVER_HEAP_FLAGS: readonly ServerHeapFlag[] = [
  { name: 'max-semi-space-size', value: 2, v8Default: 0, readAt: 'heap-setup' },
  { name: 'heap-growing-percent', value: 50, v8Default: 0, readAt: 'every-collection' },
];

export const SERVER_NODE_FLAGS: readonly string[] = [...SERVER_HEAP_FLAGS.map((f) => `--${f.name}=${f.value}`), '--expose-gc', '--no-memory-reducer'];

/** For v8.setFlagsFromString: every flag the hash sees at V8's default, the flag hash node's built-ins and the server bundle's code caches are made under. */
export const SERVER_FLAGS_WHILE_LOADING = [...SERVER_HEAP_FLAGS.map((f) => `--${f.name}=${f.v8Default}`), '--no-expose-gc'].join(' ');

/** For v8.setFlagsFromString once the code is loaded: the heap flags V8 reads again at every collection. */
export const SERVER_FLAGS_WHILE_RUNNING = SERVER_HEAP_FLAGS.filter((f) => f.readAt === 'every-collection').map((f) => `--${f.name}=${f.value}`).join(' ');
