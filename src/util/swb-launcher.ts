// Rows must find `swb` on their PATH (a row's program mails as itself with `swb send`), but the
// compiled entry is `dist/bin/swb.js` and an npm link named `swb` may not exist. So the dashboard
// writes a tiny launcher named `swb` into a private directory and puts that directory on the rows'
// PATH. It runs the same entry with the same node binary (the native addons are built for it).
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { swbBinPath } from './package-root.js';
import { shellQuote } from './shell-quote.js';


/** Writes `DIR/swb` (replacing it atomically) and returns DIR, for the rows' PATH. */
export function writeSwbLauncher(dir: string, nodePath: string = process.execPath, entry: string = swbBinPath()): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'swb');
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `#!/bin/sh\nexec ${shellQuote(nodePath)} ${shellQuote(entry)} "$@"\n`, { mode: 0o755 });
  chmodSync(tmp, 0o755); // the umask may have taken bits off
  renameSync(tmp, file);
  return dir;
}
