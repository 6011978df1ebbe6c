// `swb server`: the workspace's long-lived process (DESIGN §1). It owns the hub, the store, every
// row, state detection and wake — and renders each attached client's dashboard into that client's
// socket. Started detached from any terminal by the first `swb` (server-launch.ts); ends on `q`
// in a dashboard, `swb kill-server`, or SIGTERM. Rows never depend on a client being there.
import { mkdirSync } from 'node:fs';
import type { Socket } from 'node:net';
import { basename, join } from 'node:path';
import { parseFlags, UsageError } from '../util/parse-flags.js';
import { packageVersion } from '../util/package-root.js';
import { operatorRefusal, peerOf } from '../hub/peer-guard.js';
import { SwbError } from '../protocol/error-codes.js';
import { myUid } from '../util/private-path.js';
import { RotatingLog } from '../util/rotating-log.js';
import type { WorkspaceLock } from '../hub/workspace-lock.js';
import { planLaunch, type LaunchPlan, type PlannedRow } from '../app/launch-plan.js';
import { clientOnFd, type LaunchingClient } from './server-gate.js';
import { stdioToFile } from '../util/stdio-to.js';
import type { HelloFrame } from '../protocol/client-wire.js';
import { ClientConnection } from './client-connection.js';
import { openClientTty } from './client-tty.js';
import { openClientSession, type ClientSession } from './client-session.js';
import { serverDesk } from './server-desk.js';
import type { ClientDesk } from '../app/client-desk.js';
import { describeSkipped } from '../worktree/skipped-files.js';
import { startWorktreeRow } from './worktree-rows.js';
import { startServerCore, type ServerCore } from './server-core.js';
import { takeWorkspaceLock } from './take-workspace-lock.js';
import { ClientListener } from './client-listener.js';
import { systemClock } from '../util/clock.js';
import { RowRecords } from './row-records.js';
import { serverControl } from './server-control.js';
import { type RowUsageBoard, startRowUsage } from './row-usage.js';
import { WebServing } from './web-serving.js';
import { webPagesFor, type WebPages } from './web-pages.js';
import { startMark } from '../util/start-trace.js';
import { toDisposable } from '../util/lifecycle.js';

export const SERVER_FLAGS = [
  { name: 'config', type: 'string' as const, value: 'FILE', description: 'config file' },
  { name: 'workspace', type: 'string' as const, value: 'NAME', description: 'workspace name' },
  { name: 'fresh', type: 'boolean' as const, description: 'start without relaunching the recorded rows' },
  { name: 'ready-fd', type: 'string' as const, value: 'FD', description: 'write one line here once listening (internal)' },
  { name: 'held', type: 'boolean' as const, description: 'load, then wait on the ready fd for the launching client\'s go and flags (internal)' },
  { name: 'early-for', type: 'string' as const, value: 'PID', description: 'started by bin/swb beside client PID: meet it, then as --held (internal)' },
];

/**
 * `swb server`. `early` is the client a server bin/swb started meets before it loads this code
 * (server-entry.ts, early-gate.ts); any other launching client waits on --ready-fd.
 */
