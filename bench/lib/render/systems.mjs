// The two multiplexers under test, each started with the same rows and a client attached through
// a pty of the same size. A session reports which processes are the multiplexer's own (whose CPU
// and memory count) and how to end it.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execFileSync } from 'node:child_process';
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
 * How an operator's `swb` runs: the checkout's bin/swb (the shell script npm links, which keeps
 * NODE_EXTRA_CA_CERTS from the client) with this node, or, in a checkout that has none, node on
 * the compiled entry (`ctx.swbBin`, dist/bin/swb.js).
 */
export function swbCommand(ctx, args) {
  const script = join(dirname(ctx.swbBin), '..', '..', 'bin', 'swb');
  return existsSync(script) ? { file: '/bin/sh', args: [script, ...args] } : { file: process.execPath, args: [ctx.swbBin, ...args] };
}

/**
 * swb with `rows` ([{ name, cmd }]) in the grid layout: the thin client in the pty and the
 * workspace server it starts, whose CPU and memory count together (as tmux's client and server
 * do). `profDir` set: the server runs under node --cpu-prof and writes `<profName>.cpuprofile`
 * there when it stops. `onClient(client)` is called as soon as the client pty exists, before the
 * server's pid is known, so a caller can watch the client's output from its first byte.
 * `extraEnv`: more environment for both (SWB_START_TRACE, say).
 */
