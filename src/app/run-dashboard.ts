// `swb [--config FILE] [--workspace NAME] [--layout stack|grid] [--theme NAME] [ROW ...]`:
// loads the config, embeds the workspace hub, starts every row, and runs the Ink dashboard with
// the compositor painting the rows. Ends every child it started on the way out.
import { join } from 'node:path';
import React from 'react';
import { render } from 'ink';
import { App } from '../../components/App.js';
import { attachedStatusLine } from '../../components/attached-status-line.js';
import { rowHeaderLine } from '../../components/row-header-line.js';
import { sgr } from '../terminal/sgr-color.js';
import { openAuditLog } from '../agents/audit-log.js';
import { keysLabel, rawKeySequences } from '../config/keymap.js';
import { Hub } from '../hub/hub.js';
import { operatorPort } from '../hub/operator-port.js';
import { resolveRuntimePaths } from '../hub/runtime-paths.js';
import { HubClient } from '../client/hub-client.js';
import { SwbError } from '../protocol/error-codes.js';
import { RowManager } from '../rows/row-manager.js';
import { Compositor } from '../terminal/compositor.js';
import { ATTACHED_STATUS_LINES, DashboardPainter } from '../terminal/dashboard-painter.js';
import { ALT_SCREEN_OFF, ALT_SCREEN_ON, CLEAR_SCREEN, HIDE_CURSOR, SGR_RESET, SHOW_CURSOR } from '../terminal/escapes.js';
import { InkStdin, InkStdout } from '../terminal/ink-surface.js';
import { InputRouter } from '../terminal/input-router.js';
import { KeyPacer } from '../terminal/key-pacer.js';
import { RotatingLog } from '../util/rotating-log.js';
import { DisposableStore, toDisposable } from '../util/lifecycle.js';
import { writeSwbLauncher } from '../util/swb-launcher.js';
import { initialState, type AppState } from './app-state.js';
import { AppContext, type AppServices } from './app-context.js';
import { AppStore } from './app-store.js';
import { AgentAuditTrail } from '../supervisor/agent-audit-trail.js';
import { AgentSupervisor } from '../supervisor/agent-supervisor.js';
import { computeLayout } from './layout.js';
import { DashboardController } from './dashboard-controller.js';
import { planLaunch, type LaunchPlan } from './launch-plan.js';
import { createRinger } from './notification-ring.js';

/** Lines under the rows: the notification strip and the key hints. */
const CHROME_HEIGHT = 2;

export async function runDashboard(argv: string[], baseEnv: NodeJS.ProcessEnv = process.env): Promise<number> {
  const planned = planLaunch(argv, baseEnv, process.cwd());
  if ('help' in planned) {
    const { printTopLevelHelp } = await import('../cli/top-level-help.js');
    printTopLevelHelp();
    return 0;
  }
  if ('exit' in planned) {
    process.stderr.write(`${planned.message}\n`);
    return planned.exit;
  }
  if (!process.stdout.isTTY || !process.stdin.isTTY) {
    process.stderr.write('swb: the dashboard needs a terminal (stdin and stdout must be a TTY); the mail commands work anywhere (swb --help).\n');
    return 2;
  }
  const plan = planned.plan;
  let hub: Hub;
  try {
    hub = await startEmbeddedHub(plan.paths, plan.limits);
  } catch (err) {
    if (!(err instanceof SwbError)) throw err;
    const hint = err.code === 'HUB_RUNNING' ? ' Open it, or start another with --workspace NAME.' : '';
    process.stderr.write(`swb: ${err.code}: ${err.message}${hint}\n`);
    return 1;
  }
  const owner = new DisposableStore();
  const quitting = wireDashboard(plan, hub, owner);
  await quitting.done;
  // One owner, torn down in reverse order of wiring: Ink, input, painter, controller, agents, rows, store.
  owner.dispose();
  await hub.stop();
  quitting.restoreTerminal();
  return 0;
}

/**
 * Starts everything the plan describes, in dependency order, registering each part with `owner`.
 * Resolves `done` when the operator quits (or a SIGTERM/SIGHUP arrives).
 */
