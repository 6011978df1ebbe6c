// What a dashboard launch will start, as plain data: flags, agent profiles, the config (keys, theme,
// limits), the rows to run with their wake policies, the themes, the layout and the workspace's
// places. Reading files is all it does: nothing is started, so it can be tested and printed, and
// the wiring (src/server/server-core.ts, client-session.ts) starts things in dependency order from it.
import { statSync } from 'node:fs';
import { basename, resolve as resolvePath } from 'node:path';
import { loadProfiles, type ProfileSet } from '../agents/load-profiles.js';
import { parseFlags, UsageError } from '../util/parse-flags.js';
import { resolveFederationPaths, type FederationSettings } from '../config/federation-config.js';
import type { Keymap } from '../config/keymap.js';
import { loadConfig, type LoadedConfig } from '../config/load-config.js';
import { DASHBOARD_FLAGS, rowArgProblem } from './dashboard-args.js';
import { assignUniqueNames, parseRowArg, rowSpecFromConfig, type RowSpec as ConfigRowSpec } from '../config/row-spec.js';
import { listThemes, loadTheme, type Theme } from '../config/theme.js';
import { resolveRuntimePaths, type RuntimePaths } from '../hub/runtime-paths.js';
import type { HubLimits } from '../protocol/limits.js';
import type { RowSpec } from '../rows/row.js';
import type { WakePolicy } from './app-state.js';
import type { LayoutMode } from './layout.js';
import { launchWarnings } from './launch-warnings.js';
import { untrustedNote, type RunnableParts } from '../config/runnable-parts.js';

export { DASHBOARD_FLAGS } from './dashboard-args.js';

export interface PlannedRow {
  spec: RowSpec;
  /** The config's `rows[].wake`, if it set one. */
  wake?: WakePolicy;
  /** The config's `rows[].worktree`: the row runs in a git worktree of its own. */
  worktree?: { branch?: string; base?: string };
}

export interface LaunchPlan {
  /** The environment rows start from. */
  env: NodeJS.ProcessEnv;
  paths: RuntimePaths;
  limits: HubLimits;
  /** The config's federation section (file paths resolved), or none: this node only. */
  federation?: FederationSettings;
  keymap: Keymap;
  profiles: ProfileSet;
  rows: PlannedRow[];
  /** The rows came from the command line (not the config's, not the default shell). */
  rowsGiven: boolean;
  /** Every theme that loads (the theme key cycles through them), or only the chosen one (PlanOptions.themes). */
  themes: ReadonlyMap<string, Theme>;
  themeName: string;
  layoutMode: LayoutMode;
  /** The config file read (rows get it as SWB_CONFIG), or null. */
  configPath: string | null;
  /** Where it was found, and its content's SHA-256 (src/server/config-for-rows.ts records a --config file as trusted). */
  configOrigin: LoadedConfig['origin'];
  configSha256: string | null;
  /** What the file would have run, held back because it is not trusted (rows, setup, federation), or null. */
  configWithheld: RunnableParts | null;
  scrollback?: number;
  notifications: LoadedConfig['config']['notifications'];
  /** The config's `notify` section (its command withheld from an untrusted config), for the server's notifier. */
  notify: LoadedConfig['config']['notify'];
  /** A status line under an attached row. */
  attachedStatus: boolean;
  /** The mouse on the dashboard (config `mouse`, default true). */
  mouse: boolean;
  /** Where copies go: the terminal's clipboard (OSC 52) or a file (default). */
  clipboard: 'osc52' | 'file';
  /** Close the composer once a message is accepted (config composer.closeAfterSend, default true). */
  composerCloseAfterSend: boolean;
  /** Worktree rows: where they go, what prepares them. */
  worktrees: LoadedConfig['config']['worktrees'];
  /** The browser client's listener (the config's `web`; withheld from an untrusted config). */
  web?: NonNullable<LoadedConfig['config']['web']>;
  /** Price overrides and budgets (the config's `usage`). */
  usage?: NonNullable<LoadedConfig['config']['usage']>;
  /** Problems worth a notification at start (a row's command line, a broken profile file). */
  warnings: Array<{ text: string; row: string | null }>;
}

