// Every row of the workspace server, shared by all of its clients (below DESIGN §1's seam). A row's
// life is decided here once — started, watched by the agent supervisor, online for mail, closed,
// reopened, restarted with its profile's resume recipe — and each client's dashboard only mirrors it
// into its own view state. What the clients disagree on (who is attached, whose size a row takes) is
// settled here too: a row is attached while any client is attached to it; an attached row takes the
// size of the attached client that typed last, every other row the size the last typing client's
// dashboard gives it (as tmux's "latest" window-size), so two terminals do not fight.
// A launch that resumed an agent's conversation and failed at once (the agent finds no such session:
// Claude Code and Gemini CLI exit non-zero when asked to resume one that never had a turn) is started
// again fresh, as a new conversation, and every client is told why. A launch that never ran (its
// program not found or not executable: exit 127 or 126; its working directory gone) refused nothing:
// the row stays exited with the reason and keeps its conversation, which R resumes once it can run.
import type { OperatorPort } from '../hub/operator-port.js';
import type { Row, RowSpec } from '../rows/row.js';
import type { RowManager } from '../rows/row-manager.js';
import type { RowExit } from '../rows/row-process.js';
import { exitReason, programNotRun } from '../rows/exit-reason.js';
import { sanitize } from '../text/sanitize.js';
import { systemClock, type Clock } from '../util/clock.js';
import { Emitter, type Event } from '../util/event.js';
import { DisposableStore, toDisposable, type Disposable } from '../util/lifecycle.js';
import { DisposableMap } from '../util/disposable-map.js';
import type { WakePolicy } from '../agents/wake-controller.js';
import type { AgentSupervisor } from './agent-supervisor.js';

/** Why a row came up: started by someone now, or relaunched from the record after the server stopped. */
export type RowOrigin =
  | { kind: 'new' }
  | { kind: 'restored'; after: 'stop' | 'crash' | 'reboot'; resumed: boolean; note?: string; /** when the note's news happened (ms) */ noteAt?: number };

/** How a row's header and `swb ls` mark its origin: restored with its conversation resumed, or fresh. */
export function restoredMark(origin: RowOrigin): 'resumed' | 'fresh' | null {
  return origin.kind === 'restored' ? (origin.resumed ? 'resumed' : 'fresh') : null;
}

/** What a note says of the unread mail a fresh relaunch parked for the operator. */
export function parkedMailNote(count: number): string {
  return `${count} unread message${count === 1 ? ' from before waits' : 's from before wait'} for your review (V)`;
}

export interface ClosedRowRecord {
  spec: RowSpec;
  command: string;
  at: number;
}

export interface FleetHooks {
  /** The spec a row starts with the first time (a resume recipe may mint a session id into it). */
  prepareLaunch?: (spec: RowSpec) => RowSpec;
  /** The spec a restart (R) starts: the profile's resume recipe, when one is known. */
  prepareRestart?: (row: Row) => RowSpec | null;
  /** Every launch, first or not (restarts, restores): the agent's own swb tools (its profile's `native`). */
  everyLaunch?: (spec: RowSpec) => RowSpec;
  /**
   * A launch that resumed the row's conversation was refused at once: the spec that starts it fresh
   * (a new conversation; the hook parks the old one's unread mail and says how much), `keep` with
   * the reason the conversation must not be given up (it had turns), or null.
   */
  resumeFailed?: (row: Row) => { spec: RowSpec; parked: number } | { keep: string } | null;
  /** A row started, changed or ended: persist it (the server's restore record). */
  recorded?: (row: Row, wake: WakePolicy | undefined) => void;
  forgotten?: (name: string) => void;
}

export interface RowFleetOptions {
  rows: RowManager;
  port: OperatorPort;
  agents?: AgentSupervisor;
  /** The wake policy the config gives a row (`rows[].wake`), if any. */
  configuredWakePolicy?: (spec: RowSpec) => WakePolicy | undefined;
  hooks?: FleetHooks;
  /** Times a resumed launch's probation (default: the system clock). */
  clock?: Clock;
}