export async function startSwb(ctx, rows, { profDir, profName, onClient, extraEnv = {} } = {}) {
  const home = mkdtempSync(join(ctx.dir, 'swb-home-'));
  mkdirSync(join(home, 'config', 'switchboard'), { recursive: true });
  writeFileSync(join(home, 'config', 'switchboard', 'config.json'), JSON.stringify({ scrollback: HISTORY_LINES }));
  const nodeArgs = process.env.SWB_BENCH_SERVER_ARGS ? process.env.SWB_BENCH_SERVER_ARGS : profDir ? `--cpu-prof ${process.env.SWB_BENCH_PROF_INTERVAL ? `--cpu-prof-interval=${process.env.SWB_BENCH_PROF_INTERVAL}` : ""} --cpu-prof-dir=${profDir} --cpu-prof-name=${profName}.cpuprofile` : '';
  // A clean HOME too: a `bash -c` whose stdin is a socket reads ~/.bashrc, and this machine's (a pyenv
  // hook waiting on a stale lock) held each kill-server for a minute.
  const env = clientEnv({ NODE_ENV: 'production', HOME: home, SWB_HOME: home, XDG_CONFIG_HOME: join(home, 'config'), SWB_NODE: process.execPath, ...(nodeArgs ? { SWB_SERVER_NODE_ARGS: nodeArgs } : {}), ...extraEnv });
  const client = new PtyClient({ ...swbCommand(ctx, ['--layout', 'grid', ...rows.map((r) => `${r.name}=${r.cmd}`)]), env, cwd: home, cols: COLS, rows: ROWS });
  onClient?.(client);
  let serverPid;
  try {
    serverPid = await waitForServerPid(home, 20000);
  } catch (err) {
    await client.stop('SIGKILL', 1000);
    client.dispose();
    throw err;
  }
  const system = {
    system: 'swb',
    client,
    serverPid,
    home,
    env,
    cpuPids: [serverPid, client.pid],
    memPid: serverPid,
    /** Enter attaches the focused row (the first one). */
    async attachFirst() {
      system.client.write('\r');
    },
    /** A new client (what `swb attach` in another terminal would be); the caller ends it (`d` detaches). */
    reattach() {
      const next = new PtyClient({ ...swbCommand(ctx, ['attach']), env, cwd: home, cols: COLS, rows: ROWS });
      return next;
    },
    /** Last resort (signals, errors): the same, synchronously. */
    killNow() {
      try {
        const kill = swbCommand(ctx, ['kill-server', '--force']);
        execFileSync(kill.file, kill.args, { env, cwd: home, stdio: 'ignore', timeout: 5000 });
      } catch {
        // no server, or it did not answer: killed below
      }
      for (const pid of [serverPid, client.pid]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    },
    async stop() {
      // The server ends its rows and tells the client, which exits.
      const kill = swbCommand(ctx, ['kill-server', '--force']);
      $.sync({ env, cwd: home, quiet: true, nothrow: true })`${kill.file} ${kill.args}`;
      await waitUntilGone(serverPid, 10000);
      await client.stop('SIGTERM', 5000);
      client.dispose();
    },
  };
  return system;
}

/**
 * How the server reaches the client's terminal, from its log: null when it draws on it directly
 * (server/client-tty.ts), else why the client relays every frame (a checkout without the native
 * addons, say: then the thin client wakes for each frame, as no installed swb does).
 */
export function swbClientRelay(home) {
  for (const ws of safeReaddir(join(home, 'run'))) {
    try {
      const m = / client relays its terminal: (.*)$/m.exec(readFileSync(join(home, 'run', ws, 'server.log'), 'utf8'));
      if (m) return m[1];
    } catch {
      // no log
    }
  }
  return null;
}

/** The pid the workspace server logs once it serves (SWB_HOME/run/<workspace>/server.log). */
async function waitForServerPid(home, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const ws of safeReaddir(join(home, 'run'))) {
      try {
        const m = / server (\d+) \(swb /.exec(readFileSync(join(home, 'run', ws, 'server.log'), 'utf8'));
        if (m) return Number(m[1]);
      } catch {
        // not yet
      }
    }
    if (Date.now() > deadline) throw new Error(`no swb server started under ${home} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function safeReaddir(dir) {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Resolves once `pid` has exited (SIGKILLed after `timeoutMs`). */
export async function waitUntilGone(pid, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    if (Date.now() > deadline) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
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
  // stdin not a pipe: bash reads ~/.bashrc when its stdin is a socket (node's pipes are), and a
  // `pyenv init` there waited up to a minute for pyenv's rehash lock at every tmux command.
  const tmux = (args) => $({ env, quiet: true, stdio: ['ignore', 'pipe', 'pipe'] })`tmux -L ${sock} -f /dev/null ${args}`;
  liveSockets.add(sock);
  await tmux([...TMUX_HISTORY_ARGS, 'new-session', '-d', '-s', 'bench', '-x', String(COLS), '-y', String(ROWS), rows[0].cmd]);
  for (const r of rows.slice(1)) {
    await tmux(['split-window', '-t', 'bench', r.cmd]);
    await tmux(['select-layout', '-t', 'bench', 'tiled']);
  }
  await tmux(['select-layout', '-t', 'bench', 'tiled']);
  await tmux(['select-pane', '-t', 'bench:0.0']);
  const serverPid = Number((await tmux(['display-message', '-p', '-t', 'bench', '#{pid}'])).stdout.trim());
  const attach = () => new PtyClient({ file: 'tmux', args: ['-L', sock, 'attach-session', '-t', 'bench'], env, cwd: ctx.dir, cols: COLS, rows: ROWS });
  const client = attach();
  return {
    system: 'tmux',
    client,
    sock,
    serverPid,
    /** The server does the emulation and drawing; its client relays it to the terminal. */
    cpuPids: [serverPid, client.pid],
    memPid: serverPid,
    tmux,
    /** Zooms the first pane so it fills the window, as an attached swb row fills the screen. */
    async attachFirst() {
      await tmux(['resize-pane', '-Z', '-t', 'bench:0.0']);
    },
    /** Another client attached to the session (a second terminal); the caller ends it. */
    reattach: attach,
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
export async function startFloor(ctx, rows, { keys } = {}) {
  const { computeLayout } = await import(new URL('../../../dist/src/app/layout.js', import.meta.url).href);
  const names = rows.map((r) => r.name);
  // CHROME_HEIGHT in src/server/client-session.ts: the notification strip and the key hints.
  const layout = computeLayout({ cols: COLS, rows: ROWS, names, focused: names[0], mode: 'grid', zoomed: false, chromeHeight: 2 });
  const size = (name) => {
    const v = layout.rows.find((p) => p.name === name).viewport;
    return `${v.width}x${v.height}`;
  };
  const script = new URL('./emulator-floor.mjs', import.meta.url).pathname;
  const args = [script, ...(keys ? [`--keys=${keys}`] : []), ...rows.map((r) => `${r.name}@${size(r.name)}=${r.cmd}`)];
  const floor = nodeSystem('floor', args, clientEnv({ NODE_ENV: 'production', SWB_BENCH_HISTORY: String(HISTORY_LINES) }), ctx.dir);
  // Its keys row takes the keyboard from the start: there is no attach to make, nor a repaint after it.
  if (keys) Object.assign(floor, { attachFirst: async () => undefined, repaintsOnAttach: false });
  return floor;
}
