// The workspace server's own entry, the file the client launches (src/client/server-launch.ts) with
// the same arguments as `swb server` (`server`, then its flags). The build bundles it into one
// CommonJS file, dist/src/server/server-main.cjs (scripts/bundle.mjs), because under the server's
// V8 flags an ES module entry costs 10-20 ms more of every cold start: node's ES module loader
// compiles its own internals first, without their code cache (src/util/server-node-flags.ts says
// why), where a CommonJS entry reaches its first statement with none of them. It does what
// bin/swb.ts does for `swb server` (server-entry.ts, one body for both); `swb server --help` and a
// server started by hand still go through bin/swb.ts.
import './load-with-default-flags.js';
import { exitWhenSettled, startSwbProcess } from '../util/swb-process-start.js';
import { runServerEntry } from './server-entry.js';

startSwbProcess();
const [command, ...args] = process.argv.slice(2);
exitWhenSettled(command === 'server' ? runServerEntry(args) : Promise.reject(new Error(`${process.argv[1]} runs \`swb server\` only (its first argument is server, not ${command ?? 'nothing'})`)));
