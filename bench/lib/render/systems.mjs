// The two multiplexers under test, each started with the same rows and a client attached through
// a pty of the same size. A session reports which processes are the multiplexer's own (whose CPU
// and memory count) and how to end it.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { $ } from 'zx';
import { PtyClient } from './pty-client.mjs';
import { HISTORY_LINES, TMUX_HISTORY_LINES } from './history.mjs';

export { HISTORY_LINES, TMUX_HISTORY_LINES };

export const COLS = 200;
export const ROWS = 50;

/** The terminal environment both clients get: same TERM and shell, nothing that changes behaviour. */
export function clientEnv(extra = {}) {
  const env = { ...process.env, TERM: 'xterm-256color', SHELL: '/bin/sh', LANG: process.env.LANG || 'C.UTF-8', ...extra };
  for (const k of ['CI', 'TMUX', 'TMUX_PANE', 'COLUMNS', 'LINES', 'NODE_OPTIONS', 'FORCE_COLOR', 'NO_COLOR']) delete env[k];
  return env;
}

/**
 * swb with `rows` ([{ name, cmd }]) in the grid layout. `profDir` set: node --cpu-prof writes
 * `<profName>.cpuprofile` there when swb exits.
 */
export function startSwb(ctx, rows, { profDir, profName } = {}) {
  const home = mkdtempSync(join(ctx.dir, 'swb-home-'));
  mkdirSync(join(home, 'config', 'switchboard'), { recursive: true });
  writeFileSync(join(home, 'config', 'switchboard', 'config.json'), JSON.stringify({ scrollback: HISTORY_LINES }));
  const env = clientEnv({ NODE_ENV: 'production', SWB_HOME: home, XDG_CONFIG_HOME: join(home, 'config') });
  const nodeArgs = profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`, `--cpu-prof-name=${profName}.cpuprofile`] : [];
  const system = nodeSystem('swb', [...nodeArgs, ctx.swbBin, '--layout', 'grid', ...rows.map((r) => `${r.name}=${r.cmd}`)], env, home);
  return {
    ...system,
    /** Enter attaches the focused row (the first one). */
    async attachFirst() {
      system.client.write('\r');
    },
  };
}

/** A system that is one node process (swb, the floor) run in a client pty: its CPU and memory are that process's. */
function nodeSystem(name, args, env, cwd) {
  const client = new PtyClient({ file: process.execPath, args, env, cwd, cols: COLS, rows: ROWS });
  return {
    system: name,
    client,
    cpuPids: [client.pid],
    memPid: client.pid,
    async stop() {
      await client.stop('SIGTERM', 5000);
      client.dispose();
    },
  };
}

/** Where tmux puts the socket of `-L name` (it leaves the file behind after kill-server). */
export function tmuxSocketPath(name) {
  return join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${process.getuid()}`, name);
}

/** Ends the tmux server on socket `name` and removes its socket file. */
export function killTmuxServer(name) {
  $.sync({ quiet: true, nothrow: true })`tmux -L ${name} kill-server`;
  rmSync(tmuxSocketPath(name), { force: true });
}

let tmuxSessions = 0;
const liveSockets = new Set();

/** tmux arguments that set the history before any pane exists (tmux applies it to new panes only). */
export const TMUX_HISTORY_ARGS = ['start-server', ';', 'set-option', '-g', 'history-limit', String(TMUX_HISTORY_LINES), ';'];

/** A fresh tmux server (no config but the history) with the rows as tiled panes, and a client attached through a pty. */
export async function startTmux(ctx, rows) {
  const sock = `swb-bench-${process.pid}-${++tmuxSessions}`;
  const env = clientEnv({});
  const tmux = (args) => $({ env, quiet: true })`tmux -L ${sock} -f /dev/null ${args}`;
  liveSockets.add(sock);
  await tmux([...TMUX_HISTORY_ARGS, 'new-session', '-d', '-s', 'bench', '-x', String(COLS), '-y', String(ROWS), rows[0].cmd]);
  for (const r of rows.slice(1)) {
    await tmux(['split-window', '-t', 'bench', r.cmd]);
    await tmux(['select-layout', '-t', 'bench', 'tiled']);
  }
  await tmux(['select-layout', '-t', 'bench', 'tiled']);
  await tmux(['select-pane', '-t', 'bench:0.0']);
  const serverPid = Number((await tmux(['display-message', '-p', '-t', 'bench', '#{pid}'])).stdout.trim());
  const client = new PtyClient({ file: 'tmux', args: ['-L', sock, 'attach-session', '-t', 'bench'], env, cwd: ctx.dir, cols: COLS, rows: ROWS });
  return {
    system: 'tmux',
    client,
    serverPid,
    /** The server does the emulation and drawing; its client relays it to the terminal. */
    cpuPids: [serverPid, client.pid],
    memPid: serverPid,
    tmux,
    /** Zooms the first pane so it fills the window, as an attached swb row fills the screen. */
    async attachFirst() {
      await tmux(['resize-pane', '-Z', '-t', 'bench:0.0']);
    },
    async stop() {
      await tmux(['kill-server']).catch(() => undefined);
      rmSync(tmuxSocketPath(sock), { force: true });
      liveSockets.delete(sock);
      await client.stop('SIGTERM', 2000);
      client.dispose();
    },
  };
}

/** Last-resort cleanup (on errors and signals): every tmux server this run started. */
export function killAllTmux() {
  for (const sock of liveSockets) {
    try {
      killTmuxServer(sock);
    } catch {
      // gone
    }
  }
  liveSockets.clear();
}

export function listProfiles(dir) {
  try {
    return readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  } catch {
    return [];
  }
}

/**
 * The floor (emulator-floor.mjs): node-pty + @xterm/headless alone, each row at the size swb's
 * grid gives it. Not a multiplexer: it only tells how much of swb's cost is the stack beneath it.
 */
export async function startFloor(ctx, rows) {
  const { computeLayout } = await import(new URL('../../../dist/src/app/layout.js', import.meta.url).href);
  const names = rows.map((r) => r.name);
  // CHROME_HEIGHT in src/app/run-dashboard.ts: the notification strip and the key hints.
  const layout = computeLayout({ cols: COLS, rows: ROWS, names, focused: names[0], mode: 'grid', zoomed: false, chromeHeight: 2 });
  const size = (name) => {
    const v = layout.rows.find((p) => p.name === name).viewport;
    return `${v.width}x${v.height}`;
  };
  const script = new URL('./emulator-floor.mjs', import.meta.url).pathname;
  const args = [script, ...rows.map((r) => `${r.name}@${size(r.name)}=${r.cmd}`)];
  return nodeSystem('floor', args, clientEnv({ NODE_ENV: 'production', SWB_BENCH_HISTORY: String(HISTORY_LINES) }), ctx.dir);
}