export async function runServer(argv: string[], env: NodeJS.ProcessEnv = process.env, early?: LaunchingClient): Promise<number> {
  let flags: Record<string, unknown>;
  try {
    ({ flags } = parseFlags(argv, SERVER_FLAGS));
  } catch (err) {
    if (err instanceof UsageError) return fail(early ?? null, 2, `swb server: ${err.message}`);
    throw err;
  }
  const client = early ?? (flags['ready-fd'] !== undefined ? clientOnFd(Number(flags['ready-fd'])) : null);
  if (flags.held === true) {
    if (client === null) return fail(null, 2, 'swb server: --held needs --ready-fd (the launching client says go there)');
    const gate = await client.word();
    if ('bad' in gate) return fail(client, 2, `swb server: ${gate.bad}`);
    if (!gate.go) return 0; // the client cancelled (a usage error, a "no"), or is gone: nothing was touched
    try {
      ({ flags } = parseFlags([...argv, ...gate.flags], SERVER_FLAGS));
      if (gate.cwd !== undefined) process.chdir(gate.cwd);
    } catch (err) {
      if (err instanceof UsageError) return fail(client, 2, `swb server: ${err.message}`);
      if ((err as NodeJS.ErrnoException).syscall === 'chdir') return fail(client, 1, `swb: cannot run in ${gate.cwd}: ${(err as Error).message}`);
      throw err;
    }
  }
  const planArgs = [...(flags.config ? ['--config', flags.config as string] : []), ...(flags.workspace ? ['--workspace', flags.workspace as string] : [])];
  startMark('server running');
  // The server's own plan draws nothing: only the chosen theme (each dashboard takes its client's plan's).
  const planned = planLaunch(planArgs, env, process.cwd(), { themes: 'chosen' });
  startMark('launch planned');
  if ('help' in planned) return 0;
  if ('exit' in planned) return fail(client, planned.exit, planned.message);
  const plan = planned.plan;
  // A server bin/swb started has its output on /dev/null until now (its workspace was not known):
  // from here on it goes where a server its client starts has it, the workspace's server.out.
  if (early) logOutputTo(plan.paths.runDir);

  const logFile = new RotatingLog(join(plan.paths.runDir, 'server.log'));
  const log = (line: string) => logFile.append(`${new Date().toISOString()} ${line}`);
  // The lock first: the client socket is listened on under it. Whoever else owns the workspace is
  // told on the ready line, as is every failure up to the ready line.
  let lock: WorkspaceLock;
  try {
    lock = await takeWorkspaceLock(plan.paths, systemClock);
  } catch (err) {
    if (!(err instanceof SwbError)) throw err;
    const hint = err.code === 'HUB_RUNNING' ? ' (another swb server owns this workspace)' : '';
    return fail(client, 1, `swb: ${err.code}: ${err.message}${hint}`);
  }
  startMark('workspace locked');
  let clients: ClientListener;
  try {
    clients = await ClientListener.listen(plan.paths);
  } catch (err) {
    lock.dispose();
    return fail(client, 1, `swb: could not listen for clients: ${(err as Error).message}`);
  }
  // Ready before the core is up: the launching client connects and sends its HELLO while the core
  // starts (it waits in the socket until the server serves). That overlap is the point: the core
  // takes 20-40 ms after the lock, the client's way from "ready" to its HELLO 7-14 ms, which the
  // server used to spend idle (issue #33; bench/render.mjs --only=first's trace).
  startMark('listening');
  client?.say(JSON.stringify({ ok: true, pid: process.pid }));
  let records: RowRecords | null = null;
  let core: ServerCore;
  try {
    core = await startServerCore(
      plan,
      lock,
      (mail) => {
        records = new RowRecords(mail, plan.profiles, log);
        return records.hooks();
      },
      { log },
    );
  } catch (err) {
    // Said ready already: the clients that came hear it in their BYE (they print it and exit 1), and the server ends.
    const [code, message] = err instanceof SwbError ? [err.code, err.message] : ['INTERNAL', `the swb server could not start: ${(err as Error).message}`];
    process.stderr.write(`swb: ${code}: ${message}\n`);
    log(`server core failed: ${(err as Error).stack ?? String(err)}`);
    await clients.refuse({ reason: 'refused', code, message }, { clientDue: client !== null });
    return 1;
  }
  startMark('server core started');
  const server = new WorkspaceServer(plan, core, records!, clients, log);
  // The recorded rows first: a client's HELLO starts the config's rows only on a server with none.
  server.restore(flags.fresh === true);
  server.serve();
  // Launched by a client (it waits on the ready fd): that client is expected. A server the operator
  // started by hand (`swb server`, e.g. for the browser) waits for clients and rows as long as it runs.
  if (client !== null) server.stopIfNobodyComes();
  await server.startWeb();
  startMark('serving');
  log(`server ${process.pid} (swb ${packageVersion()}) serving ${plan.paths.workspace}`);
  return server.done;
}

