// Every SQLite file swb opens (mail.db, the workspace's lock) is opened here, naming
// better-sqlite3's native addon itself. The server bundle carries better-sqlite3's JavaScript, so
// that it loads under the bundle's code cache: required from node_modules it was eight modules
// resolved, read and compiled on every cold start, 7-13 ms before the server could take its lock
// (issue #33). Its own way to find the addon, the `bindings` package, reads its caller's file from
// a stack trace and would look beside the bundle; better-sqlite3 takes the addon's path instead
// (`nativeBinding`). Where the build put no addon there, `bindings` looks as it always did.
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

let addonPath: string | null | undefined;

/** better-sqlite3's compiled addon (build/Release, where node-gyp and its prebuilt download both put it), or null. */
function sqliteAddonPath(): string | null {
  if (addonPath !== undefined) return addonPath;
  try {
    const root = dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json'));
    const path = join(root, 'build', 'Release', 'better_sqlite3.node');
    addonPath = existsSync(path) ? path : null;
  } catch {
    addonPath = null;
  }
  return addonPath;
}

/** `new Database(file, options)`, with the addon named (sqliteAddonPath). */
export function openSqliteFile(file: string, options: Database.Options = {}): Database.Database {
  const nativeBinding = sqliteAddonPath();
  return new Database(file, nativeBinding === null ? options : { ...options, nativeBinding });
}
