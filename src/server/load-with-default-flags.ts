// Imported first by the server's entry (server-main.ts), before any module that requires a
// built-in: V8's default flags from here on while the server loads (server-flag-hash.ts says why).
// node:v8 itself, and node:stream and node:perf_hooks that it requires, still compile under the
// command line's flags.
import { serverFlagsWhileLoading } from './server-flag-hash.js';

serverFlagsWhileLoading();