function wireDashboard(plan: LaunchPlan, hub: Hub, owner: DisposableStore): { done: Promise<void>; restoreTerminal: () => void } {
  const { paths, keymap, themes } = plan;
  // Everything above the seam reaches the mail core through this one port.
  const port = operatorPort(hub);
  const out = process.stdout;
  const write = (s: string) => out.write(s);
  const size = () => ({ cols: Math.max(20, out.columns || 80), rows: Math.max(5, out.rows || 24) });

  const store = owner.add(new AppStore(initialState(size(), plan.layoutMode, plan.themeName)));
  const rows = owner.add(
    new RowManager({
      socketPath: paths.socketPath,
      mintToken: (name) => {
        const r = port.registerRow(name);
        if (!r.ok) throw new SwbError(r.error.code, r.error.message);
        return r.token;
      },
      binDir: writeSwbLauncher(join(paths.runDir, 'bin')),
      // A hub a row's CLI starts (after this dashboard crashed) reads the same config, so the same limits.
      baseEnv: plan.configPath ? { ...plan.env, SWB_CONFIG: plan.configPath } : plan.env,
      ...(plan.scrollback !== undefined ? { scrollback: plan.scrollback } : {}),
    }),
  );

  // Every byte swb types into a row is logged (0600) before it is written, and kept for the audit view.
  const auditLogPath = join(paths.runDir, 'audit.log');
  const agents = owner.add(new AgentSupervisor({ profiles: plan.profiles, mail: port, audit: new AgentAuditTrail(openAuditLog(auditLogPath)) }));
  port.setExplainProvider((row, verbose) => agents.explain(row, verbose));
  owner.add(toDisposable(() => port.setExplainProvider(null)));

  const compositor = new Compositor(write);
  const detachKey = keysLabel(keymap, 'detach', 1);
  let painter: DashboardPainter | undefined;
  const inkStdout = new InkStdout(size(), () => painter?.chromeChanged());
  const inkStdin = new InkStdin();
  const themeOf = (name: string) => themes.get(name) ?? themes.values().next().value!;
  painter = owner.add(
    new DashboardPainter({
      compositor,
      ink: inkStdout,
      rows,
      getState: store.getState,
      chromeHeight: CHROME_HEIGHT,
      writeModes: write,
      renderHeader: (row, width, focused, now, themeName) => rowHeaderLine({ row, width, focused, now, theme: themeOf(themeName) }),
      separatorStyle: (themeName) => sgr({ fg: themeOf(themeName).border.unfocused }),
      ...(plan.attachedStatus
        ? { renderAttachedStatus: (state: AppState, width: number) => attachedStatusLine({ state, width, theme: themeOf(state.themeName), detachKey }) }
        : {}),
    }),
  );
  const drawn = painter;

  // Bell / desktop notification (config `notifications`): written between frames, straight to the terminal.
  const ring = createRinger(plan.notifications, write);
  let quit!: () => void;
  const done = new Promise<void>((resolve) => (quit = resolve));
  const wakeFor = new Map(plan.rows.flatMap((r) => (r.wake ? [[r.spec.name, r.wake] as const] : [])));
  // The controller and the input router need each other (attach hands keys to a row; the detach key
  // comes back to the controller): the router is bound right after it exists.
  let router: InputRouter | undefined;
  const controller: DashboardController = owner.add(
    new DashboardController({
      store,
      rows,
      port,
      themeNames: [...themes.keys()],
      layout: () => drawn.layoutFor(store.getState()),
      onQuit: () => quit(),
      onAttach: (row) => {
        router?.attach({ write: (data) => row.write(data) });
        drawn.invalidate();
      },
      onRowScreen: (row) => drawn.rowChanged(row),
      configuredWakePolicy: (spec) => wakeFor.get(spec.name),
      agents,
      auditLogPath,
      grantKey: keysLabel(keymap, 'grantBudget', 1),
      attachedStatusLines: plan.attachedStatus ? ATTACHED_STATUS_LINES : 0,
      onDetach: () => {
        router?.detach();
        drawn.resetModes();
        drawn.invalidate();
      },
      reopenKey: keysLabel(keymap, 'reopen', 1),
      ...(ring ? { ring } : {}),
    }),
  );
  const detachSequences = keymap.bindings.detach.flatMap((c) => rawKeySequences(c));
  // One key at a time to Ink (a burst read at once would be one unmatchable input), except
  // while the composer takes text.
  const pacer = owner.add(new KeyPacer((text) => inkStdin.write(text), () => !store.getState().composer.open, inkStdout.onFrame));
  router = owner.add(
    new InputRouter(
      process.stdin,
      (text) => pacer.push(text),
      detachSequences,
      () => {
        controller.detach();
        drawn.resetModes();
        drawn.invalidate();
      },
      () => controller.operatorTypedIntoRow(),
    ),
  );

  const restoreTerminal = () => {
    drawn.resetModes();
    out.write(`${SGR_RESET}${SHOW_CURSOR}${ALT_SCREEN_OFF}`);
  };
  process.once('exit', restoreTerminal);
  owner.add(toDisposable(() => process.off('exit', restoreTerminal)));
  out.write(`${ALT_SCREEN_ON}${HIDE_CURSOR}${CLEAR_SCREEN}`);

  // Every program starts at the size of the viewport it will have, not at a guess then a SIGWINCH.
  const initial = computeLayout({
    ...size(),
    names: plan.rows.map((r) => r.spec.name),
    focused: plan.rows[0]?.spec.name ?? null,
    mode: store.getState().layoutMode,
    zoomed: false,
    chromeHeight: CHROME_HEIGHT,
  });
  const startSize = (name: string) => {
    const vp = initial.rows.find((p) => p.name === name)?.viewport;
    return vp && vp.height > 0 ? { cols: vp.width, rows: vp.height } : { cols: size().cols, rows: Math.max(1, size().rows - CHROME_HEIGHT - 1) };
  };
  for (const { spec } of plan.rows) controller.addRow(spec, startSize(spec.name));
  for (const w of plan.warnings) store.notify('error', w.text, w.row);

  const services: AppServices = { store, intents: controller, themes, keymap, chromeHeight: CHROME_HEIGHT };
  const ink = render(
    React.createElement(AppContext.Provider, { value: services }, React.createElement(App)),
    { stdout: inkStdout as unknown as NodeJS.WriteStream, stdin: inkStdin as unknown as NodeJS.ReadStream, debug: true, exitOnCtrlC: false, patchConsole: false },
  );
  owner.add(toDisposable(() => ink.unmount()));
  owner.add(store.onChange(() => drawn.chromeChanged()));
  controller.applySizes();

  const onResize = () => {
    const s = size();
    store.resize(s.cols, s.rows);
    inkStdout.resize(s);
    drawn.invalidate();
    controller.applySizes();
  };
  out.on('resize', onResize);
  const onSignal = () => quit();
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  owner.add(
    toDisposable(() => {
      out.off('resize', onResize);
      process.off('SIGTERM', onSignal);
      process.off('SIGHUP', onSignal);
    }),
  );
  return { done, restoreTerminal };
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
