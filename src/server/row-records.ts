// What the server remembers about its rows so a later server can bring them back (issue #10): the
// spec each row was started with, its wake policy, and its agent's session id — minted by swb
// before the first launch (Claude Code's --session-id) or discovered from a file the agent keeps
// open (Codex's rollout file). The recipe is the profile's `resume` (profile data, not code); its
// arguments go after the row's command, an argv or a shell line alike.
//
// On start, every recorded row is relaunched and marked restored: resumed when its agent's session
// is known, fresh otherwise; a resume the agent refuses (it knows no such session: the row was
// never used) is started again fresh (RowFleet's resumeFailed) — unless the agent's own transcript
// of that session (the recipe's `transcript`) is there and not empty: a conversation that had turns
// is never given up, whatever the agent answered once. A fresh relaunch is a new
// conversation: the unread mail of the one before is parked for the operator's review instead of
// being handed to a context that never saw it.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { resolveProfile } from '../agents/load-profiles.js';
import type { ProfileSet } from '../agents/load-profiles.js';
import type { ResumeRecipe } from '../agents/profile-schema.js';
import { sessionHadTurns } from '../agents/session-transcript.js';
import type { WakePolicy } from '../agents/wake-controller.js';
import type { MailCore } from '../hub/mail-core.js';
import { sessionMembers, readProcStat } from '../rows/process-tree.js';
import type { Row, RowSpec } from '../rows/row.js';
import type { RowRecordStore, ServerRun } from '../store/row-record-store.js';
import { parkedMailNote, type FleetHooks, type RowOrigin } from '../supervisor/row-fleet.js';
import { systemClock, type Clock } from '../util/clock.js';
import { shellQuote } from '../util/shell-quote.js';
import { TimerSlot } from '../util/timer-slot.js';
import { Emitter, type Event } from '../util/event.js';

const WAKE_POLICIES: readonly string[] = ['auto', 'notify', 'off'];
/** How often rows whose agent makes its own session id are looked at until the id is known. */
const DISCOVER_EVERY_MS = 5_000;
const MAX_SCANNED_PIDS = 64;
const MAX_SCANNED_FDS = 512;

export interface RestorableRow {
  spec: RowSpec;
  /** The spec as the operator gave it (without session arguments). */
  base: RowSpec;
  wake?: WakePolicy;
  origin: RowOrigin;
}

interface Known {
  base: RowSpec;
  sessionId: string | null;
  recipe: ResumeRecipe | null;
  wake: WakePolicy | undefined;
  /** The program now running, so a crash's orphans can be found by the next server. */
  pid?: number | null;
  pidStart?: string | null;
}

export class RowRecords {
  private readonly store: RowRecordStore;
  private readonly lastRun: ServerRun | null;
  /** Each row's spec as given (no session arguments), its session id and its recipe. */
  private readonly known = new Map<string, Known>();
  /** Runs only while some running row's agent still has to show its session id (idle costs nothing). */
  private readonly discovery: TimerSlot;
  private readonly idFound = new Emitter<string>();
  /** A row's session id was discovered or moved (its conversation became known, or another): the row's name. */
  readonly onSessionDiscovered: Event<string> = this.idFound.event;
  private rowsOf: () => readonly Row[] = () => [];

  constructor(
    private readonly mail: MailCore,
    private readonly profiles: ProfileSet,
    private readonly log: (line: string) => void,
    clock: Clock = systemClock,
  ) {
    this.discovery = new TimerSlot(clock);
    this.store = mail.rowRecords;
    this.lastRun = this.store.startRun(process.pid, bootId());
  }

  /** How the last server ended: stopped on purpose, crashed (same boot), or the machine rebooted. */
  get lastEnd(): 'stop' | 'crash' | 'reboot' | null {
    const last = this.lastRun;
    if (!last) return null;
    if (last.stoppedAt !== null) return 'stop';
    return last.bootId === bootId() ? 'crash' : 'reboot';
  }