const MAX_CLOSED = 20;
/**
 * A resumed launch whose program exits unsuccessfully this soon did not resume (an agent that finds
 * no such session exits within a second or two; one that resumed and then failed later is left
 * as it is, exited, for the operator to see).
 */
export const RESUME_PROBATION_MS = 20_000;

/** Something every client should hear about a row (the fleet acted on its own). */
export interface FleetNotice {
  kind: 'info' | 'error';
  text: string;
  row: string;
}

export class RowFleet implements Disposable {
  private readonly lifetime = new DisposableStore();
  private readonly perRow = new DisposableMap<string, DisposableStore>();
  private readonly origins = new Map<string, RowOrigin>();
  /** Each row's spec as given, before a resume recipe added its session arguments (closing keeps this one). */
  private readonly bases = new Map<string, RowSpec>();
  private readonly closedRows: ClosedRowRecord[] = [];
  /** Rows whose running incarnation was launched to resume a conversation, with that incarnation. */
  private readonly resumedLaunch = new Map<string, number>();
  /** Why an exited row's program never ran (not found, not executable), for `swb ls` and the notes. */
  private readonly exitReasons = new Map<string, string>();
  /** The clients attached to each row. */
  private readonly attachedBy = new Map<string, Set<object>>();
  /** Of the clients attached to a row, the one whose keys came last: the row takes its size. */
  private readonly rowSizeOwner = new Map<string, object>();
  private sizeOwnerValue: object | null = null;
  private readonly addedEmitter = this.lifetime.add(new Emitter<Row>());
  private readonly removedEmitter = this.lifetime.add(new Emitter<{ row: Row; closed: ClosedRowRecord }>());
  private readonly reopenedEmitter = this.lifetime.add(new Emitter<string>());
  private readonly sizeOwnerEmitter = this.lifetime.add(new Emitter<object | null>());
  private readonly policyEmitter = this.lifetime.add(new Emitter<{ row: string; policy: WakePolicy }>());
  private readonly noticeEmitter = this.lifetime.add(new Emitter<FleetNotice>());
  private readonly originEmitter = this.lifetime.add(new Emitter<string>());

  /** A row started (or was reopened). */
  readonly onAdded: Event<Row> = this.addedEmitter.event;
  /** A row was closed; its spec is kept for reopening. */
  readonly onRemoved: Event<{ row: Row; closed: ClosedRowRecord }> = this.removedEmitter.event;
  /** A closed row came back (it leaves every client's "recently closed" list). */
  readonly onReopened: Event<string> = this.reopenedEmitter.event;
  /** Who decides the rows' sizes may have changed: each client re-applies the sizes it decides. */
  readonly onSizeOwner: Event<object | null> = this.sizeOwnerEmitter.event;
  /** A client changed a row's wake policy: every client's header shows it. */
  readonly onPolicy: Event<{ row: string; policy: WakePolicy }> = this.policyEmitter.event;
  /** The fleet did something to a row on its own (a failed resume started fresh): every client says so. */
  readonly onNotice: Event<FleetNotice> = this.noticeEmitter.event;
  /** A running row's origin changed (restarted, or its resume failed): every client's marker follows originOf. */
  readonly onOrigin: Event<string> = this.originEmitter.event;

  constructor(private readonly o: RowFleetOptions) {}

  get rows(): RowManager {
    return this.o.rows;
  }

  get agents(): AgentSupervisor | undefined {
    return this.o.agents;
  }

  list(): Row[] {
    return this.o.rows.list();
  }

  get(name: string): Row | undefined {
    return this.o.rows.get(name);
  }

  has(name: string): boolean {
    return this.o.rows.has(name);
  }

  originOf(name: string): RowOrigin {
    return this.origins.get(name) ?? { kind: 'new' };
  }