function fail(client: LaunchingClient | null, status: number, message: string): number {
  process.stderr.write(`${message}\n`);
  client?.say(JSON.stringify({ ok: false, message }));
  return status;
}

/** This process's stdout and stderr appended to `runDir`'s server.out (stdio-to.ts); left as they are where that cannot be done. */
function logOutputTo(runDir: string): void {
  try {
    mkdirSync(runDir, { recursive: true, mode: 0o700 });
    stdioToFile(join(runDir, 'server.out'));
  } catch {
    // its output stays on /dev/null; the server.log has the rest
  }
}

/** How long a server a client launched waits for a client before an empty server stops (the HELLO timeout is 10 s). */
const NOBODY_CAME_MS = 30_000;

class WorkspaceServer {
  private readonly clients = new Set<ClientConnection>();
  private stopping = false;
  private resolveDone!: (status: number) => void;
  readonly done = new Promise<number>((r) => (this.resolveDone = r));
  /** What every client asks of the server beyond mail: one desk, shared by the dashboards. */
  private readonly desk: ClientDesk;
  /** Each agent row's usage, cost and budget (issue #38). */
  private readonly usage: RowUsageBoard;
  /** The browser client's listener (issue #32): `swb web`, or the config's `web` section. */
  private readonly web: WebServing;
  /** What the listener hands each page: the page session and the page's tools. */
  private readonly webPages: WebPages;

  constructor(
    private readonly plan: LaunchPlan,
    private readonly core: ServerCore,
    private readonly records: RowRecords,
    private readonly listener: ClientListener,
    private readonly log: (line: string) => void,
  ) {
    // No terminal to hang up: the server outlives the one that started it.
    process.on('SIGHUP', () => this.log('SIGHUP ignored'));
    process.on('SIGTERM', () => void this.stop('SIGTERM'));
    process.on('SIGINT', () => void this.stop('SIGINT'));
    // One bad moment in one client's dashboard must not end every agent's row.
    process.on('uncaughtException', (err) => this.log(`uncaught: ${err.stack ?? String(err)}`));
    process.on('unhandledRejection', (err) => this.log(`unhandled rejection: ${(err as Error)?.stack ?? String(err)}`));
    this.usage = startRowUsage(core, plan, records, log);
    this.desk = serverDesk(core, { profiles: plan.profiles, env: plan.env, ...(plan.worktrees ? { worktrees: plan.worktrees } : {}), runDir: plan.paths.runDir, usage: this.usage });
    const workspace = basename(plan.paths.workspace) || plan.paths.workspace;
    // A new row from the page runs where the workspace is (its directory), as `swb new` run there would.
    const defaultCwd = plan.paths.explicitWorkspace ? process.cwd() : plan.paths.workspace;
    this.webPages = webPagesFor(core, this.desk, { workspace, defaultCwd, log });
    this.web = new WebServing({
      paths: plan.paths,
      ...(plan.web ? { settings: plan.web } : {}),
      pages: this.webPages.pages,
      rowOfToken: (token) => core.port.rowOfToken(token),
      log,
    });
    core.port.setServerControl(
      serverControl({
        core,
        plan,
        stop: (why) => void this.stop(why),
        clients: () => this.attachedCount(),
        attachedRows: () => core.fleet.attachedRows(),
        worktreeChanged: (row) => core.worktrees.poke(row),
        usage: this.usage,
        web: (p) => this.web.web(p),
      }),
    );
    records.watch(() => core.fleet.list());
    // A row's agent that moved to another conversation (/clear, /resume) says so in its SessionStart hook.
    core.port.onHookReport(({ handle, report }) => report.event === 'session-start' && records.agentSessionStarted(handle, report));
    core.fleet.onRemoved(() => this.stopIfEmpty());
  }

