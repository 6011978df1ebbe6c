// Which config file `swb trust [PATH]` and `swb untrust [PATH]` mean. PATH may be the file or a
// directory holding `switchboard.json[c]`; without PATH, the file a dashboard started here would
// read (`./switchboard.json[c]`), else the one at the workspace's top, which a hub started for this
// workspace reads. Paths stay as found (resolved, never through symlinks), as the loader keys them.
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LOCAL_CONFIG_NAMES } from '../config/config-paths.js';
import { SwbError } from '../protocol/error-codes.js';

const NAMES = LOCAL_CONFIG_NAMES.join(' or ');

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The directories looked in when no PATH is given: here, then the workspace's top. */
function searched(cwd: string, workspaceDir: string | null): string[] {
  const dirs = [resolve(cwd)];
  if (workspaceDir !== null && resolve(workspaceDir) !== dirs[0]) dirs.push(resolve(workspaceDir));
  return dirs;
}

/** The one existing file to trust; NOT_FOUND or NO_CONFIG (with a sentence) when there is none. */
export function configToTrust(given: string | undefined, cwd: string, workspaceDir: string | null): string {
  if (given !== undefined) {
    const path = resolve(cwd, given);
    if (!existsSync(path)) throw new SwbError('NOT_FOUND', `${path}: no such file or directory.`);
    if (!isDirectory(path)) return path;
    const inside = LOCAL_CONFIG_NAMES.map((n) => join(path, n)).find((f) => existsSync(f));
    if (inside === undefined) throw new SwbError('NO_CONFIG', `${path} is a directory with no ${NAMES} in it; name the file to trust.`);
    return inside;
  }
  const dirs = searched(cwd, workspaceDir);
  for (const dir of dirs) {
    const found = LOCAL_CONFIG_NAMES.map((n) => join(dir, n)).find((f) => existsSync(f));
    if (found !== undefined) return found;
  }
  throw new SwbError('NO_CONFIG', `No ${NAMES} in ${dirs.join(' or ')}; name the file to trust (swb trust PATH).`);
}

/** Every path whose trust `swb untrust` forgets: the file named (there or not), or the candidates. */
export function configsToUntrust(given: string | undefined, cwd: string, workspaceDir: string | null): string[] {
  if (given !== undefined) {
    const path = resolve(cwd, given);
    return isDirectory(path) ? LOCAL_CONFIG_NAMES.map((n) => join(path, n)) : [path];
  }
  return searched(cwd, workspaceDir).flatMap((dir) => LOCAL_CONFIG_NAMES.map((n) => join(dir, n)));
}
