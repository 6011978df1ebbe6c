// The server's V8 flags as its code loads and as it runs (src/util/server-node-flags.ts says why
// the two differ): V8's defaults while node's built-in modules and the server bundle compile, so
// that both code caches are taken, and the heap flags V8 reads at each collection once they have,
// with one full collection under them. V8 hashes the flags at each compile and at each cache it
// writes: the cache of the bundle is made under the loading flags too (serverBundleCodeCache).
import { createRequire } from 'node:module';
import { SERVER_FLAGS_WHILE_LOADING, SERVER_FLAGS_WHILE_RUNNING } from '../util/server-node-flags.js';

// --expose-gc's gc(), taken off the global object as this module loads (the server's entry imports
// it first), so that no other code calls it (V8 makes the property writable, not deletable);
// undefined once used, or in a node started without the flag.
// Called as V8's gc extension takes options: a major collection, incremental and concurrent ('async'),
// so that it does not hold up the start (measured: the start's CPU to listening 218 ms with a
// synchronous one, 199 ms with this, 233 ms before any of this; the flood's peak the same with both).
// And a moment after the start, not during it: even incremental, its marking steps and its final
// pause ran on the main thread while the server planned, opened its store and listened, and the
// pause (10-17 ms) often fell just as the launching client's HELLO came in (bench:render --only=first
// --prof). Started a second after the load instead: the server's CPU to "listening" 216-220 ms
// against 238-241, the HELLO read 2-8 ms after it was sent against 16-21; the base server's peak
// RSS the same (74.0-74.2 MB against 74.2-74.8; two runs each, --only=first,memory).
type GcExtension = (options: { type: 'major'; execution: 'async' }) => unknown;
const exposed = globalThis as { gc?: GcExtension | undefined };
let collectOnce = exposed.gc;
exposed.gc = undefined;

/** How long after the load the full collection under the cap starts: past a cold start's first frame (300-450 ms). */
const COLLECT_AFTER_LOAD_MS = 1000;

/** V8's default flags (the flag hash of node's built-ins' code cache); the heap keeps the semi-space it was set up with. */
export function serverFlagsWhileLoading(): void {
  setV8Flags(SERVER_FLAGS_WHILE_LOADING);
}

/**
 * v8.setFlagsFromString, without node:v8 while the flags are still the command line's: node:v8's
 * module, and node:stream, perf_hooks and the heap utilities it requires, would compile from source
 * under them, without node's code cache (the server's CPU at its entry mark 47 ms through node:v8, 38
 * through the binding: bench:render --only=first --compare, load 3.8). The binding is the one node:v8's
 * own setFlagsFromString calls; process.binding names it a deprecation, said as a warning that has
 * no reader here (the server's output is a log), so it is kept quiet for this one call. A node
 * without it takes the module.
 */
function setV8Flags(flags: string): void {
  const node = process as unknown as { noDeprecation?: boolean; binding(name: string): { setFlagsFromString?: unknown } };
  const quiet = node.noDeprecation;
  let binding: { setFlagsFromString?: unknown } | undefined;
  try {
    node.noDeprecation = true;
    binding = node.binding('v8');
  } catch {
    binding = undefined;
  } finally {
    node.noDeprecation = quiet;
  }
  if (typeof binding?.setFlagsFromString === 'function') (binding.setFlagsFromString as (flags: string) => void)(flags);
  else (createRequire(import.meta.url)('node:v8') as typeof import('node:v8')).setFlagsFromString(flags);
}

/**
 * The server's heap growth cap again, once its code is loaded (a built-in loaded after this compiles
 * from source), and, the first time, a full collection under it: the load's own collection set the
 * next one's threshold without the cap (server-node-flags.ts, --expose-gc), a second later.
 */
export function serverFlagsWhileRunning(): void {
  if (SERVER_FLAGS_WHILE_RUNNING !== '') setV8Flags(SERVER_FLAGS_WHILE_RUNNING);
  const collect = collectOnce;
  collectOnce = undefined;
  if (collect) setTimeout(() => collect({ type: 'major', execution: 'async' }), COLLECT_AFTER_LOAD_MS).unref();
}
