// Rows must find `swb` on their PATH (a row's program mails as itself with `swb send`), but the
// compiled entry is `dist/bin/swb.js` and an npm link named `swb` may not exist. So the dashboard
// writes a tiny launcher named `swb` into a private directory and puts that directory on the rows'
// PATH. It runs the same entry with the same node binary (the native addons are built for it).
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CA_CERTS_ASIDE, COMMANDS_WITH_TLS } from './ca-certs-aside.js';
import { swbBinPath } from './package-root.js';
import { shellQuote } from './shell-quote.js';


/** Writes `DIR/swb` (replacing it atomically) and returns DIR, for the rows' PATH. */
export function writeSwbLauncher(dir: string, nodePath: string = process.execPath, entry: string = swbBinPath()): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'swb');
  const tmp = `${file}.${process.pid}.tmp`;
  // The CA file is set aside for every command but those that may verify a certificate (ca-certs-aside.ts).
  const script = [
    '#!/bin/sh',
    `case "$1" in`,
    `  ${COMMANDS_WITH_TLS.join('|')}) ;;`,
    `  *) if [ -n "\${NODE_EXTRA_CA_CERTS:-}" ]; then ${CA_CERTS_ASIDE}=$NODE_EXTRA_CA_CERTS; export ${CA_CERTS_ASIDE}; unset NODE_EXTRA_CA_CERTS; fi ;;`,
    'esac',
    `exec ${shellQuote(nodePath)} ${shellQuote(entry)} "$@"`,
    '',
  ].join('\n');
  writeFileSync(tmp, script, { mode: 0o755 });
  chmodSync(tmp, 0o755); // the umask may have taken bits off
  renameSync(tmp, file);
  return dir;
}