  /** The one place a running row's origin changes after it was added: told to every client once. */
  private setOrigin(name: string, origin: RowOrigin): void {
    this.origins.set(name, origin);
    this.originEmitter.fire(name);
  }

  /** Starts a row. Throws (a plain Error) on a bad or taken name, or a program that cannot start. */
  add(
    spec: RowSpec,
    size: { cols: number; rows: number },
    opts: { origin?: RowOrigin; wake?: WakePolicy; base?: RowSpec; firstLaunch?: (launch: RowSpec) => RowSpec } = {},
  ): Row {
    const prepared = opts.origin?.kind === 'restored' ? spec : (this.o.hooks?.prepareLaunch?.(spec) ?? spec);
    // Only this launch (a new worktree's setup command): restarts and restores run the spec itself.
    const native = this.o.hooks?.everyLaunch?.(prepared) ?? prepared;
    const launch = opts.firstLaunch ? opts.firstLaunch(native) : native;
    const row = this.o.rows.create(launch, size);
    this.bases.set(row.name, opts.base ?? spec);
    this.origins.set(row.name, opts.origin ?? { kind: 'new' });
    if (opts.origin?.kind === 'restored' && opts.origin.resumed) this.resumedLaunch.set(row.name, row.incarnation);
    const configured = opts.wake ?? this.o.configuredWakePolicy?.(spec);
    this.o.agents?.track(row, { ...(spec.profile !== undefined ? { profile: spec.profile } : {}), ...(configured ? { wake: configured } : {}) });
    this.follow(row);
    this.o.hooks?.recorded?.(row, this.policyOf(row.name) ?? configured);
    this.addedEmitter.fire(row);
    return row;
  }

  private follow(row: Row): void {
    const d = this.perRow.set(row.name, new DisposableStore());
    const { port } = this.o;
    // A running row is online for mail (@all reaches it) whether or not it holds a connection.
    port.rowRunning(row.name, row.state === 'running');
    d.add(toDisposable(() => port.rowRunning(row.name, false)));
    d.add(row.onExit(() => port.rowRunning(row.name, false)));
    d.add(row.onRestart(() => port.rowRunning(row.name, true)));
    d.add(row.onExit((exit) => {
      const reason = exitReason(exit, row.spec);
      if (reason) this.exitReasons.set(row.name, reason);
      this.checkResume(row, exit, reason);
    }));
    d.add(row.onRestart(() => this.exitReasons.delete(row.name)));
  }

  /** Why the row's program did not run (e.g. "command not found: claude"), while it is exited so. */
  exitReasonOf(name: string): string | null {
    return this.exitReasons.get(name) ?? null;
  }

