// Rows must find `swb` on their PATH (a row's program mails as itself with `swb send`), but an npm
// link named `swb` may not exist. So the server writes a tiny launcher named `swb` into a private
// directory and puts that directory on the rows' PATH. It runs the package's own `bin/swb` (which
// sets NODE_EXTRA_CA_CERTS aside for commands that never check a certificate: see that script) with
// the node binary the server runs on, for which the native addons are built.
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageBinScript } from './package-root.js';
import { shellQuote } from './shell-quote.js';

/** Writes `DIR/swb` (replacing it atomically) and returns DIR, for the rows' PATH. */
export function writeSwbLauncher(dir: string, nodePath: string = process.execPath, script: string = packageBinScript()): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'swb');
  const tmp = `${file}.${process.pid}.tmp`;
  const launcher = [
    '#!/bin/sh',
    `SWB_NODE=${shellQuote(nodePath)}`,
    'export SWB_NODE',
    // Through sh, so a package whose files lost their modes (an unpacked tarball) still works.
    `exec /bin/sh ${shellQuote(script)} "$@"`,
    '',
  ].join('\n');
  writeFileSync(tmp, launcher, { mode: 0o755 });
  chmodSync(tmp, 0o755); // the umask may have taken bits off
  renameSync(tmp, file);
  return dir;
}
