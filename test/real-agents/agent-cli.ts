// Where the pinned agent CLIs live once test/real-agents/run.mjs has installed them, and whether a
// test may run. Run directly (npx vitest --config vitest.real-agents.config.ts) a missing CLI skips its
// tests; under run.mjs (SWB_REAL_AGENTS_REQUIRED=1) it fails them.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = new URL('../../', import.meta.url).pathname;
export const AGENTS_DIR = join(ROOT, '.cache/agents/node_modules');
const pins = JSON.parse(readFileSync(new URL('./pins.json', import.meta.url), 'utf8')) as Record<string, string>;

export function pinnedVersion(pkg: string): string {
  const v = pins[pkg];
  if (!v) throw new Error(`no pin for ${pkg} in test/real-agents/pins.json`);
  return v;
}

/** True when `path` exists; throws when it is missing and the suite requires every agent. */
export function cliInstalled(path: string): boolean {
  if (existsSync(path)) return true;
  if (process.env.SWB_REAL_AGENTS_REQUIRED === '1') throw new Error(`${path} is missing: run node test/real-agents/run.mjs`);
  return false;
}

/**
 * Stops the app-server daemon a bare Codex starts per HOME (`codex app-server daemon stop`), then kills
 * whatever its pid files still name. For every HOME a test ran Codex with.
 */
export function stopCodexDaemons(codexJs: string, homes: readonly string[]): void {
  for (const home of homes) {
    try {
      execFileSync(process.execPath, [codexJs, 'app-server', 'daemon', 'stop'], { env: { ...process.env, HOME: home }, stdio: 'ignore', timeout: 15_000 });
    } catch {
      // not running
    }
    for (const f of ['daemon.pid', 'daemon-updater.pid']) {
      const path = join(home, '.codex', 'app-server-daemon', f);
      if (!existsSync(path)) continue;
      try {
        const pid = (JSON.parse(readFileSync(path, 'utf8')) as { pid?: number }).pid;
        if (pid) process.kill(pid);
      } catch {
        // already gone
      }
    }
  }
}
