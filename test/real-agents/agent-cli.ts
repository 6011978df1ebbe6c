// Where the pinned agent CLIs live once test/real-agents/run.mjs has installed them, and whether a
// test may run. Run directly (npx vitest --config vitest.real-agents.config.ts) a missing CLI skips its
// tests; under run.mjs (SWB_REAL_AGENTS_REQUIRED=1) it fails them.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

/**
 * A HOME and a git project for an offline Codex: `.codex/config.toml` with a custom model provider at the
 * Responses API stub (`stubUrl`), the project trusted unless `trusted` is false (then Codex asks).
 */
export function prepareCodexHome(home: string, project: string, stubUrl: string, trusted = true): void {
  mkdirSync(join(home, '.codex'), { recursive: true });
  mkdirSync(project, { recursive: true });
  // Codex asks about trust for a git repository it has not seen.
  execFileSync('git', ['init', '-q', project]);
  const config = [
    'model = "gpt-stub"',
    'model_provider = "stub"',
    '[model_providers.stub]',
    'name = "Stub"',
    `base_url = "${stubUrl}/v1"`,
    'env_key = "STUB_API_KEY"',
    'wire_api = "responses"',
    '[tui]',
    'screen_reader_detection_done = true',
    ...(trusted ? [`[projects."${project}"]`, 'trust_level = "trusted"'] : []),
  ];
  writeFileSync(join(home, '.codex', 'config.toml'), `${config.join('\n')}\n`);
}

/**
 * A HOME and a git project for an offline Gemini CLI: API-key auth in `.gemini/settings.json` (plus
 * `security`'s other fields), the project trusted.
 */
export function prepareGeminiHome(home: string, project: string, security: Record<string, unknown> = {}): void {
  mkdirSync(join(home, '.gemini'), { recursive: true });
  mkdirSync(project, { recursive: true });
  execFileSync('git', ['init', '-q', project]);
  writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' }, ...security } }));
  writeFileSync(join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [project]: 'TRUST_FOLDER' }));
}

/** The environment a real Claude Code runs with offline: its own HOME, the stand-in's URL and key, nothing sent elsewhere. */
export function claudeOfflineEnv(home: string, stubUrl: string, apiKey: string): NodeJS.ProcessEnv {
  return {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    TERM: 'xterm-256color',
    ANTHROPIC_BASE_URL: stubUrl,
    ANTHROPIC_API_KEY: apiKey,
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
}

/** The environment a real Codex runs with against the stand-in configured by prepareCodexHome. */
export function codexOfflineEnv(home: string): NodeJS.ProcessEnv {
  return { PATH: `${join(process.execPath, '..')}:/usr/bin:/bin`, HOME: home, TERM: 'xterm-256color', STUB_API_KEY: 'stub-key' };
}
