// The hub under test as a separate process (`node dist/bin/swb.js hub --workspace NAME`), with the
// nemesis's levers on it: SIGKILL and restart, SIGSTOP/SIGCONT, a clean SIGTERM stop. Every
// incarnation is kept (pid, how it ended, what it printed) as evidence for the report. An exit the
// nemesis did not cause is recorded and the hub is restarted, so the run goes on and the checker
// can name it.
import { deferCleanup } from '../cleanup.js';
import { spawnSwb, type SwbProcess, type SwbResult } from '../run-swb.js';
import type { TempHome } from '../temp-home.js';
import { waitUntil } from '../wait-until.js';

export interface Incarnation {
  pid: number;
  startedAt: number;
  listeningAt: number | null;
  /** How it ended: a signal the nemesis sent, or null while running / when it ended by itself. */
  endedBy: 'SIGKILL' | 'SIGTERM' | null;
  exit: SwbResult | null;
  proc: SwbProcess;
}

export interface HubProcessOptions {
  home: TempHome;
  workspace: string;
  /** Extra `swb hub` flags (limits). */
  flags?: string[];
  /** ms since the run's start, for the timeline. */
  clock: () => number;
}

export class HubProcess {
  readonly incarnations: Incarnation[] = [];
  /** Exits nobody asked for (a crash), with what the hub printed. */
  readonly unexpectedExits: Array<{ pid: number; at: number; status: number | null; signal: string | null; stderrTail: string }> = [];
  private stopped = false;
  private restarting: Promise<void> | null = null;
  private finished = false;

  constructor(private readonly opts: HubProcessOptions) {}

  get current(): Incarnation | undefined {
    return this.incarnations[this.incarnations.length - 1];
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  get running(): boolean {
    const c = this.current;
    return c !== undefined && !c.proc.hasExited();
  }

  /** Starts an incarnation and waits (a condition, bounded) until it logs that it listens. */
  async start(timeoutMs = 10_000): Promise<Incarnation> {
    const proc = spawnSwb(['hub', '--workspace', this.opts.workspace, ...(this.opts.flags ?? [])], { home: this.opts.home });
    // Runs before run-swb's own cleanup kills this incarnation: that kill is not a crash to restart.
    deferCleanup('jepsen hub: no restarts', () => this.finish());
    const inc: Incarnation = { pid: proc.pid, startedAt: this.opts.clock(), listeningAt: null, endedBy: null, exit: null, proc };
    this.incarnations.push(inc);
    void proc.exited.then((result) => {
      inc.exit = result;
      if (inc.endedBy === null && !this.finished) {
        this.unexpectedExits.push({
          pid: inc.pid,
          at: this.opts.clock(),
          status: result.status,
          signal: result.signal,
          stderrTail: result.stderr.slice(-2000),
        });
        // Keep the run going: a crashed hub is restarted like a killed one (the checker reports it).
        // One that never listened is start()'s failure to report, not a crash to restart in a loop.
        if (this.current === inc && inc.listeningAt !== null) this.restarting = this.start().then(() => undefined, () => undefined);
      }
    });
    await waitUntil(() => /listening on/.test(proc.stderr()) || proc.hasExited(), {
      timeoutMs,
      intervalMs: 5,
      what: `hub pid ${proc.pid} to listen`,
    });
    if (proc.hasExited()) throw new Error(`hub pid ${proc.pid} exited before listening: ${proc.stderr().slice(-1000)}`);
    inc.listeningAt = this.opts.clock();
    return inc;
  }

  /** SIGKILL, then wait until the process is gone (its lock and socket are released by the kernel). */
  async kill(): Promise<void> {
    const inc = this.current;
    if (!inc || inc.proc.hasExited()) return;
    inc.endedBy = 'SIGKILL';
    inc.proc.child.kill('SIGKILL');
    this.stopped = false;
    await inc.proc.exited;
  }

  pause(): void {
    const inc = this.current;
    if (!inc || inc.proc.hasExited()) return;
    inc.proc.child.kill('SIGSTOP');
    this.stopped = true;
  }

  resume(): void {
    const inc = this.current;
    if (!inc || inc.proc.hasExited()) return;
    inc.proc.child.kill('SIGCONT');
    this.stopped = false;
  }

  /** A clean stop: SIGTERM and wait for the exit; returns false (and SIGKILLs) if it does not exit in time. */
  async terminate(timeoutMs = 5000): Promise<{ clean: boolean; result: SwbResult | null }> {
    await this.restarting;
    const inc = this.current;
    if (!inc || inc.proc.hasExited()) return { clean: true, result: inc?.exit ?? null };
    if (this.stopped) this.resume();
    inc.endedBy = 'SIGTERM';
    inc.proc.child.kill('SIGTERM');
    try {
      await waitUntil(() => inc.proc.hasExited(), { timeoutMs, what: `hub pid ${inc.pid} to exit on SIGTERM` });
    } catch {
      inc.proc.child.kill('SIGKILL');
      await inc.proc.exited;
      return { clean: false, result: await inc.proc.exited };
    }
    return { clean: true, result: await inc.proc.exited };
  }

  /** No more automatic restarts (the end of the test). */
  finish(): void {
    this.finished = true;
  }
}
