// `swb untrust [PATH]`: takes back the operator's trust in a workspace's config file (any content
// of it), so swb again runs nothing it names. PATH as for `swb trust`; a file no longer there may be
// named too. Nothing to take back is not a failure.
import { forgetTrust, trustStorePath } from '../config/config-trust-store.js';
import { SwbError } from '../protocol/error-codes.js';
import { sanitize } from '../text/sanitize.js';
import type { CommandDescriptor } from './command.js';
import { configsToUntrust } from './trust-target.js';

export const untrustCommand: CommandDescriptor = {
  name: 'untrust',
  summary: "Take back the trust given to a workspace's switchboard.json: swb runs nothing it names again.",
  usage: '[PATH]',
  maxArgs: 1,
  flags: [],
  details: 'PATH is the file, or a directory holding switchboard.json or switchboard.jsonc; without it, the ones here and at the top of the workspace.',
  async run(ctx) {
    const store = trustStorePath(ctx.env);
    const untrusted: string[] = [];
    for (const path of configsToUntrust(ctx.args[0], process.cwd(), ctx.paths.explicitWorkspace ? null : ctx.paths.workspace)) {
      const r = forgetTrust(store, path);
      if (!r.ok) throw new SwbError(r.code, r.message);
      if ((r.removed ?? 0) > 0) untrusted.push(path);
    }
    ctx.result({ untrusted });
    if (untrusted.length === 0) {
      ctx.print(`${ctx.args[0] !== undefined ? `${sanitize(ctx.args[0], { singleLine: true })} was` : 'no config here or at the top of the workspace was'} trusted; nothing changed.`);
    }
    for (const path of untrusted) ctx.print(`${sanitize(path, { singleLine: true })} is no longer trusted`);
    return 0;
  },
};
