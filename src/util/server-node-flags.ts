// The V8 flags the workspace server's node runs with, in one place: the client that launches the
// server passes them (src/client/server-launch.ts), and the build writes the server bundle's code
// cache under the same ones (scripts/code-cache.mjs), since V8 refuses a cache made under other
// flags.
import { IDLE_V8_FLAGS } from './idle-v8-flags.js';
//
// --max-semi-space-size: V8's young generation, where every pty chunk, parse and frame allocates
// first, grows by default to 16 MB a semi-space (two of them, and the large-object space beside):
// a flood of output in a few rows takes the server's RSS up by some 30 MB that it keeps, for
// garbage that dies young anyway. Issue #33's goal is 15 MB a flooding row; a smaller nursery is
// collected more often, each collection as cheap (only the living are copied). Measured here
// (bench:render --quick --only=flood --floods=colour, 8 rows, two runs each): peak RSS 129-130 MB
// at the default, 115-116 MB at 2 MB; the server's CPU 1.48-2.12 s and 1.43-1.57 s.
// Then the idle flags every long-lived swb process starts with (idle-v8-flags.ts says why).
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=2', ...IDLE_V8_FLAGS];
