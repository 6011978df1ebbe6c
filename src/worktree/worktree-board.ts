// The git state every worktree row's header shows — branch, ahead/behind its base branch, dirty —
// kept current without a polling loop: git's own files are watched (the worktree's HEAD and index,
// the repository's branch refs), and a row whose screen changed is looked at once it has been quiet
// for a moment (an agent that edits files prints while it does). Each look is one `git status` and
// one `git rev-list`, debounced; 32 idle rows cost nothing.
import { watch, type FSWatcher } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Row } from '../rows/row.js';
import { systemClock, type Clock } from '../util/clock.js';
import { DisposableMap } from '../util/disposable-map.js';
import { Emitter, type Event } from '../util/event.js';
import { QuietTimer } from '../util/quiet-timer.js';
import { DisposableStore, toDisposable, type Disposable } from '../util/lifecycle.js';
import { TimerSlot } from '../util/timer-slot.js';
import { git } from './git.js';
import { worktreeStatus, type WorktreeInfo, type WorktreeStatus } from './worktree.js';

/** A burst of file events or screen changes becomes one look this long after it ends. */
const SETTLE_MS = 400;
const SCREEN_QUIET_MS = 1500;

interface Watched extends Disposable {
  info: WorktreeInfo;
  status: WorktreeStatus | null;
  /** The row's watchers and timers, released with it. */
  store: DisposableStore;
  /** The next look, debounced. */
  lookSoon: TimerSlot;
  running: boolean;
  again: boolean;
}

export class WorktreeBoard implements Disposable {
  private readonly rows = new DisposableMap<string, Watched>();
  private readonly emitter = new Emitter<{ row: string; status: WorktreeStatus }>();
  private disposed = false;
  /** A row's git state changed. */
  readonly onStatus: Event<{ row: string; status: WorktreeStatus }> = this.emitter.event;

  constructor(
    private readonly log: (line: string) => void = () => {},
    private readonly clock: Clock = systemClock,
  ) {}

  statusOf(name: string): WorktreeStatus | null {
    return this.rows.get(name)?.status ?? null;
  }

  /** Starts following a worktree row (a row without a worktree is ignored). */
  follow(row: Row): void {
    const info = row.spec.worktree;
    if (!info || this.disposed) return;
    const store = new DisposableStore();
    const w: Watched = { info, status: null, store, lookSoon: store.add(new TimerSlot(this.clock)), running: false, again: false, dispose: () => store.dispose() };
    this.rows.set(row.name, w); // releases a watch of the same name before it
    // Looked at once the screen has been still for SCREEN_QUIET_MS, however long it keeps changing.
    const quiet = store.add(new QuietTimer(SCREEN_QUIET_MS, Infinity, () => this.poke(row.name, 0), this.clock));
    store.add(row.onScreenChange(() => quiet.poke()));
    void this.watchGitFiles(row.name, w);
    this.poke(row.name, 0);
  }

  forget(name: string): void {
    this.rows.delete(name);
  }

  /** Something may have changed (a merge, a file event): look again soon. */
  poke(name: string, delayMs = SETTLE_MS): void {
    const w = this.rows.get(name);
    if (!w) return;
    w.lookSoon.set(() => void this.look(name, w), delayMs);
  }

  private async look(name: string, w: Watched): Promise<void> {
    if (w.running) {
      w.again = true;
      return;
    }
    w.running = true;
    try {
      const status = await worktreeStatus(w.info);
      if (this.rows.get(name) !== w) return;
      const before = w.status;
      w.status = status;
      if (!before || before.branch !== status.branch || before.ahead !== status.ahead || before.behind !== status.behind || before.dirty !== status.dirty || before.missing !== status.missing) {
        this.emitter.fire({ row: name, status });
      }
    } catch (err) {
      this.log(`git status of ${name}: ${(err as Error).message}`);
    } finally {
      w.running = false;
      if (w.again) {
        w.again = false;
        this.poke(name);
      }
    }
  }

  /** inotify on the files git rewrites: the worktree's HEAD and index, the repository's refs. */
  private async watchGitFiles(name: string, w: Watched): Promise<void> {
    let gitDir: string;
    let commonDir: string;
    try {
      gitDir = (await git(w.info.path, ['rev-parse', '--absolute-git-dir'])).stdout.trim();
      commonDir = (await git(w.info.path, ['rev-parse', '--path-format=absolute', '--git-common-dir'])).stdout.trim();
    } catch (err) {
      this.log(`worktree of ${name} not watched: ${(err as Error).message}`);
      return;
    }
    if (this.rows.get(name) !== w) return;
    // refs/heads/ and the folders of branch names with a slash (swb/<name>, feature/x): inotify is not recursive.
    const refDirs = [w.info.branch, w.info.base.ref ?? ''].filter((b) => b.includes('/')).map((b) => join(commonDir, 'refs', 'heads', dirname(b)));
    const dirs = [gitDir, commonDir, join(commonDir, 'refs', 'heads'), ...refDirs];
    for (const dir of new Set(dirs)) {
      let watcher: FSWatcher;
      try {
        watcher = watch(dir, { persistent: false }, (_event, file) => {
          // Lock files come and go around every write; the rename onto the real name is what counts.
          if (typeof file === 'string' && file.endsWith('.lock')) return;
          this.poke(name);
        });
      } catch {
        continue; // a ref dir that does not exist yet
      }
      watcher.on('error', () => watcher.close());
      w.store.add(toDisposable(() => watcher.close()));
    }
  }

  dispose(): void {
    this.disposed = true;
    this.rows.dispose();
    this.emitter.dispose();
  }
}