  hooks(): FleetHooks {
    return {
      prepareLaunch: (spec) => this.launchSpec(spec),
      prepareRestart: (row) => this.resumeSpec(row),
      resumeFailed: (row) => this.freshSpec(row),
      recorded: (row, wake) => {
        const k = this.known.get(row.name);
        if (k && row.state === 'running') {
          k.pid = row.pid;
          // Read once, as the row started (row-process.ts); a start time never changes (issue #33:
          // a second read of /proc per row, at once after the fork, on the first frame's path).
          k.pidStart = row.pidStartTime ?? null;
          if (waitsForId(k)) this.armDiscovery();
        }
        this.save(row.name, wake);
      },
      forgotten: (name) => this.forget(name),
    };
  }

  /**
   * Where row `name`'s agent keeps its current conversation (the recipe's transcript template, the
   * session id swb minted or discovered, and the environment the row runs with), or null while the id
   * is not known. Usage tracking reads exactly that file (src/server/row-usage.ts).
   */
  conversationOf(name: string): { template: string; sessionId: string; env: Readonly<Record<string, string | undefined>> } | null {
    const k = this.known.get(name);
    if (!k?.sessionId || !k.recipe?.transcript) return null;
    return { template: k.recipe.transcript, sessionId: k.sessionId, env: { ...process.env, ...k.base.env } };
  }

  /** The fleet's rows, for discovering session ids from their open files. */
  watch(rows: () => readonly Row[]): void {
    this.rowsOf = rows;
  }

  private recipeOf(spec: RowSpec): ResumeRecipe | null {
    if (spec.profile === undefined) return null;
    return resolveProfile(this.profiles, spec.profile).profile.resume ?? null;
  }

  /** A new row: remember its spec; mint its agent's session id when the recipe says swb makes it. */
  private launchSpec(spec: RowSpec): RowSpec {
    const recipe = this.recipeOf(spec);
    const sessionId = recipe?.mint ? randomUUID() : null;
    this.known.set(spec.name, { base: spec, sessionId, recipe, wake: undefined });
    return recipe && sessionId ? withArgs(spec, recipe.launchArgs, sessionId) : spec;
  }

  /** The same row launched to resume its conversation, or null when its session is not known. */
  private resumeSpec(row: Row): RowSpec | null {
    const k = this.known.get(row.name);
    if (!k?.recipe) return null;
    if (!k.sessionId && k.recipe.openFile) this.discover(row, k);
    return k.sessionId ? withArgs(k.base, k.recipe.resumeArgs, k.sessionId) : null;
  }

  /**
   * The row's resume failed (its agent knew no such session): the spec that starts a new
   * conversation, with a new session id when swb mints them. The old conversation's unread mail is
   * parked for the operator, as for any fresh relaunch.
   */
  private freshSpec(row: Row): { spec: RowSpec; parked: number } | { keep: string } | null {
    const k = this.known.get(row.name);
    if (!k?.recipe) return null;
    if (k.sessionId && k.recipe.transcript && sessionHadTurns(k.recipe.transcript, k.sessionId, { ...process.env, ...k.base.env }, k.recipe.turnMarker)) {
      this.log(`row ${row.name}: its agent did not resume session ${k.sessionId}, which had turns (its transcript shows one); the session is kept`);
      return { keep: 'its conversation had turns' };
    }
    this.log(`row ${row.name}: its agent did not resume session ${k.sessionId ?? '(unknown)'}; starting a new conversation`);
    k.sessionId = k.recipe.mint ? randomUUID() : null;
    const spec = k.sessionId ? withArgs(k.base, k.recipe.launchArgs, k.sessionId) : k.base;
    return { spec, parked: this.park(row.name) };
  }

  private save(name: string, wake: WakePolicy | undefined): void {
    const k = this.known.get(name);
    if (!k) return;
    if (wake !== undefined) k.wake = wake;
    this.write(() => this.store.save(recordOf(name, k)), `row ${name} not recorded`);
  }

  private forget(name: string): void {
    this.known.delete(name);
    this.write(() => this.store.forget(name), `row ${name} not forgotten`);
  }

