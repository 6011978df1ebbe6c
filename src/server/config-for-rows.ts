// What the rows learn of the server's config: `SWB_CONFIG`, the file it read, so that a hub a row's
// CLI starts after this server crashed reads the same limits. `$SWB_CONFIG` earns no trust by being
// set (src/config/config-trust.ts: anything can set it), so a file the operator trusted keeps
// working there through the trust store, and an untrusted one stays untrusted. A file the operator
// named with `--config` is trusted by that act; handing it on, the server records it in the store
// (as `swb trust FILE` would, for this content), so the rows' hub trusts it too.
import { isTrustedIn, recordTrust, trustStorePath } from '../config/config-trust-store.js';
import type { LaunchPlan } from '../app/launch-plan.js';
import { sanitize } from '../text/sanitize.js';

export function configEnvForRows(
  plan: Pick<LaunchPlan, 'env' | 'configPath' | 'configOrigin' | 'configSha256'>,
  log: (line: string) => void,
): Record<string, string> {
  if (plan.configPath === null) return {};
  if (plan.configOrigin === 'flag' && plan.configSha256 !== null) {
    const store = trustStorePath(plan.env);
    if (!isTrustedIn(store, plan.configPath, plan.configSha256)) {
      const recorded = recordTrust(store, plan.configPath, plan.configSha256);
      if (!recorded.ok) log(sanitize(`--config ${plan.configPath} could not be recorded as trusted for the rows' hub: ${recorded.message}`, { singleLine: true }));
    }
  }
  return { SWB_CONFIG: plan.configPath };
}