  /** Takes the clients: those that came while the core started, then each as it comes. */
  serve(): void {
    this.listener.serve((socket) => this.accept(socket));
  }

  /** The browser listener, when the config asks for it from the start. */
  startWeb(): Promise<void> {
    return this.web.startFromConfig();
  }

  private attachedCount(): number {
    let n = 0;
    for (const c of this.clients) if (c.attached) n++;
    return n;
  }

  private accept(socket: Socket): void {
    if (this.stopping) {
      socket.destroy();
      return;
    }
    const connection = new ClientConnection({
      socket,
      version: packageVersion(),
      refusal: () => this.refusal(socket),
      openTty: (onKeys) => {
        const peer = peerOf(socket);
        return peer ? openClientTty(peer.pid, onKeys) : 'the kernel does not name the client process';
      },
      open: (hello, terminal, conn) => this.openDashboard(hello, terminal, conn),
      onClose: (c) => {
        this.clients.delete(c);
        // Only a client's leaving can leave the server with nobody: a connection that never said
        // HELLO (a probe of the socket while the launching client is still on its way) must not
        // stop a server whose rows that client is about to start.
        if (c.saidHello) this.stopIfEmpty();
      },
      log: this.log,
    });
    this.clients.add(connection);
  }

  /** Only our own uid, and never a process inside one of our rows (an agent must not drive the dashboard). */
  private refusal(socket: Socket): string | null {
    const peer = peerOf(socket);
    if (peer && peer.uid !== myUid()) return `uid ${peer.uid} may not attach to a server of uid ${myUid()}`;
    const inRow = operatorRefusal(peer, this.plan.paths.socketPath);
    return inRow ? `${inRow}: an agent's row may not attach to the operator's dashboard` : null;
  }

  private openDashboard(hello: HelloFrame, terminal: Parameters<typeof openClientSession>[0]['terminal'], conn: ClientConnection) {
    startMark('hello from a client');
    const planned = planLaunch(hello.args, this.plan.env, hello.cwd);
    startMark('client\'s launch planned');
    if ('help' in planned) return { code: 'USAGE', message: 'swb --help prints the help without a server' };
    if ('exit' in planned) {
      const m = /^swb: (?:([A-Z_]+): )?([\s\S]*)$/.exec(planned.message);
      return { code: m?.[1] ?? (planned.exit === 2 ? 'USAGE' : 'INTERNAL'), message: m?.[2] ?? planned.message };
    }
    const look = planned.plan;
    const fleet = this.core.fleet;
    // Rows named on the command line start in the client's directory; with none, an empty server
    // starts the config's rows (or the operator's shell).
    let rows: PlannedRow[] = [];
    if (look.rowsGiven) rows = look.rows.map((r) => ({ ...r, spec: { ...r.spec, cwd: r.spec.cwd ?? hello.cwd } }));
    else if (fleet.list().length === 0) rows = look.rows.map((r) => ({ ...r, spec: { ...r.spec, cwd: r.spec.cwd ?? hello.cwd } }));
    const notes: Array<{ kind: 'info' | 'error'; text: string; row: string | null }> = look.warnings.map((w) => ({ kind: 'error' as const, ...w }));
    // Worktree rows start once git has made their worktrees; the others at once, with the dashboard.
    const later = rows.filter((r) => r.worktree && !fleet.has(r.spec.name));
    rows = rows.filter((r) => !r.worktree);
    for (const r of later) {
      void startWorktreeRow(fleet, this.plan.worktrees, {
        spec: r.spec,
        ...(r.worktree?.branch !== undefined ? { branch: r.worktree.branch } : {}),
        ...(r.worktree?.base !== undefined ? { base: r.worktree.base } : {}),
        ...(r.wake ? { wake: r.wake } : {}),
        size: { cols: hello.cols, rows: Math.max(1, hello.rows - 3) },
      }).then((started) => {
        if ('error' in started) session?.note('error', `row ${r.spec.name} did not start: ${started.error.code}: ${started.error.message}`, null);
        else if (started.ok.skipped.length) session?.note('error', `@${r.spec.name}: ${describeSkipped(started.ok.skipped)}`, r.spec.name);
      });
    }
    if (hello.version !== packageVersion()) {
      notes.push({ kind: 'info', text: `this server runs swb ${packageVersion()}, the client is ${hello.version.slice(0, 32)}: swb kill-server and swb again to run the new one`, row: null });
    }
    const session: ClientSession | null = openClientSession({
      desk: this.desk,
      port: this.core.port,
      look: { ...look, keymap: this.plan.keymap, themes: look.themes },
      terminal,
      // Notifications reach this client's terminal in the sequence its terminal takes (HELLO's report,
      // and the terminal's own name when it answers the client's query later: TERMINAL).
      notifications: (write) => {
        const listener = this.core.notifications.terminals.add(hello.terminal ?? {}, write);
        const named = terminal.named?.((report) => listener.retarget(report));
        return toDisposable(() => {
          named?.dispose();
          listener.dispose();
        });
      },
      rows,
      notes,
      cwd: hello.cwd,
      onQuit: () => void this.stop('quit from a dashboard'),
      onLeave: () => {
        const n = fleet.list().length;
        conn.bye({ reason: 'detached', message: `detached; ${n} row${n === 1 ? '' : 's'} run${n === 1 ? 's' : ''} on (swb attach comes back)` });
      },
    });
    startMark('dashboard opened');
    return session;
  }

