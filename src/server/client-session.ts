// One client's dashboard, rendered by the server into that client's terminal: its own view state
// (focus, overlays, composer, theme), its own Ink instance drawing into a virtual surface, its own
// compositor painting the shared rows into the same byte stream, and its own input router. The
// terminal is anything that takes bytes and gives keys and a size — a socket to a thin client.
import React from 'react';
import { render } from 'ink';
import { App } from '../../components/App.js';
import { attachedStatusLine } from '../../components/attached-status-line.js';
import { rowHeader } from '../../components/row-header-line.js';
import { keysLabel, type Keymap } from '../config/keymap.js';
import { rawKeySequences } from '../terminal/key-encodings.js';
import type { Theme } from '../config/theme.js';
import { Compositor } from '../terminal/compositor.js';
import { ATTACHED_STATUS_LINES, DashboardPainter, type EchoPath } from '../terminal/dashboard-painter.js';
import { DASHBOARD_MODES, DASHBOARD_MOUSE_MODES } from '../terminal/terminal-modes.js';
import { ALT_SCREEN_OFF, ALT_SCREEN_ON, CLEAR_SCREEN, HIDE_CURSOR, SGR_RESET, SHOW_CURSOR } from '../terminal/escapes.js';
import { InkStdin, InkStdout } from '../terminal/ink-surface.js';
import { InputRouter, type KeyPath } from '../terminal/input-router.js';
import { KeyPacer } from '../terminal/key-pacer.js';
import { sgr } from '../terminal/sgr-color.js';
import { sanitize } from '../text/sanitize.js';
import type { Event } from '../util/event.js';
import type { ClientTerminalReport } from '../protocol/client-wire.js';
import { DisposableStore, toDisposable, type Disposable } from '../util/lifecycle.js';
import { initialState, type AppState } from '../app/app-state.js';
import { AppContext, type AppServices } from '../app/app-context.js';
import { AppStore } from '../app/app-store.js';
import { DashboardController } from '../app/dashboard-controller.js';
import { DrawnRows } from '../app/drawn-rows.js';
import { ResourceBoard } from '../app/resource-board.js';
import type { LayoutMode } from '../app/layout.js';
import { LayoutSource } from '../app/layout-source.js';
import type { PlannedRow } from '../app/launch-plan.js';
import type { ClientDesk } from '../app/client-desk.js';
import type { OperatorPort } from '../hub/operator-port.js';
import { copyOut } from './copy-out.js';
import { startMark } from '../util/start-trace.js';

/** Lines under the rows: the notification strip and the key hints. */
export const CHROME_HEIGHT = 2;

export interface ClientTerminal {
  /** Bytes for the client's terminal. */
  write(data: string): void;
  size(): { cols: number; rows: number };
  onResize: Event<void>;
  /** The client's keys, raw. */
  input: Event<Buffer>;
  /** The terminal named itself after attaching (its XTVERSION answer): its whole report from then on. */
  named?: Event<ClientTerminalReport>;
  /** Takes plain keys to an attached row off the event loop (a terminal the server reads itself). */
  keyPath?: KeyPath;
  /** Echoes the attached row's output ahead off the event loop (the same thread as keyPath's). */
  echoPath?: EchoPath;
}

/** What a client chose for itself (its command line) and the server's shared settings. */
export interface ClientLook {
  keymap: Keymap;
  themes: ReadonlyMap<string, Theme>;
  themeName: string;
  layoutMode: LayoutMode;
  attachedStatus: boolean;
  composerCloseAfterSend?: boolean;
  clipboard?: 'osc52' | 'file';
  /** Clicks and the wheel on the dashboard (default true). */
  mouse?: boolean;
}

export interface ClientSessionOptions {
  /** What the client asks of the server beyond mail (the server's one desk, shared by every client). */
  desk: ClientDesk;
  /** The mail core. */
  port: OperatorPort;
  look: ClientLook;
  terminal: ClientTerminal;
  /**
   * Subscribes this client's terminal to the server's notifications (the bytes come in the
   * sequence its terminal takes); the session writes them between frames until it ends.
   */
  notifications?: (write: (bytes: string) => void) => Disposable;
  /** Rows this client's command line adds (rows already running under the same name are focused instead). */
  rows: readonly PlannedRow[];
  /** Notes to show at once (launch warnings, a version note). */
  notes?: ReadonlyArray<{ kind: 'info' | 'error'; text: string; row: string | null }>;
  /** The client's directory: a new row starts there unless told otherwise. */
  cwd: string;
  /** The operator quit: the server ends, with every row. */
  onQuit: () => void;
  /** The operator detached this client: rows run on. */
  onLeave: () => void;
}

