// `swb [--config FILE] [--workspace NAME] [--layout stack|grid] [--theme NAME] [ROW ...]`:
// loads the config, embeds the workspace hub, starts every row, and runs the Ink dashboard with
// the compositor painting the rows. Ends every child it started on the way out.
import { join } from 'node:path';
import React from 'react';
import { render } from 'ink';
import { App } from '../../components/App.js';
import { rowHeaderLine } from '../../components/row-header-line.js';
import { sgr } from '../terminal/sgr-color.js';
import { openAuditLog } from '../agents/audit-log.js';
import { loadProfiles } from '../agents/load-profiles.js';
import { parseFlags } from '../cli/parse-flags.js';
import { UsageError } from '../cli/command.js';
import { loadConfig } from '../config/load-config.js';
import { assignUniqueNames, parseRowArg, rowSpecFromConfig, type RowSpec as ConfigRowSpec } from '../config/row-spec.js';
import { listThemes, loadTheme, type Theme } from '../config/theme.js';
import { keysLabel, rawKeySequences } from '../config/keymap.js';
import { Hub } from '../hub/hub.js';
import { operatorPort } from '../hub/operator-port.js';
import { resolveRuntimePaths } from '../hub/runtime-paths.js';
import { HubClient } from '../client/hub-client.js';
import { SwbError } from '../protocol/error-codes.js';
import { RowManager } from '../rows/row-manager.js';
import type { RowSpec } from '../rows/row.js';
import { Compositor } from '../terminal/compositor.js';
import { DashboardPainter } from '../terminal/dashboard-painter.js';
import { ALT_SCREEN_OFF, ALT_SCREEN_ON, CLEAR_SCREEN, HIDE_CURSOR, SGR_RESET, SHOW_CURSOR } from '../terminal/escapes.js';
import { InkStdin, InkStdout } from '../terminal/ink-surface.js';
import { InputRouter } from '../terminal/input-router.js';
import { KeyPacer } from '../terminal/key-pacer.js';
import { RotatingLog } from '../util/rotating-log.js';
import { writeSwbLauncher } from '../util/swb-launcher.js';
import { initialState, type WakePolicy } from './app-state.js';
import { launchWarnings } from './launch-warnings.js';
import { AppContext, type AppServices } from './app-context.js';
import { AppStore } from './app-store.js';
import { AgentAuditTrail } from '../supervisor/agent-audit-trail.js';
import { AgentSupervisor } from '../supervisor/agent-supervisor.js';
import { computeLayout } from './layout.js';
import { DashboardController } from './dashboard-controller.js';
import { createRinger } from './notification-ring.js';

const FLAGS = [
  { name: 'config', type: 'string' as const, value: 'FILE', description: 'config file' },
  { name: 'workspace', type: 'string' as const, value: 'NAME', description: 'workspace name' },
  { name: 'layout', type: 'string' as const, value: 'stack|grid', description: 'initial layout' },
  { name: 'theme', type: 'string' as const, value: 'NAME', description: 'theme' },
  { name: 'help', type: 'boolean' as const, description: 'help' },
];

/** Lines under the rows: the notification strip and the key hints. */
const CHROME_HEIGHT = 2;

