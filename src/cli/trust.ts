// `swb trust [PATH]`: the operator trusts a workspace's config file as it is now, so swb may run
// what it names (its rows, worktrees.setup, federation; docs/SECURITY.md, "A hostile repository").
// It shows what that is first, and records the file's path with the SHA-256 of its content in the
// operator's trust store (src/config/config-trust-store.ts): a later change asks again.
import { checkConfig } from '../config/config-schema.js';
import { recordTrust, trustStorePath } from '../config/config-trust-store.js';
import { userConfigFiles } from '../config/find-config-file.js';
import { MAX_CONFIG_BYTES } from '../config/load-config.js';
import { readJsonFile } from '../config/read-json-file.js';
import { describeRunnableParts, runnableParts } from '../config/runnable-parts.js';
import { SwbError } from '../protocol/error-codes.js';
import { sanitize } from '../text/sanitize.js';
import type { CommandDescriptor } from './command.js';
import { configToTrust } from './trust-target.js';

const shown = (text: string) => sanitize(text, { singleLine: true, maxChars: 1000 });

export const trustCommand: CommandDescriptor = {
  name: 'trust',
  summary: "Trust a workspace's switchboard.json as it is now: swb may then start its rows, run worktrees.setup and join its federation.",
  usage: '[PATH]',
  maxArgs: 1,
  flags: [],
  details:
    'PATH is the file, or a directory holding switchboard.json or switchboard.jsonc; without it, the one here, else the one at the top of the workspace. ' +
    'Until trusted, a config found in the workspace gives only its limits, theme, keys and layout. Trust is kept per path and content: ' +
    'a changed file is untrusted again. Your own config (--config FILE, $XDG_CONFIG_HOME/switchboard/config.json) needs none. swb untrust takes it back.',
  async run(ctx) {
    const path = configToTrust(ctx.args[0], process.cwd(), ctx.paths.explicitWorkspace ? null : ctx.paths.workspace);
    const read = readJsonFile(path, MAX_CONFIG_BYTES);
    // The file's own words (and its path: a directory name may hold anything) reach the terminal sanitized.
    const invalid = (message: string) => new SwbError('CONFIG_INVALID', sanitize(message, { maxLines: 200, maxChars: 20_000 }));
    if (!read.ok) throw invalid(read.message);
    const checked = checkConfig(read.value);
    if (!checked.ok) throw invalid(checked.error.all.map((p) => `${path}: ${p.path || '(root)'}: ${p.problem}`).join('\n'));
    const runs = describeRunnableParts(runnableParts(checked.value));
    if (userConfigFiles(ctx.env).includes(path)) {
      ctx.result({ path, sha256: read.sha256, trusted: true, own: true, runs });
      ctx.print(`${shown(path)} is your own config: it is trusted without asking.`);
      return 0;
    }
    const recorded = recordTrust(trustStorePath(ctx.env), path, read.sha256);
    if (!recorded.ok) throw new SwbError(recorded.code, recorded.message);
    ctx.result({ path, sha256: read.sha256, trusted: true, runs });
    if (recorded.replacedProblem) ctx.print(`note: ${shown(recorded.replacedProblem)}; it now starts afresh.`);
    ctx.print(`trusted ${shown(path)} (sha256 ${read.sha256.slice(0, 12)}); until it changes, swb may run:`);
    for (const line of runs.length > 0 ? runs : ['(nothing: it names no rows, setup or federation)']) ctx.print(`  ${line}`);
    return 0;
  },
};
