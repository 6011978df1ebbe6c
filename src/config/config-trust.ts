// Whether a config file may run things as the operator (docs/SECURITY.md, "A hostile repository").
// A `switchboard.json` found in the directory swb runs in came with whatever was cloned there: it is
// somebody else's code until the operator trusts it (`swb trust`, or yes at the dashboard's question),
// as direnv, mise and VS Code's Workspace Trust treat theirs. The rule, by where the file was found
// (find-config-file.ts):
// - `--config FILE`: the operator named it on their own command line: trusted.
// - the operator's config directory: their own: trusted.
// - `./switchboard.json[c]`: trusted only while the trust store holds its path with this very content.
// - `$SWB_CONFIG`: an environment variable is no proof of anything (any program, a row's agent
//   included, can set it before running swb), so it gets the workspace file's rule: trusted only when
//   it names the operator's own config or a file the store trusts with this content. The dashboard
//   sets it for its rows so that a hub a row's CLI starts after a crash reads the same file; a file
//   the operator trusted keeps working there, and so does one they gave with --config, because the
//   server records that file in the store when it hands it on (src/server/config-for-rows.ts).
// The path is compared as found, never through symlinks: a cloned repository's symlink to a trusted
// file elsewhere would otherwise borrow that file's trust for its own directory.
import type { ConfigOrigin } from './find-config-file.js';
import { userConfigFiles } from './find-config-file.js';
import { isTrustedIn, trustStorePath } from './config-trust-store.js';

export function isConfigTrusted(found: { path: string; origin: ConfigOrigin }, sha256: string, env: NodeJS.ProcessEnv = process.env): boolean {
  switch (found.origin) {
    case 'flag':
    case 'user':
      return true;
    case 'env':
      return userConfigFiles(env).includes(found.path) || isTrustedIn(trustStorePath(env), found.path, sha256);
    case 'workspace':
      return isTrustedIn(trustStorePath(env), found.path, sha256);
  }
}
