// Where the pinned agent CLIs live once test/real-agents/run.mjs has installed them, whether a test may
// run, and the one setup every real-agent test and bench:states run shares: an agent's own HOME and
// project against its model stand-in, and a swb dashboard running it as a row (launchAgentRow). Run
// directly (npx vitest --config vitest.real-agents.config.ts) a missing CLI skips its tests; under
// run.mjs (SWB_REAL_AGENTS_REQUIRED=1) it fails them.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadProfiles } from '../../src/agents/load-profiles.js';
import { writeClaudeConfig } from '../helpers/claude-config.js';
import { deferCleanup } from '../helpers/cleanup.js';
import { shellCommand } from '../helpers/swb-operator.js';
import type { TempHome } from '../helpers/temp-home.js';
import { startSwb, type TerminalHarness } from '../helpers/terminal-harness.js';

export const ROOT = new URL('../../', import.meta.url).pathname;
export const AGENTS_DIR = join(ROOT, '.cache/agents/node_modules');
const pins = JSON.parse(readFileSync(new URL('./pins.json', import.meta.url), 'utf8')) as Record<string, string>;

/** The pinned CLIs (each may be pointed elsewhere by its environment variable). */
export const CLAUDE_BIN = process.env.SWB_CLAUDE_BIN ?? join(AGENTS_DIR, '@anthropic-ai/claude-code/bin/claude.exe');
export const CODEX_JS = process.env.SWB_CODEX_JS ?? join(AGENTS_DIR, '@openai/codex/bin/codex.js');
export const GEMINI_JS = process.env.SWB_GEMINI_JS ?? join(AGENTS_DIR, '@google/gemini-cli/bundle/gemini.js');
/** The API key the Anthropic stand-in is given (Claude asks to approve a custom key: writeClaudeConfig approves it). */
export const CLAUDE_API_KEY = 'sk-ant-stub-key-0000000000000000000000';

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

export type AgentCli = 'claude' | 'codex' | 'gemini';

export interface AgentRowSpec {
  agent: AgentCli;
  /** The agent's model stand-in. */
  stubUrl: string;
  /** The rows, each running the agent the same way in the same HOME and project (default: one, named as the agent). */
  names?: readonly string[];
  /** Arguments after the profile's own (Codex, Gemini), or Claude's whole argument line (default `--permission-mode default`). */
  args?: readonly string[];
  /** More fields of each row (wake, nativeTools). */
  row?: Record<string, unknown>;
  /** Gemini: more fields of its settings' `security`. */
  security?: Record<string, unknown>;
  /** Gemini: user policy files (`.gemini/policies/NAME`) and their text. */
  policies?: Record<string, string>;
}

export interface AgentRowSetup {
  /** The swb config (swb.json in the workspace). */
  config: string;
  /** The agent's own HOME. */
  agentHome: string;
  /** The git project the rows run in. */
  project: string;
  /** The agent's own config file the test wrote (Claude's .claude.json, Codex's config.toml, Gemini's settings.json). */
  agentConfig: string;
}

const bundled = loadProfiles({ configDir: '/nonexistent-swb-config' }).profiles;

/** The argv the bundled profile starts `agent` with, after its executable. */
function profileArgs(agent: 'codex' | 'gemini'): string[] {
  const command = bundled.get(agent)!.command;
  return 'argv' in command ? command.argv.slice(1) : [];
}

/**
 * Writes the agent's HOME and project (offline, against `stubUrl`) and a swb config whose rows run it
 * as the bundled profile starts it. For Codex, its app-server daemons are stopped after the test,
 * before the temp home goes (a daemon started per HOME outlives the row).
 */
export function writeAgentRowConfig(home: TempHome, spec: AgentRowSpec): AgentRowSetup {
  const names = spec.names ?? [spec.agent];
  if (spec.agent === 'claude') {
    if (names.length !== 1 || names[0] !== 'claude') throw new Error('writeAgentRowConfig: a Claude setup has one row, `claude`');
    const args = spec.args?.join(' ') ?? '--permission-mode default';
    const { config, claudeHome, project } = writeClaudeConfig(home, { bin: CLAUDE_BIN, stubUrl: spec.stubUrl, apiKey: CLAUDE_API_KEY, args, ...(spec.row ? { row: spec.row } : {}) });
    return { config, agentHome: claudeHome, project, agentConfig: join(claudeHome, '.claude.json') };
  }
  const agentHome = join(home.home, `${spec.agent}-home`);
  const project = join(home.home, 'project');
  let agentConfig: string;
  let command: string[];
  let env: Record<string, string>;
  if (spec.agent === 'codex') {
    prepareCodexHome(agentHome, project, spec.stubUrl);
    deferCleanup(`codex daemons of ${agentHome}`, () => stopCodexDaemons(CODEX_JS, [agentHome]));
    agentConfig = join(agentHome, '.codex', 'config.toml');
    command = [process.execPath, CODEX_JS, ...profileArgs('codex'), ...(spec.args ?? [])];
    env = { HOME: agentHome, SHELL: '/bin/bash', STUB_API_KEY: 'stub-key' };
  } else {
    prepareGeminiHome(agentHome, project, spec.security);
    for (const [name, text] of Object.entries(spec.policies ?? {})) {
      mkdirSync(join(agentHome, '.gemini', 'policies'), { recursive: true });
      writeFileSync(join(agentHome, '.gemini', 'policies', name), text);
    }
    agentConfig = join(agentHome, '.gemini', 'settings.json');
    command = [process.execPath, GEMINI_JS, ...profileArgs('gemini'), ...(spec.args ?? [])];
    env = { HOME: agentHome, SHELL: '/bin/bash', GEMINI_API_KEY: 'stub-key', GOOGLE_GEMINI_BASE_URL: spec.stubUrl };
  }
  const config = join(home.workspace, 'swb.json');
  const rows = names.map((name) => ({ name, profile: spec.agent, ...spec.row, command: shellCommand(command), cwd: project, env }));
  writeFileSync(config, JSON.stringify({ rows }));
  return { config, agentHome, project, agentConfig };
}

/** The swb dashboard (120x40) on `config`, as every real-agent test starts it. */
export function startDashboard(home: TempHome, config: string): TerminalHarness {
  return startSwb({ home, args: ['--config', config], cols: 120, rows: 40 });
}

/** writeAgentRowConfig, then the dashboard running its rows. */
export function launchAgentRow(home: TempHome, spec: AgentRowSpec): AgentRowSetup & { t: TerminalHarness } {
  const setup = writeAgentRowConfig(home, spec);
  return { ...setup, t: startDashboard(home, setup.config) };
}