export interface ClientSession extends Disposable {
  /** Paints everything again (the client missed output while it did not read). */
  redraw(): void;
  /** The client asked to leave (as the detach key does): rows run on. */
  leave(): void;
  /** A note on this client's strip (something the server did for it later, such as a worktree row). */
  note(kind: 'info' | 'error', text: string, row: string | null): void;
}

export function openClientSession(o: ClientSessionOptions): ClientSession {
  const { desk, port, look, terminal } = o;
  const { fleet } = desk;
  const { keymap, themes } = look;
  const owner = new DisposableStore();
  const write = (s: string) => terminal.write(s);
  const size = () => {
    const s = terminal.size();
    return { cols: Math.max(20, s.cols), rows: Math.max(5, s.rows) };
  };

  const store = owner.add(new AppStore(initialState(size(), look.layoutMode, look.themeName)));
  const layouts = new LayoutSource(CHROME_HEIGHT);
  const compositor = new Compositor(write);
  const detachKey = keysLabel(keymap, 'detach', 1);
  let painter: DashboardPainter | undefined;
  const inkStdout = new InkStdout(size(), () => painter?.chromeChanged());
  const inkStdin = new InkStdin();
  const themeOf = (name: string) => themes.get(name) ?? themes.values().next().value!;
  painter = owner.add(
    new DashboardPainter({
      dashboardModes: look.mouse === false ? DASHBOARD_MODES : DASHBOARD_MOUSE_MODES,
      compositor,
      ...(terminal.echoPath ? { echoPath: terminal.echoPath } : {}),
      ink: inkStdout,
      rows: fleet.rows,
      getState: store.getState,
      layouts,
      writeModes: write,
      renderHeader: (row, width, focused, now, themeName) => rowHeader({ row, width, focused, now, theme: themeOf(themeName) }),
      separatorStyle: (themeName) => sgr({ fg: themeOf(themeName).border.unfocused }),
      ...(look.attachedStatus
        ? { renderAttachedStatus: (state: AppState, width: number) => attachedStatusLine({ state, width, theme: themeOf(state.themeName), detachKey }) }
        : {}),
    }),
  );
  const drawn = painter;
  // The rows this client draws, each by its render handle, following what the state shows; their
  // changes go straight to the painter. Attaching and the detach key hand them over at once (the
  // painter paints on the next turn, before the store tells its change).
  const shown = owner.add(new DrawnRows({ store, rows: fleet.rows, layouts, painter: drawn }));

  // The server's notifications, straight to the terminal: the compositor writes each frame in one
  // call (inside synchronized output), so these bytes always fall between two frames.
  if (o.notifications) owner.add(o.notifications(write));
  // The controller and the input router need each other (attach hands keys to a row; the detach key
  // comes back to the controller): the router is bound right after it exists.
  let router: InputRouter | undefined;
  const controller: DashboardController = owner.add(
    new DashboardController({
      store,
      desk,
      port,
      themeNames: [...themes.keys()],
      layouts,
      onQuit: () => o.onQuit(),
      onLeave: () => o.onLeave(),
      onAttach: (row) => {
        const agent = desk.fleet.agents?.agentOf(row.name);
        router?.attach({ write: (data) => row.write(data), directFd: () => row.directInputFd, ...(agent ? { typed: () => agent.operatorTyped() } : {}) });
        shown.update();
        drawn.invalidate();
      },
      grantKey: keysLabel(keymap, 'grantBudget', 1),
      attachedStatusLines: look.attachedStatus ? ATTACHED_STATUS_LINES : 0,
      onDetach: () => {
        router?.detach();
        drawn.resetModes();
        drawn.invalidate();
      },
      reopenKey: keysLabel(keymap, 'reopen', 1),
      composerCloseAfterSend: look.composerCloseAfterSend ?? true,
      injectKeys: (keys) => pacer?.push(keys),
      pasteKey: keysLabel(keymap, 'paste', 1),
      ...(desk.copiesDir ? { copyText: (text: string) => copyOut(text, look.clipboard ?? 'file', write, desk.copiesDir!) } : {}),
    }),
  );
  const detachSequences = keymap.bindings.detach.flatMap((c) => rawKeySequences(c));
  // One key at a time to Ink (a burst read at once would be one unmatchable input), except
  // while the composer takes text, and text runs whole in the new-row form (its fields would
  // lose keys that arrive between two renders).
  const pacer = owner.add(
    new KeyPacer(
      (text) => inkStdin.write(text),
      () => (store.getState().composer.open ? 'burst' : store.getState().overlay === 'newRow' ? 'text' : 'keys'),
      inkStdout.onFrame,
    ),
  );
  router = owner.add(
    new InputRouter(
      terminal.input,
      (text) => {
        controller.inputArrived();
        pacer.push(text);
      },
      detachSequences,
      () => {
        controller.detach();
        shown.update();
        drawn.resetModes();
        drawn.invalidate();
      },
      () => controller.inputArrived(),
      look.mouse === false
        ? null
        : (e) => {
            controller.inputArrived();
            controller.pointer.mouse(e);
          },
      terminal.keyPath ?? null,
    ),
  );

  let restored = false;
  const restoreTerminal = () => {
    if (restored) return;
    restored = true;
    drawn.releaseModes();
    write(`${SGR_RESET}${SHOW_CURSOR}${ALT_SCREEN_OFF}`);
  };
  write(`${ALT_SCREEN_ON}${HIDE_CURSOR}${CLEAR_SCREEN}`);

  // Rows this client names start at the size of the viewport they will have, not at a guess then a SIGWINCH.
  const fresh = o.rows.filter((r) => !fleet.has(r.spec.name));
  const names = [...fleet.list(), ...fresh.map((r) => r.spec)].map((r) => ({ name: r.name }));
  const initial = layouts.of({ size: size(), rows: names, focused: names[0]?.name ?? null, layoutMode: look.layoutMode, zoomed: false });
  const startSize = (name: string) => {
    const vp = initial.rows.find((p) => p.name === name)?.viewport;
    return vp && vp.height > 0 ? { cols: vp.width, rows: vp.height } : { cols: size().cols, rows: Math.max(1, size().rows - CHROME_HEIGHT - 1) };
  };
  for (const problem of desk.startRows(fresh, startSize)) store.notify('error', sanitize(problem, { singleLine: true, maxChars: 300 }), null);
  startMark('rows started');
  // The rows this client asked for by name are the ones it looks at first.
  const first = o.rows[0]?.spec.name;
  if (first !== undefined) store.focus(first);
  for (const n of o.notes ?? []) store.notify(n.kind, sanitize(n.text, { singleLine: true, maxChars: 300 }), n.row);

  const resources = owner.add(new ResourceBoard(port, store));
  const services: AppServices = { store, intents: controller, resources, themes, keymap, chromeHeight: CHROME_HEIGHT, layouts, profileIds: desk.profileIds, cwd: o.cwd };
  const ink = render(
    React.createElement(AppContext.Provider, { value: services }, React.createElement(App)),
    { stdout: inkStdout as unknown as NodeJS.WriteStream, stdin: inkStdin as unknown as NodeJS.ReadStream, debug: true, exitOnCtrlC: false, patchConsole: false },
  );
  startMark('chrome rendered');
  owner.add(toDisposable(() => ink.unmount()));
  owner.add(store.onChange(() => drawn.chromeChanged()));
  // A new client's sizes count from its first key; until then it takes them only if nobody else does.
  if (fleet.sizeOwner === null) controller.inputArrived();
  controller.sizes.apply();

  owner.add(
    terminal.onResize(() => {
      const s = size();
      store.resize(s.cols, s.rows);
      inkStdout.resize(s);
      drawn.invalidate();
      controller.sizes.apply();
    }),
  );
  const closing = toDisposable(() => {
    owner.dispose();
    restoreTerminal();
  });
  return {
    dispose: () => closing.dispose(),
    redraw: () => {
      write(SGR_RESET);
      drawn.resetModes();
      drawn.invalidate();
    },
    note: (kind, text, row) => {
      if (!owner.disposed) store.notify(kind, sanitize(text, { singleLine: true, maxChars: 300 }), row);
    },
    leave: () => {
      if (!owner.disposed) o.onLeave();
    },
  };
}
