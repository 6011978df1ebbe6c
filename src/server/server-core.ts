// Everything of the workspace server that no client needs to be there for: the hub and its store,
// the rows (node-pty + @xterm/headless), the agent supervisor (state detection and wake, which must
// run while nobody watches) and the fleet that shares the rows among clients. Started in dependency
// order, each part registered with one owner, torn down in reverse.
import { join } from 'node:path';
import { openAuditLog } from '../agents/audit-log.js';
import { Hub } from '../hub/hub.js';
import type { MailCore } from '../hub/mail-core.js';
import type { SwbEvent } from '../hub/event-stream.js';
import type { UsageStore } from '../usage/usage-store.js';
import { operatorPort, type OperatorPort } from '../hub/operator-port.js';
import type { WorkspaceLock } from '../hub/workspace-lock.js';
import { SwbError } from '../protocol/error-codes.js';
import type { HubLimits } from '../protocol/limits.js';
import { RowManager } from '../rows/row-manager.js';
import { AgentAuditTrail } from '../supervisor/agent-audit-trail.js';
import { AgentSupervisor } from '../supervisor/agent-supervisor.js';
import { RowFleet, type FleetHooks } from '../supervisor/row-fleet.js';
import { PasteBuffer } from './paste-buffer.js';
import { sleep, systemClock, type Clock } from '../util/clock.js';
import { DisposableStore, toDisposable } from '../util/lifecycle.js';
import { DisposableMap } from '../util/disposable-map.js';
import { RotatingLog } from '../util/rotating-log.js';
import { WorktreeBoard } from '../worktree/worktree-board.js';
import { withNativeTools } from './native-tools.js';
import { configEnvForRows } from './config-for-rows.js';
import { writeSwbLauncher } from '../util/swb-launcher.js';
import { nativeHookClientPath } from '../util/native-addon.js';
import type { LaunchPlan } from '../app/launch-plan.js';
import { Notifier } from '../notify/notifier.js';
import { resolveNotifyPolicy } from '../notify/notify-policy.js';
import { followNotifySources } from './notify-sources.js';
import { NotifyTerminals } from './notify-terminals.js';
import { NotifierMutes } from './row-mutes.js';

/** Longer than a row's kill grace (SIGHUP, then SIGKILL): how long stopping waits for rows to end. */
const ROW_END_WAIT_MS = 5_000;
/** How often stopping looks whether the rows' process groups are gone (no event says so). */
const ROW_END_POLL_MS = 20;

export interface ServerCore {
  /** The one way to the mail core: clients and the server's own parts reach the hub only through it. */
  port: OperatorPort;
  /** The hub's limits as it runs (answers are sized to them). */
  limits: HubLimits;
  /** The workspace's runtime directory (copies, the audit log, rows' files). */
  runDir: string;
  rows: RowManager;
  agents: AgentSupervisor;
  fleet: RowFleet;
  /** The git state of worktree rows, for their headers. */
  worktrees: WorktreeBoard;
  /** The paste buffer every client shares (y in a history view, p on a dashboard). */
  pasteBuffer: PasteBuffer;
  /**
   * Notifications that reach the operator (the config's `notify`): the notifier, the attached
   * clients' terminals it writes to (a client adds its own as it opens) and the per-row mutes.
   */
  notifications: { notifier: Notifier; terminals: NotifyTerminals; mutes: NotifierMutes };
  auditLogPath: string;
  /** To `swb events` subscribers (usage changes, src/server/row-usage.ts). */
  publish(event: SwbEvent): void;
  /** Usage tracking's ledger in mail.db (issue #38). */
  usageLedger: UsageStore;
  /**
   * Runs `work` (synchronous: rows added one after another) with the store writes of every launch
   * in it (each row registers its handle and records its spec) sharing one commit, one fsync.
   */
  launchTogether<T>(work: () => T): T;
  /** Ends every row, then the supervisor, then the hub and its store. */
  stop(): Promise<void>;
}

export interface ServerCoreOptions {
  /** The server's log (server.log): the notifier's failures go there. Default: the hub's log. */
  log?: (line: string) => void;
  clock?: Clock;
}

/**
 * Starts the core under the workspace's lock (take-workspace-lock.ts), which goes to the embedded
 * hub: it is let go when the core stops, or here when the core fails to start.
 */
export async function startServerCore(plan: LaunchPlan, lock: WorkspaceLock, hooks: (mail: MailCore) => FleetHooks = () => ({}), opts: ServerCoreOptions = {}): Promise<ServerCore> {
  const { paths } = plan;
  const clock = opts.clock ?? systemClock;
  const hubLog = new RotatingLog(join(paths.runDir, 'hub.log'));
  const hub = await Hub.start({
    paths,
    lock,
    limits: plan.limits ?? {},
    embedded: true,
    log: (line) => hubLog.append(`${new Date().toISOString()} ${line}`),
    clock,
    ...(plan.federation ? { federation: plan.federation } : {}),
  });
  const owner = new DisposableStore();
  try {
    return assembleCore(plan, hub, owner, hooks, opts, clock);
  } catch (err) {
    // A server whose core failed exits: what was made, and the hub (the lock with it), must not keep it alive.
    owner.dispose();
    await hub.stop();
    throw err;
  }
}