export type PlanResult = { plan: LaunchPlan } | { help: true } | { exit: number; message: string };

export interface PlanOptions {
  /**
   * 'all' (default): every theme that loads, for a dashboard. 'chosen': only the chosen one, which
   * must load all the same: the workspace server's own plan, which draws nothing (each client's
   * dashboard takes the themes of its own HELLO's plan), so it does not list and read every theme
   * file on the way to the first frame (issue #33).
   */
  themes?: 'all' | 'chosen';
}

export function planLaunch(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string, opts: PlanOptions = {}): PlanResult {
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags([...argv], DASHBOARD_FLAGS);
  } catch (err) {
    if (err instanceof UsageError) return { exit: 2, message: `swb: USAGE: ${err.message}\nTry: swb --help` };
    throw err;
  }
  if (parsed.flags.help) return { help: true };

  const profiles = loadProfiles({ env });
  const profileIds = [...profiles.profiles.keys()];
  const loaded = loadConfig({ ...(parsed.flags.config ? { configPath: parsed.flags.config as string } : {}), cwd, env, knownProfiles: profileIds });
  if (!loaded.ok) return { exit: 1, message: `swb: ${loaded.error.code}: ${loaded.error.message}` };
  const { config, keymap, limits, baseDir } = loaded.value;

  // Rows: the command line's, else the config's, else one shell.
  const specs: ConfigRowSpec[] = [];
  for (const arg of parsed.args) {
    const problem = rowArgProblem(arg, profileIds, env, cwd);
    if (problem !== null) return { exit: 2, message: `swb: USAGE: ${problem}` };
    const r = parseRowArg(arg, profileIds);
    if (r.ok) specs.push(r.spec);
  }
  if (specs.length === 0) for (const row of config.rows) specs.push(rowSpecFromConfig(row, baseDir, profileIds, env));
  if (specs.length === 0) {
    // The default row is the operator's shell, read with that shell's profile (so its state is
    // detected and `swb explain shell` answers) when there is one.
    const shell = env.SHELL || '/bin/sh';
    const program = basename(shell);
    const profile = [...profiles.profiles.values()].find((p) => p.id === program || p.match.processNames.includes(program));
    specs.push({ name: 'shell', nameGiven: false, command: shell, ...(profile ? { profile: profile.id } : {}) });
  }
  const unique = assignUniqueNames(specs);
  // A row's working directory that is not there would fail inside the row, naming nothing: say it now.
  for (const spec of unique) {
    if (spec.cwd !== undefined && !isDirectory(spec.cwd)) {
      return { exit: 2, message: `swb: row ${spec.name}: its working directory ${spec.cwd} does not exist (or is not a directory)` };
    }
  }

  // Themes: every one we can load (or the chosen one alone: opts.themes); the chosen one must load.
  // The config's theme (the default one when it names none) is loaded already, by loadConfig, the
  // same way: not read a second time.
  const themes = new Map<string, Theme>();
  const configTheme = loaded.value.theme;
  for (const entry of opts.themes === 'chosen' ? [] : listThemes({ env })) {
    if (entry.name === configTheme.name) {
      themes.set(entry.name, configTheme);
      continue;
    }
    const t = loadTheme(entry.name, { env });
    if (t.ok) themes.set(entry.name, t.theme);
  }
  const themeName = (parsed.flags.theme as string | undefined) ?? config.theme ?? loaded.value.theme.name;
  if (themeName === configTheme.name) themes.set(themeName, configTheme);
  if (!themes.has(themeName)) {
    const t = loadTheme(themeName, { env });
    if (!t.ok) return { exit: 1, message: `swb: ${t.error.code}: ${t.error.message}` };
    themes.set(themeName, t.theme);
  }
  const layoutFlag = parsed.flags.layout as string | undefined;
  if (layoutFlag !== undefined && layoutFlag !== 'stack' && layoutFlag !== 'grid') return { exit: 2, message: 'swb: USAGE: --layout must be stack or grid' };

  const warnings: LaunchPlan['warnings'] = [];
  for (const spec of unique) {
    const command = typeof spec.command === 'string' ? spec.command : undefined;
    for (const w of launchWarnings({ name: spec.name, profile: spec.profile, command })) warnings.push({ text: w, row: spec.name });
  }
  for (const e of profiles.errors) warnings.push({ text: `profile ${e.file}: ${e.message}`.slice(0, 300), row: null });
  // An untrusted config's rows, setup and federation were left out by the loader: say so, and how to trust it.
  if (loaded.value.withheld && loaded.value.path) warnings.push({ text: untrustedNote(loaded.value.path, loaded.value.withheld), row: null });

  return {
    plan: {
      env,
      paths: resolveRuntimePaths({ cwd, env, ...(parsed.flags.workspace ? { workspace: parsed.flags.workspace as string } : {}) }),
      limits,
      ...(config.federation ? { federation: resolveFederationPaths(config.federation, baseDir) } : {}),
      keymap,
      profiles,
      rows: unique.map((spec) => ({
        spec: rowSpecFor(spec, profiles.profiles),
        ...(spec.wake ? { wake: spec.wake } : {}),
        ...(spec.worktree ? { worktree: spec.worktree } : {}),
      })),
      rowsGiven: parsed.args.length > 0,
      themes,
      themeName,
      layoutMode: (layoutFlag as LayoutMode | undefined) ?? config.layout ?? 'stack',
      configPath: loaded.value.path,
      configOrigin: loaded.value.origin,
      configSha256: loaded.value.sha256,
      configWithheld: loaded.value.withheld,
      ...(config.scrollback !== undefined ? { scrollback: config.scrollback } : {}),
      notifications: config.notifications,
      notify: config.notify,
      ...(config.web ? { web: resolveWebPaths(config.web, baseDir) } : {}),
      attachedStatus: config.attachedStatus ?? true,
      worktrees: config.worktrees,
      composerCloseAfterSend: config.composer?.closeAfterSend ?? true,
      clipboard: config.clipboard ?? 'file',
      mouse: config.mouse ?? true,
      ...(config.usage ? { usage: config.usage } : {}),
      warnings,
    },
  };
}