  private write(step: () => void, context: string): void {
    // The record only matters at the next start: a locked or full store costs a log line, not a row.
    this.mail.gate.run(step).catch((err: unknown) => this.log(`${context}: ${this.mail.failureOf(err, context).message}`));
  }

  /**
   * The recorded rows to relaunch, each with its origin; parks the unread mail of rows that come
   * back fresh. With `fresh`, the records are dropped and nothing comes back.
   */
  restorable(fresh: boolean): RestorableRow[] {
    let records: ReturnType<RowRecordStore['all']>;
    try {
      if (fresh) {
        this.store.clear();
        return [];
      }
      records = this.store.all();
    } catch (err) {
      this.log(`the row records could not be read: ${this.mail.failureOf(err, 'row records').message}`);
      return [];
    }
    const after = this.lastEnd ?? 'stop';
    const out: RestorableRow[] = [];
    for (const r of records) {
      // After a crash the old program may live on without its pty (it ignored the hang-up): end it,
      // or the agent would run twice — once unseen.
      if (after !== 'stop') this.endOrphan(r.name, r.pid, r.pidStart);
      let base: RowSpec;
      try {
        base = JSON.parse(r.spec) as RowSpec;
      } catch {
        this.log(`row record ${r.name} is not readable; skipped`);
        continue;
      }
      if (base.name !== r.name) continue;
      const wake = r.wake !== null && WAKE_POLICIES.includes(r.wake) ? (r.wake as WakePolicy) : undefined;
      const recipe = this.recipeOf(base);
      let spec: RowSpec;
      let resumed = false;
      let sessionId: string | null = null;
      let why: string;
      if (recipe && r.sessionId) {
        sessionId = r.sessionId;
        spec = withArgs(base, recipe.resumeArgs, sessionId);
        resumed = true;
        why = 'resuming its conversation';
      } else {
        // A new conversation (with a new session id when swb mints them).
        sessionId = recipe?.mint ? randomUUID() : null;
        spec = recipe && sessionId ? withArgs(base, recipe.launchArgs, sessionId) : base;
        why = recipe ? 'its agent session was never known, so it starts a new conversation' : 'it has no resume recipe, so it starts fresh';
      }
      this.known.set(r.name, { base, sessionId, recipe, wake });
      let note = `@${r.name} restored after ${after === 'stop' ? 'the server stopped' : after === 'crash' ? 'the server crashed' : 'a reboot'}: ${why}`;
      if (!resumed) {
        const parked = this.park(r.name);
        if (parked > 0) note += `; ${parkedMailNote(parked)}`;
      }
      // Recorded again (with its new session id and pid) by the fleet's hook when it starts.
      out.push({ spec, base, ...(wake ? { wake } : {}), origin: { kind: 'restored', after, resumed, note, noteAt: Date.now() } });
    }
    return out;
  }

