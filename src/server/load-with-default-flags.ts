// Imported first by the server's entry (server-main.ts), before any module that requires a
// built-in: V8's default flags from here on while the server loads (server-flag-hash.ts says why).
// Through node's v8 binding: node:v8's module would itself compile under the command line's flags.
import { serverFlagsWhileLoading } from './server-flag-hash.js';

serverFlagsWhileLoading();