/** What runs on the hub: the rows, the agents, the fleet, the notifier; each registered with `owner`, disposed in reverse. */
function assembleCore(plan: LaunchPlan, hub: Hub, owner: DisposableStore, hooks: (mail: MailCore) => FleetHooks, opts: ServerCoreOptions, clock: Clock): ServerCore {
  const { paths } = plan;
  // Everything above the seam reaches the mail core through this one port.
  const { core } = hub;
  const port = operatorPort(core);
  const binDir = writeSwbLauncher(join(paths.runDir, 'bin'));
  const rowsConfig = configEnvForRows(plan, core.log);
  const rows = owner.add(
    new RowManager({
      socketPath: paths.socketPath,
      mintToken: (name) => {
        const r = port.registerRow(name);
        if (!r.ok) throw new SwbError(r.error.code, r.error.message);
        return r.token;
      },
      binDir,
      // A hub a row's CLI starts (after this server crashed) reads the same config, with the same trust (config-for-rows.ts).
      baseEnv: { ...plan.env, ...rowsConfig },
      ...(plan.scrollback !== undefined ? { scrollback: plan.scrollback } : {}),
    }),
  );
  // Every byte swb types into a row is logged (0600) before it is written, and kept for the audit view.
  const auditLogPath = join(paths.runDir, 'audit.log');
  const agents = owner.add(new AgentSupervisor({ profiles: plan.profiles, mail: port, audit: new AgentAuditTrail(openAuditLog(auditLogPath)) }));
  port.setExplainProvider((row, verbose) => agents.explain(row, verbose));
  owner.add(toDisposable(() => port.setExplainProvider(null)));
  const wakeFor = new Map(plan.rows.flatMap((r) => (r.wake ? [[r.spec.name, r.wake] as const] : [])));
  // Whether the agents' hooks run the native client is decided once, here, for every launch.
  const native = { profiles: plan.profiles, dir: join(paths.runDir, 'rows'), swb: join(binDir, 'swb'), hookClient: nativeHookClientPath() };
  const fleetHooks: FleetHooks = { ...hooks(core.mail), everyLaunch: (spec) => withNativeTools(spec, native) };
  const fleet = owner.add(new RowFleet({ rows, port, agents, configuredWakePolicy: (spec) => wakeFor.get(spec.name), hooks: fleetHooks }));
  const worktrees = owner.add(new WorktreeBoard(core.log));
  owner.add(fleet.onAdded((row) => worktrees.follow(row)));
  // What `swb events` says about rows: added, exited, closed; agent states with their rule; wakes.
  const perRow = owner.add(new DisposableMap<string, DisposableStore>());
  owner.add(
    fleet.onAdded((row) => {
      core.events.publish({ kind: 'row', at: Date.now(), row: row.name, event: 'added', profile: row.spec.profile ?? null, pid: row.pid, origin: fleet.originOf(row.name).kind });
      const d = perRow.set(row.name, new DisposableStore());
      d.add(row.onExit((e) => core.events.publish({ kind: 'row', at: Date.now(), row: row.name, event: 'exited', exitCode: e.exitCode, signal: e.signal ?? null })));
      d.add(row.onRestart(() => core.events.publish({ kind: 'row', at: Date.now(), row: row.name, event: 'restarted', pid: row.pid })));
    }),
  );
  owner.add(
    fleet.onRemoved(({ row }) => {
      perRow.delete(row.name);
      core.events.publish({ kind: 'row', at: Date.now(), row: row.name, event: 'closed' });
    }),
  );
  // Each row's agent as it comes (its listeners go with it).
  owner.add(agents.onAgent((agent) => {
    agent.onStateChange((e) => core.events.publish({ kind: 'state', at: Date.now(), row: e.row, state: e.state, rule: e.rule ?? null, reason: e.reason, source: e.source, ...(e.signalAt !== undefined ? { signalAt: e.signalAt } : {}) }));
    agent.onWakeResult((e) => core.events.publish({ kind: 'wake', at: Date.now(), row: e.row, ok: e.ok, messageIds: e.messageIds ?? [], reason: e.reason ?? '' }));
  }));
  owner.add(fleet.onRemoved(({ row }) => worktrees.forget(row.name)));
  // One notifier for the server; each event taken once at its source (notify-sources.ts). Disposed
  // before the rows end: a notify command still running is killed with the server.
  const policy = resolveNotifyPolicy(plan.notify, plan.notifications);
  const terminals = new NotifyTerminals(policy.terminal);
  const notifier = owner.add(new Notifier({ policy, clock, log: opts.log ?? core.log, writeTerminal: (notice) => terminals.write(notice) }));
  const mutes = owner.add(new NotifierMutes(notifier, core.mail.rowRecords));
  owner.add(followNotifySources((event) => notifier.notify(event), { agents, fleet, port, clock }));
  const pasteBuffer = owner.add(new PasteBuffer());
  let stopped: Promise<void> | null = null;
  return {
    port,
    limits: core.limits,
    runDir: paths.runDir,
    rows,
    agents,
    fleet,
    worktrees,
    pasteBuffer,
    notifications: { notifier, terminals, mutes },
    auditLogPath,
    publish: (event) => core.events.publish(event),
    usageLedger: core.mail.usage,
    launchTogether: (work) => hub.gate.batch(work),
    stop() {
      stopped ??= (async () => {
        const all = rows.list();
        owner.dispose();
        // Rows got SIGHUP; what ignores it gets SIGKILL after the grace period. Wait for both, so
        // nothing the server started outlives it.
        const deadline = clock.now() + ROW_END_WAIT_MS;
        while (all.some((r) => r.processesAlive()) && clock.now() < deadline) await sleep(ROW_END_POLL_MS, clock);
        await hub.stop();
      })();
      return stopped;
    },
  };
}