  /**
   * A resumed launch that ended unsuccessfully within RESUME_PROBATION_MS did not resume: start the
   * row again fresh, after every other listener has heard of the exit (a restart inside the exit's
   * own event would be undone by the ones after it, which mark the row exited).
   */
  private checkResume(row: Row, exit: RowExit, notRunReason: string | null): void {
    const incarnation = this.resumedLaunch.get(row.name);
    this.resumedLaunch.delete(row.name);
    if (incarnation !== row.incarnation || exit.exitCode === 0 || exit.signal !== null) return;
    const ranMs = (this.o.clock ?? systemClock).now() - row.startedAt;
    if (ranMs > RESUME_PROBATION_MS) return;
    setImmediate(() => {
      // The server stopping, the row closed, or started again by someone meanwhile: theirs is the
      // newer decision.
      if (this.lifetime.disposed || this.o.rows.get(row.name) !== row || row.state !== 'exited' || row.incarnation !== incarnation) return;
      const origin = this.origins.get(row.name);
      const restored = origin?.kind === 'restored' ? origin : null;
      // The program never ran, so nobody refused the session: keep it for R.
      if (notRunReason !== null || programNotRun(exit)) {
        const reason = sanitize(notRunReason ?? `exit status ${exit.exitCode}`, { singleLine: true, maxChars: 200 });
        const back = reason.startsWith('working directory') ? 'its directory' : 'the program';
        this.keepConversation(row, restored, `@${row.name} could not resume its conversation: ${reason}. It keeps its conversation: R resumes it once ${back} is back`);
        return;
      }
      const why = `its agent exited with status ${exit.exitCode} after ${(ranMs / 1000).toFixed(1)} s`;
      const fresh = this.o.hooks?.resumeFailed?.(row) ?? null;
      if (!fresh) return;
      if ('keep' in fresh) {
        const because = sanitize(fresh.keep, { singleLine: true, maxChars: 200 });
        this.keepConversation(row, restored, `@${row.name} could not resume its conversation (${why}); ${because}, so it is kept: R tries again`);
        return;
      }
      const parked = fresh.parked > 0 ? `; ${parkedMailNote(fresh.parked)}` : '';
      // No longer resumed before the restart, whose listeners read it for the header's mark.
      if (restored) this.setOrigin(row.name, { ...restored, resumed: false });
      let notice: FleetNotice;
      try {
        row.restart(this.o.hooks?.everyLaunch?.(fresh.spec) ?? fresh.spec);
        this.o.hooks?.recorded?.(row, this.policyOf(row.name));
        notice = { kind: 'info', text: `@${row.name} could not resume its conversation (${why}): started a new one${parked}`, row: row.name };
      } catch (err) {
        const problem = sanitize(String((err as Error).message ?? err), { singleLine: true, maxChars: 200 });
        notice = { kind: 'error', text: `@${row.name} could not resume its conversation (${why}), and a new one did not start: ${problem}`, row: row.name };
      }
      // A restore happens before any client is there: its note is what a client shows when it comes.
      if (restored) this.origins.set(row.name, { ...restored, resumed: false, note: notice.text, noteAt: Date.now() }); // the mark is told already
      this.noticeEmitter.fire(notice);
    });
  }

  /** A failed resume that gives nothing up: the row stays exited, its session kept, and everyone hears why. */
  private keepConversation(row: Row, restored: Extract<RowOrigin, { kind: 'restored' }> | null, text: string): void {
    // Still marked as the resume it was (nothing fresh started); the note says why it is not running.
    if (restored) this.origins.set(row.name, { ...restored, note: text, noteAt: Date.now() });
    this.noticeEmitter.fire({ kind: 'error', text, row: row.name });
  }

  /** The wake policy the agent supervisor applies to a row (undefined: it has no agent profile). */
  policyOf(name: string): WakePolicy | undefined {
    return this.o.agents?.policyOf(name);
  }

  setPolicy(name: string, policy: WakePolicy): boolean {
    if (this.o.agents?.setPolicy(name, policy) === undefined) return false;
    const row = this.o.rows.get(name);
    if (row) this.o.hooks?.recorded?.(row, policy);
    this.policyEmitter.fire({ row: name, policy });
    return true;
  }

  /** Ends the row's program and starts it again — resuming its conversation when the profile can. */
  restart(name: string): { resumed: boolean } {
    const row = this.o.rows.get(name);
    if (!row) return { resumed: false };
    const resume = this.o.hooks?.prepareRestart?.(row) ?? null;
    // Without a resume, the spec as given (not a first launch's extras, such as a worktree's setup).
    const next = resume ?? this.bases.get(name);
    // The operator's restart is a launch of its own: no longer the restored one. Set before the
    // restart, whose listeners (every client's header) read the origin.
    this.setOrigin(name, { kind: 'new' });
    row.restart(next ? (this.o.hooks?.everyLaunch?.(next) ?? next) : undefined);
    if (resume) this.resumedLaunch.set(name, row.incarnation);
    else this.resumedLaunch.delete(name);
    this.o.hooks?.recorded?.(row, this.policyOf(name));
    return { resumed: resume !== null };
  }