/** Whether `path` is a directory there now (a row's working directory is checked before it starts). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The row to start for a config-level spec: its command, or its profile's. */
export function rowSpecFor(spec: ConfigRowSpec, profiles: ReadonlyMap<string, { command: { argv: string[] } | { shell: string } }>): RowSpec {
  let command: RowSpec['command'];
  if (spec.command !== undefined) command = spec.command;
  else {
    const p = spec.profile ? profiles.get(spec.profile) : undefined;
    if (!p) command = spec.profile ?? 'sh';
    else if ('argv' in p.command) command = { file: p.command.argv[0]!, args: p.command.argv.slice(1) };
    else command = p.command.shell;
  }
  return {
    name: spec.name,
    command,
    ...(spec.nativeTools === false ? { nativeTools: false } : {}),
    ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
    ...(spec.env !== undefined ? { env: spec.env } : {}),
    ...(spec.profile !== undefined ? { profile: spec.profile } : {}),
  };
}

/** The web section with its TLS files resolved against the config's directory. */
function resolveWebPaths(web: NonNullable<LoadedConfig['config']['web']>, baseDir: string): NonNullable<LoadedConfig['config']['web']> {
  return {
    ...web,
    ...(web.tlsCert !== undefined ? { tlsCert: resolvePath(baseDir, web.tlsCert) } : {}),
    ...(web.tlsKey !== undefined ? { tlsKey: resolvePath(baseDir, web.tlsKey) } : {}),
  };
}