export async function runDashboard(argv: string[], baseEnv: NodeJS.ProcessEnv = process.env): Promise<number> {
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags(argv, FLAGS);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`swb: ${err.message}\nTry: swb --help\n`);
      return 2;
    }
    throw err;
  }
  if (parsed.flags.help) {
    const { printTopLevelHelp } = await import('../cli/top-level-help.js');
    printTopLevelHelp();
    return 0;
  }
  if (!process.stdout.isTTY || !process.stdin.isTTY) {
    process.stderr.write('swb: the dashboard needs a terminal (stdin and stdout must be a TTY); the mail commands work anywhere (swb --help).\n');
    return 2;
  }
  const cwd = process.cwd();
  const profileSet = loadProfiles({ env: baseEnv });
  const profileIds = [...profileSet.profiles.keys()];
  const loaded = loadConfig({ ...(parsed.flags.config ? { configPath: parsed.flags.config as string } : {}), cwd, env: baseEnv, knownProfiles: profileIds });
  if (!loaded.ok) {
    process.stderr.write(`swb: ${loaded.error.code}: ${loaded.error.message}\n`);
    return 1;
  }
  const { config, keymap, limits, baseDir } = loaded.value;

  // Rows: the command line's, else the config's, else one shell.
  const specs: ConfigRowSpec[] = [];
  for (const arg of parsed.args) {
    const r = parseRowArg(arg, profileIds);
    if (!r.ok) {
      process.stderr.write(`swb: row ${JSON.stringify(arg)}: ${r.problem}\n`);
      return 2;
    }
    specs.push(r.spec);
  }
  if (specs.length === 0) for (const row of config.rows) specs.push(rowSpecFromConfig(row, baseDir, profileIds, baseEnv));
  if (specs.length === 0) specs.push({ name: 'shell', nameGiven: false, command: baseEnv.SHELL || '/bin/sh' });
  const unique = assignUniqueNames(specs);

  // Themes: every one we can load; the chosen one must load.
  const themes = new Map<string, Theme>();
  for (const entry of listThemes({ env: baseEnv })) {
    const t = loadTheme(entry.name, { env: baseEnv });
    if (t.ok) themes.set(entry.name, t.theme);
  }
  const themeName = (parsed.flags.theme as string | undefined) ?? config.theme ?? loaded.value.theme.name;
  if (!themes.has(themeName)) {
    const t = loadTheme(themeName, { env: baseEnv });
    if (!t.ok) {
      process.stderr.write(`swb: ${t.error.code}: ${t.error.message}\n`);
      return 1;
    }
    themes.set(themeName, t.theme);
  }
  const layoutFlag = parsed.flags.layout as string | undefined;
  if (layoutFlag !== undefined && layoutFlag !== 'stack' && layoutFlag !== 'grid') {
    process.stderr.write('swb: --layout must be stack or grid\n');
    return 2;
  }

  const paths = resolveRuntimePaths({ cwd, env: baseEnv, ...(parsed.flags.workspace ? { workspace: parsed.flags.workspace as string } : {}) });
  let hub: Hub;
  try {
    hub = await startEmbeddedHub(paths, limits);
  } catch (err) {
    if (!(err instanceof SwbError)) throw err;
    const hint = err.code === 'HUB_RUNNING' ? ' Open it, or start another with --workspace NAME.' : '';
    process.stderr.write(`swb: ${err.code}: ${err.message}${hint}\n`);
    return 1;
  }

  // Everything above the seam reaches the mail core through this one port.
  const port = operatorPort(hub);
  const size = () => ({ cols: Math.max(20, process.stdout.columns || 80), rows: Math.max(5, process.stdout.rows || 24) });
  const store = new AppStore(initialState(size(), (layoutFlag as 'stack' | 'grid' | undefined) ?? config.layout ?? 'stack', themeName));
  const rows = new RowManager({
    socketPath: paths.socketPath,
    mintToken: (name) => {
      const r = port.registerRow(name);
      if (!r.ok) throw new SwbError(r.error.code, r.error.message);
      return r.token;
    },
    binDir: writeSwbLauncher(join(paths.runDir, 'bin')),
    // A hub a row's CLI starts (after this dashboard crashed) reads the same config, so the same limits.
    baseEnv: loaded.value.path ? { ...baseEnv, SWB_CONFIG: loaded.value.path } : baseEnv,
    ...(config.scrollback !== undefined ? { scrollback: config.scrollback } : {}),
  });

  // Every byte swb types into a row is logged (0600) before it is written, and kept for the audit view.
  const auditLogPath = join(paths.runDir, 'audit.log');
  const agents = new AgentSupervisor({ profiles: profileSet, mail: port, audit: new AgentAuditTrail(openAuditLog(auditLogPath)) });
  port.setExplainProvider((row, verbose) => agents.explain(row, verbose));

  const out = process.stdout;
  const write = (s: string) => out.write(s);
  const compositor = new Compositor(write);
  let painter: DashboardPainter | undefined;
  const inkStdout = new InkStdout(size(), () => painter?.chromeChanged());
  const inkStdin = new InkStdin();

  // Bell / desktop notification (config `notifications`): written between frames, straight to the terminal.
  const ring = createRinger(config.notifications, write);

  let quit!: () => void;
  const quitting = new Promise<void>((resolve) => (quit = resolve));
  const controller: DashboardController = new DashboardController({
    store,
    rows,
    port,
    themeNames: [...themes.keys()],
    layout: () => painter!.layoutFor(store.getState()),
    onQuit: () => quit(),
    onAttach: (row) => {
      router.attach({ write: (data) => row.write(data) });
      painter?.invalidate();
    },
    onRowScreen: (row) => painter?.rowChanged(row),
    configuredWakePolicy: (spec) => wakeFor.get(spec.name),
    agents,
    auditLogPath,
    grantKey: keysLabel(keymap, 'grantBudget', 1),
    ...(ring ? { ring } : {}),
  });
  const themeOf = (name: string) => themes.get(name) ?? themes.values().next().value!;
  painter = new DashboardPainter({
    compositor,
    ink: inkStdout,
    rows,
    getState: store.getState,
    chromeHeight: CHROME_HEIGHT,
    writeModes: write,
    renderHeader: (row, width, focused, now, themeName) => rowHeaderLine({ row, width, focused, now, theme: themeOf(themeName) }),
    separatorStyle: (themeName) => sgr({ fg: themeOf(themeName).border.unfocused }),
  });
  const detachSequences = keymap.bindings.detach.flatMap((c) => rawKeySequences(c));
  // One key at a time to Ink (a burst read at once would be one unmatchable input), except
  // while the composer takes text.
  const pacer = new KeyPacer((text) => inkStdin.write(text), () => !store.getState().composer.open, inkStdout.onFrame);
  const router = new InputRouter(
    process.stdin,
    (text) => pacer.push(text),
    detachSequences,
    () => {
      controller.detach();
      painter?.resetModes();
      painter?.invalidate();
    },
    () => controller.operatorTypedIntoRow(),
  );

  const restoreTerminal = () => {
    painter?.resetModes();
    out.write(`${SGR_RESET}${SHOW_CURSOR}${ALT_SCREEN_OFF}`);
  };
  process.once('exit', restoreTerminal);
  out.write(`${ALT_SCREEN_ON}${HIDE_CURSOR}${CLEAR_SCREEN}`);

  const wakeFor = new Map<string, WakePolicy>();
  // Every program starts at the size of the viewport it will have, not at a guess then a SIGWINCH.
  const initial = computeLayout({
    ...size(),
    names: unique.map((s) => s.name),
    focused: unique[0]?.name ?? null,
    mode: store.getState().layoutMode,
    zoomed: false,
    chromeHeight: CHROME_HEIGHT,
  });
  const startSize = (name: string) => {
    const vp = initial.rows.find((p) => p.name === name)?.viewport;
    return vp && vp.height > 0 ? { cols: vp.width, rows: vp.height } : { cols: size().cols, rows: Math.max(1, size().rows - CHROME_HEIGHT - 1) };
  };
  for (const spec of unique) {
    const rowSpec = toRowSpec(spec, profileSet.profiles);
    if (spec.wake) wakeFor.set(spec.name, spec.wake);
    controller.addRow(rowSpec, startSize(spec.name));
    const command = typeof spec.command === 'string' ? spec.command : undefined;
    for (const w of launchWarnings({ name: spec.name, profile: spec.profile, command })) store.notify('error', w, spec.name);
  }
  for (const e of profileSet.errors) store.notify('error', `profile ${e.file}: ${e.message}`.slice(0, 300));

  const services: AppServices = { store, intents: controller, themes, keymap, chromeHeight: CHROME_HEIGHT };
  const ink = render(
    React.createElement(AppContext.Provider, { value: services }, React.createElement(App)),
    { stdout: inkStdout as unknown as NodeJS.WriteStream, stdin: inkStdin as unknown as NodeJS.ReadStream, debug: true, exitOnCtrlC: false, patchConsole: false },
  );
  store.onChange(() => painter?.chromeChanged());
  controller.applySizes();

  const onResize = () => {
    const s = size();
    store.resize(s.cols, s.rows);
    inkStdout.resize(s);
    painter?.invalidate();
    controller.applySizes();
  };
  out.on('resize', onResize);
  const onSignal = () => quit();
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);

  await quitting;
  out.off('resize', onResize);
  process.off('SIGTERM', onSignal);
  process.off('SIGHUP', onSignal);
  ink.unmount();
  router.dispose();
  pacer.dispose();
  painter.dispose();
  controller.dispose();
  port.setExplainProvider(null);
  agents.dispose();
  rows.dispose();
  store.dispose();
  await hub.stop();
  restoreTerminal();
  process.off('exit', restoreTerminal);
  return 0;
}