  /** Ends a row and keeps its spec so any client can reopen it while the server runs. */
  close(name: string): boolean {
    const row = this.o.rows.get(name);
    if (!row) return false;
    this.o.agents?.untrack(name);
    this.perRow.delete(name);
    this.attachedBy.delete(name);
    this.rowSizeOwner.delete(name);
    this.origins.delete(name);
    this.resumedLaunch.delete(name);
    this.exitReasons.delete(name);
    const base = this.bases.get(name) ?? row.spec;
    this.bases.delete(name);
    this.o.rows.close(name);
    this.o.hooks?.forgotten?.(name);
    const closed: ClosedRowRecord = { spec: base, command: describeCommand(base), at: Date.now() };
    this.closedRows.unshift(closed);
    this.closedRows.splice(MAX_CLOSED);
    this.removedEmitter.fire({ row, closed });
    return true;
  }

  closed(): readonly ClosedRowRecord[] {
    return this.closedRows;
  }

  /** Starts a closed row again (its spec as it was); null when it is not in the list. */
  reopen(name: string, size: { cols: number; rows: number }): Row | null {
    const i = this.closedRows.findIndex((c) => c.spec.name === name);
    if (i < 0 || this.o.rows.has(name)) return null;
    const [closed] = this.closedRows.splice(i, 1);
    this.reopenedEmitter.fire(name);
    return this.add(closed!.spec, size);
  }

  /** A client attached to (or left) a row: the row is attached while any client is. */
  setAttached(name: string, client: object, on: boolean): void {
    let set = this.attachedBy.get(name);
    if (on) {
      if (!set) this.attachedBy.set(name, (set = new Set()));
      set.add(client);
      this.rowSizeOwner.set(name, client);
    } else if (set) {
      set.delete(client);
      if (set.size === 0) this.attachedBy.delete(name);
      if (this.rowSizeOwner.get(name) === client) {
        const next = set.size > 0 ? [...set][set.size - 1]! : undefined;
        if (next) this.rowSizeOwner.set(name, next);
        else this.rowSizeOwner.delete(name);
      }
    }
    // Whoever sizes the row now (the dashboards' owner, or another attached client) applies it.
    this.sizeOwnerEmitter.fire(this.sizeOwnerValue);
  }

  /** Rows some client is attached to. */
  attachedRows(): ReadonlySet<string> {
    return new Set(this.attachedBy.keys());
  }

  /**
   * Whether `client` decides the size of row `name` now: among the clients attached to it, the one
   * whose keys came last; with none attached, the client that typed last (or the only one there).
   */
  decidesSize(name: string, client: object): boolean {
    if (this.attachedBy.has(name)) return this.rowSizeOwner.get(name) === client;
    return this.sizeOwnerValue === null || this.sizeOwnerValue === client;
  }

  /** The client whose sizes the rows take (the one that typed last). */
  get sizeOwner(): object | null {
    return this.sizeOwnerValue;
  }

  /** `client` typed (attached to `row`, or on its dashboard when null): its sizes count from now. */
  claimSizes(client: object | null, row: string | null = null): void {
    if (client !== null && row !== null && this.attachedBy.get(row)?.has(client) && this.rowSizeOwner.get(row) !== client) {
      this.rowSizeOwner.set(row, client);
      this.sizeOwnerEmitter.fire(this.sizeOwnerValue);
    }
    if (this.sizeOwnerValue === client) return;
    this.sizeOwnerValue = client;
    this.sizeOwnerEmitter.fire(client);
  }

  dispose(): void {
    this.perRow.dispose();
    this.lifetime.dispose();
  }
}

/** A row's command as one line (a shell line, or a program and its arguments). */
export function describeCommand(spec: RowSpec): string {
  const c = spec.command;
  return typeof c === 'string' ? c : 'shell' in c ? c.shell : [c.file, ...(c.args ?? [])].join(' ');
}
