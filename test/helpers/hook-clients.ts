// The two programs an agent's hook may run (issue #37): `swb hook` (node, src/cli/hook-report.ts) and
// the native hook client (native/hook-client.c, build/Release/swb-hook), which the recipes use where it
// was built. Tests run the same cases through both, as `swb hook ARGS` would be run.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { hookRunner } from '../../src/server/native-tools.js';
import { nativeHookClientPath } from '../../src/util/native-addon.js';
import { packageBinScript, swbBinPath } from '../../src/util/package-root.js';
import { runSwb, type SwbResult, type SwbRunOptions } from './run-swb.js';
import type { TempHome } from './temp-home.js';

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

/**
 * A hook's start-to-exit (ms), `runs` times: the hook command a row's recipe runs (`rows`: the native
 * client where it was built; or the client named), through `sh -c` as the agents run it, on its fast
 * path as a row's hook (the row's three variables; the hub reads the hello and refuses the made-up
 * token, as much work for the hook as a report). The floor of a hook-decided transition's latency.
 */
export async function hookStartToExit(home: TempHome, client: HookClient | 'rows', runs: number): Promise<number[]> {
  const launcher = join(home.paths.runDir, 'bin', 'swb');
  const swb = existsSync(launcher) ? launcher : packageBinScript();
  const hookClient = client === 'node' ? null : client === 'native' ? hookClientArgv('native')[0]! : nativeHookClientPath();
  const command = `${hookRunner({ swb, hookClient })} session-end`;
  const env = { SWB_SESSION: 'hook-floor', SWB_TOKEN: 'not-a-token', SWB_SOCKET: home.paths.socketPath };
  const took: number[] = [];
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    await runSwb([], { home, env, input: '{}', via: ['/bin/sh', '-c', command] });
    took.push(performance.now() - s);
  }
  return took;
}

/** A hook's floor measured now: the median of five start-to-exits of `client` (see hookStartToExit). */
export async function hookFloorMs(home: TempHome, client: HookClient | 'rows'): Promise<number> {
  return (await hookStartToExit(home, client, 5)).sort((a, b) => a - b)[2]!;
}