  private endOrphan(name: string, pid: number | null, start: string | null): void {
    if (pid === null || start === null) return;
    const stat = readProcStat(pid);
    if (!stat || stat.startTime !== start) return;
    for (const member of sessionMembers(stat.session)) {
      try {
        process.kill(member, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    this.log(`row ${name}: ended the previous server's orphaned program (pid ${pid}, session ${stat.session})`);
  }

  private park(name: string): number {
    try {
      return this.mail.parkUnread(name);
    } catch (err) {
      this.log(`unread mail of ${name} not parked: ${this.mail.failureOf(err, 'park').message}`);
      return 0;
    }
  }

  private armDiscovery(): void {
    this.discovery.setIfIdle(this.discoverOnSchedule, DISCOVER_EVERY_MS);
  }

  /** Every DISCOVER_EVERY_MS while armed (discoverAll disarms it when nobody is left to look for). */
  private readonly discoverOnSchedule = (): void => {
    this.discovery.set(this.discoverOnSchedule, DISCOVER_EVERY_MS);
    this.discoverAll();
  };

  private discoverAll(): void {
    let waiting = false;
    for (const row of this.rowsOf()) {
      const k = this.known.get(row.name);
      if (k && waitsForId(k) && row.state === 'running') {
        this.discover(row, k);
        if (k.sessionId) this.save(row.name, undefined);
        else waiting = true;
      }
    }
    // Nobody left to look for: the next launch of such a row (the fleet's `recorded`) arms it again.
    if (!waiting) this.discovery.clear();
  }

  /** Finds the agent's session id among the files the row's processes hold open. */
  private discover(row: Row, k: { sessionId: string | null; recipe: ResumeRecipe | null }): void {
    const pattern = k.recipe?.openFile;
    if (!pattern) return;
    const stat = readProcStat(row.pid);
    const pids = stat ? sessionMembers(stat.session).slice(0, MAX_SCANNED_PIDS) : [row.pid];
    for (const pid of pids) {
      let fds: string[];
      try {
        fds = readdirSync(`/proc/${pid}/fd`).slice(0, MAX_SCANNED_FDS);
      } catch {
        continue;
      }
      for (const fd of fds) {
        let target: string;
        try {
          target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          continue;
        }
        const id = pattern.exec(target)?.groups?.id;
        if (id && /^[A-Za-z0-9._:-]{1,128}$/.test(id)) {
          k.sessionId = id;
          this.log(`row ${row.name}: agent session ${id} (from ${target})`);
          this.idFound.fire(row.name);
          return;
        }
      }
    }
  }

  /**
   * The row's agent says, from its own SessionStart hook, that it is in another conversation now:
   * Claude Code starts a new one at `/clear` and switches at `/resume`, each under its own session
   * id. The id swb minted would otherwise stay recorded, so a relaunch would resume the conversation
   * the operator cleared, and usage would follow a file nobody writes any more. Only for a recipe
   * whose ids swb mints (it knows they are the agent's session ids), and only for those two starts
   * (a launch's own SessionStart names the id swb gave it). The hook speaks as the row, for itself.
   */
  agentSessionStarted(name: string, report: { source?: string; sessionId?: string }): void {
    const k = this.known.get(name);
    const id = report.sessionId;
    if (!id || !k?.recipe?.mint || k.sessionId === id || (report.source !== 'clear' && report.source !== 'resume')) return;
    this.log(`row ${name}: agent session ${id} (its SessionStart(${report.source}) hook: the conversation moved from ${k.sessionId ?? '(none)'})`);
    k.sessionId = id;
    this.save(name, undefined);
    this.idFound.fire(name);
  }

  /** The server stops on purpose: the next start says "after the server stopped". */
  serverStopping(): void {
    this.discovery.clear();
    this.discoverAll();
    try {
      this.mail.writeNow(() => {
        for (const [name, k] of this.known) this.store.save(recordOf(name, k));
        this.store.stopRun(process.pid);
      });
    } catch (err) {
      this.log(`the row records could not be saved: ${this.mail.failureOf(err, 'row records').message}`);
    }
  }
}

/** The agent makes its own session id, and it has not been found yet. */
function waitsForId(k: Known): boolean {
  return !!k.recipe?.openFile && !k.sessionId;
}

function recordOf(name: string, k: Known) {
  return { name, spec: JSON.stringify(k.base), wake: k.wake ?? null, sessionId: k.sessionId, pid: k.pid ?? null, pidStart: k.pidStart ?? null };
}

/**
 * The spec with the recipe's arguments appended to its program's, `{id}` replaced. A shell line
 * (`claude --model opus` from a config) gets them appended, quoted: they reach its last command.
 */
function withArgs(spec: RowSpec, args: readonly string[], id: string): RowSpec {
  const extra = args.map((a) => a.replaceAll('{id}', id));
  const c = spec.command;
  if (typeof c === 'string') return { ...spec, command: `${c} ${extra.map(shellQuote).join(' ')}` };
  if ('shell' in c) return { ...spec, command: { shell: `${c.shell} ${extra.map(shellQuote).join(' ')}` } };
  return { ...spec, command: { ...c, args: [...(c.args ?? []), ...extra] } };
}


function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return 'unknown';
  }
}