function toRowSpec(spec: ConfigRowSpec, profiles: ReadonlyMap<string, { command: { argv: string[] } | { shell: string } }>): RowSpec {
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
    ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
    ...(spec.env !== undefined ? { env: spec.env } : {}),
    ...(spec.profile !== undefined ? { profile: spec.profile } : {}),
  };
}

/**
 * The dashboard embeds the workspace's hub. A headless hub already running (started by a CLI
 * command) is asked to step down, and we take the lock once it has let go.
 */
async function startEmbeddedHub(paths: ReturnType<typeof resolveRuntimePaths>, limits: Parameters<typeof Hub.start>[0]['limits']): Promise<Hub> {
  const deadline = Date.now() + 5000;
  for (let asked = false; ; ) {
    try {
      // The dashboard owns the terminal, so the hub logs to the runtime dir (rotated), as a headless one does.
      const file = new RotatingLog(join(paths.runDir, 'hub.log'));
      const log = (line: string) => file.append(`${new Date().toISOString()} ${line}`);
      return await Hub.start({ paths, limits: limits ?? {}, embedded: true, log });
    } catch (err) {
      if (!(err instanceof SwbError) || err.code !== 'HUB_RUNNING' || Date.now() > deadline) throw err;
      if (!asked) {
        asked = true;
        await askHubToStop(paths).catch((e: unknown) => {
          // Another dashboard owns this workspace: say so instead of waiting for it.
          if (e instanceof SwbError && e.code === 'HUB_RUNNING') throw e;
        });
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

async function askHubToStop(paths: ReturnType<typeof resolveRuntimePaths>): Promise<void> {
  const { readFileSync } = await import('node:fs');
  const token = readFileSync(paths.operatorTokenFile, 'utf8').trim();
  const client = await HubClient.open(paths.socketPath);
  try {
    await client.sayHello({ session: 'operator', token });
    await client.request('hub.shutdown');
  } finally {
    client.destroy();
  }
}
