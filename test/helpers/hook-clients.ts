// The two programs an agent's hook may run (issue #37): `swb hook` (node, src/cli/hook-report.ts) and
// the native hook client (native/hook-client.c, build/Release/swb-hook), which the recipes use where it
// was built. Tests run the same cases through both, as `swb hook ARGS` would be run.
import { nativeHookClientPath } from '../../src/util/native-addon.js';
import { packageBinScript, swbBinPath } from '../../src/util/package-root.js';
import { runSwb, type SwbResult, type SwbRunOptions } from './run-swb.js';

export type HookClient = 'node' | 'native';
export const HOOK_CLIENTS: readonly HookClient[] = ['node', 'native'];

/** The argv that runs `swb hook ...` through this client (append the event and its arguments). */
export function hookClientArgv(client: HookClient): string[] {
  if (client === 'node') return [process.execPath, swbBinPath(), 'hook'];
  const native = nativeHookClientPath();
  if (!native) throw new Error('build/Release/swb-hook was not built: `npm install` (node-gyp, binding.gyp) builds it');
  // What it hands on to is the package's own launcher, as a row's is the server's.
  return [native, packageBinScript()];
}

/** Runs `swb hook ARGS...` through `client` to completion. */
export function runHook(client: HookClient, args: readonly string[], opts: SwbRunOptions): Promise<SwbResult> {
  return runSwb(args, { ...opts, via: hookClientArgv(client) });
}
