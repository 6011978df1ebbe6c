// Waiting for a conversation file that does not exist yet (issue #38: watch, don't poll in a loop). An
// agent writes its transcript with its first turn, often into folders that appear with it (Claude Code's
// `projects/<slug of cwd>`, Gemini CLI's `tmp/<project>/chats`), and a folder cannot be watched before it
// exists. So one watch sits on the deepest folder of the transcript's path that exists, never above the
// agent's config folder (the one holding the path's literal part, e.g. `~/.claude`) — or, while that
// folder is missing (a fresh HOME), on its parent, for that one name — and moves one level deeper each
// time the next folder of the path appears, a bounded number of times. A folder that appeared is new, so
// what is already in it (made before the watch moved there) is entered too. An event that names the
// file itself (or a folder on its way) tells the owner to look.
// A `*` level already holding folders at the start is not guessed at: the watch stays on its parent for a
// new one, and a file appearing in an existing folder is found by the owner's look when the row goes quiet.
import { type FSWatcher, readdirSync, statSync, watch } from 'node:fs';
import { join } from 'node:path';
import type { Disposable } from '../util/lifecycle.js';

/** At most this many moves one level deeper (a transcript path is a handful of folders deep). */
const MAX_DESCENTS = 8;

export class TranscriptSeeker implements Disposable {
  private readonly segments: string[];
  /** Index of the path segment the watched folder's entries are matched against. */
  private level = 0;
  private dir = '';
  private descents = 0;
  private watcher: FSWatcher | null = null;
  /** The folder the watch is on (null: none yet); once set, later folders entered are new. */
  private watchedDir: string | null = null;
  private disposed = false;

  /**
   * @param path the expanded transcript path (absolute; `*` matches within one segment)
   * @param onSeen called when the awaited file (or a folder on its way) may have appeared
   */
  constructor(path: string, private readonly onSeen: () => void) {
    this.segments = path.split('/').filter((s) => s !== '' && s !== '.');
    const firstWild = this.segments.findIndex((s) => s.includes('*'));
    const literalEnd = firstWild === -1 ? this.segments.length - 1 : firstWild;
    // The config folder's parent: the config folder is the parent of the deepest literal folder
    // (`~/.claude` for `~/.claude/projects/*/…`); entered at once when it exists (arm).
    this.level = Math.max(0, literalEnd - 2);
    this.dir = `/${this.segments.slice(0, this.level).join('/')}`;
    this.settle(false);
  }

  /** Whether a folder of the path is watched (false: the config folder is not there, or the bound was reached). */
  get watching(): boolean {
    return this.watcher !== null;
  }

  /** The folder watched now (tests). */
  get watchedFolder(): string | null {
    return this.watcher ? this.watchedDir : null;
  }

  /**
   * Watches again from where it stands (the owner's look found nothing: a folder may have appeared
   * unseen, its watch event not read yet). Folders entered here appeared after the watch began, so
   * they are new and what they hold is entered too; at the start nothing existing is guessed at.
   */
  arm(): void {
    this.settle(false);
  }

  /**
   * Enters the path's literal folders that exist and puts the one watch where the seeker then stands
   * (a watch left on a folder above would match the wrong segment and see nothing of the file).
   * `fresh`: the folder stood in appeared after watching began, so a `*` level's only folder is ours
   * (so is every folder entered here once a watch was on: they were missing when it was placed).
   */
  private settle(fresh: boolean): void {
    if (this.disposed) return;
    const from = this.dir;
    while (this.level < this.segments.length - 1 && !this.segments[this.level]!.includes('*') && isDir(join(this.dir, this.segments[this.level]!))) {
      this.dir = join(this.dir, this.segments[this.level]!);
      this.level++;
    }
    const isNew = fresh || (this.watchedDir !== null && this.dir !== from);
    if (this.dir !== from) this.unwatch();
    if (this.watcher || !isDir(this.dir)) return;
    try {
      this.watcher = watch(this.dir, { persistent: false }, (_event, name) => this.seen(name === null ? null : String(name)));
      this.watcher.on('error', () => this.unwatch());
      this.watchedDir = this.dir;
    } catch {
      this.watcher = null;
      return;
    }
    const next = this.segments[this.level]!;
    if (this.level >= this.segments.length - 1) return;
    if (!next.includes('*')) {
      // Looked, then watched: the next folder made in between (mkdir -p runs on while we arm) told no
      // watch of itself. Looked again now that the watch is on, so it cannot be missed.
      if (isDir(join(this.dir, next))) this.seen(next);
    } else if (isNew) {
      // Made before the watch moved here (mkdir -p): the new folder's matching sub-folder, if one.
      const inside = entries(this.dir).filter((e) => matches(next, e) && isDir(join(this.dir, e)));
      if (inside.length === 1) this.descend(inside[0]!);
    }
  }

  private seen(name: string | null): void {
    if (this.disposed) return;
    const segment = this.segments[this.level]!;
    if (name !== null && !matches(segment, name)) return;
    if (name !== null) this.descend(name);
    this.onSeen();
  }

  /** Into `name` when it is the path's next folder; then into what the new folder already holds. */
  private descend(name: string): void {
    if (this.level >= this.segments.length - 1 || !isDir(join(this.dir, name))) return;
    if (this.descents >= MAX_DESCENTS) return this.unwatch();
    this.descents++;
    this.unwatch();
    this.dir = join(this.dir, name);
    this.level++;
    this.settle(true);
  }

  private unwatch(): void {
    this.watcher?.close();
    this.watcher = null;
  }

  dispose(): void {
    this.disposed = true;
    this.unwatch();
  }
}

function matches(segment: string, name: string): boolean {
  if (!segment.includes('*')) return segment === name;
  return new RegExp(`^${segment.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`).test(name);
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir).slice(0, 64);
  } catch {
    return [];
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