  /** Relaunches the rows the last server recorded, unless told to start fresh. */
  restore(fresh: boolean): void {
    const size = { cols: 80, rows: 24 };
    const rows = this.records.restorable(fresh);
    this.core.launchTogether(() => {
      for (const r of rows) {
        try {
          this.core.fleet.add(r.spec, size, { origin: r.origin, base: r.base, ...(r.wake ? { wake: r.wake } : {}) });
        } catch (err) {
          this.log(`row ${r.spec.name} could not be restored: ${(err as Error).message}`);
        }
      }
    });
  }

  /**
   * A server started for a client that never arrived (it died on its way, or was killed before its
   * HELLO) would wait forever with no rows: once the launch's time is up, it is checked as a
   * client's leaving would be (a client attached by then, or rows started, keep it).
   */
  stopIfNobodyComes(): void {
    setTimeout(() => this.stopIfEmpty(), NOBODY_CAME_MS).unref();
  }

  /**
   * A server with no rows and nobody attached has nothing to do. Checked again a turn later: the
   * request that closed the last row (`swb kill`, `swb rm`) is answered first, else the hub would
   * close its connection with the answer still unsent and a kill that worked would read as failed.
   */
  private stopIfEmpty(): void {
    const empty = () => this.core.fleet.list().length === 0 && this.attachedCount() === 0;
    if (!empty()) return;
    setImmediate(() => {
      if (empty()) void this.stop('no rows and no clients');
    });
  }

  async stop(why: string): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.log(`stopping: ${why}`);
    // From now on a new server asking this hub to step down hears "stopping" and waits for the lock.
    this.core.port.setServerControl('stopping');
    // Dashboards first (they watch the rows), then the rows and the hub; the clients hear BYE once
    // every row has ended, so a client that exits knows nothing it started is left.
    for (const c of this.clients) c.endDashboard();
    this.listener.close();
    this.web.dispose();
    this.webPages.dispose();
    this.records.serverStopping();
    // Its followers commit to mail.db: they stop before the store closes.
    this.usage.dispose();
    await this.core.stop();
    for (const c of [...this.clients]) c.bye({ reason: 'stopped', message: `the swb server stopped (${why})` });
    this.resolveDone(0);
  }
}
