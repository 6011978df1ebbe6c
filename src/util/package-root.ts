// The installed package's root (where package.json, themes/ and dist/ live), found by walking up
// from this module: compiled code runs from dist/src/util/, tests run the source in src/util/.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function packageRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'switchboard') return (cached = dir);
      } catch {
        // not ours; keep walking
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the switchboard package root');
    dir = parent;
  }
}

let version: string | undefined;

/**
 * This package's version, from its package.json as this process first read it: the version of the
 * code it runs (a server that outlives an upgrade in place is still the old one). Read once: the
 * server asked for it three times on the way to a client's first frame (its log line, the client's
 * connection, the version check of its HELLO), each a read and a parse of the file (issue #33).
 */
export function packageVersion(): string {
  return (version ??= (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version);
}

/** The compiled CLI entry (what starts a server or a headless hub). */
export function swbBinPath(): string {
  return join(packageRoot(), 'dist', 'bin', 'swb.js');
}

/**
 * The workspace server's own CommonJS entry (src/server/server-main.ts, which the build bundles),
 * run with `server` and its flags as `swb server` is; null when the build made no bundles.
 */
export function serverMainPath(): string | null {
  const path = join(packageRoot(), 'dist', 'src', 'server', 'server-main.cjs');
  return existsSync(path) ? path : null;
}

/** The `swb` command npm links (bin/swb, a shell script that runs the compiled entry). */
export function packageBinScript(): string {
  return join(packageRoot(), 'bin', 'swb');
}
