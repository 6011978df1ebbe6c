// The workspace server's memory of its rows (migration 4): each row's spec as the operator gave it,
// its wake policy and its agent's session id, so a server started again — after kill-server, a
// crash or a reboot — relaunches the same rows, each agent resuming its own conversation. And the
// server's runs, so the next start can tell how the last one ended. And the rows the operator muted
// (issue #37: the dashboard's per-row mute of notifications), as `mute:<row>` keys of the meta table,
// so a mute outlives a restart and goes when the row's record does.
import { preparedOnFirstUse, sql } from './prepared-on-first-use.js';
import type { SqliteDatabase } from './open-database.js';

export interface RowRecord {
  name: string;
  /** The RowSpec as JSON, without any resume or session arguments. */
  spec: string;
  wake: string | null;
  sessionId: string | null;
  position: number;
  /** The row's program when last recorded, with its kernel start time (to tell it from a reused pid). */
  pid: number | null;
  pidStart: string | null;
}

export interface ServerRun {
  pid: number;
  bootId: string;
  startedAt: number;
  stoppedAt: number | null;
}

export class RowRecordStore {
  private readonly q;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly now: () => number = Date.now,
  ) {
    const s = sql;
    this.q = preparedOnFirstUse(db, {
      upsert: s(`INSERT INTO row_records (name, spec, wake, session_id, position, updated_at, pid, pid_start)
                 VALUES (@name, @spec, @wake, @sessionId, @position, @at, @pid, @pidStart)
                 ON CONFLICT(name) DO UPDATE SET spec = excluded.spec, wake = excluded.wake, session_id = excluded.session_id,
                   updated_at = excluded.updated_at, pid = excluded.pid, pid_start = excluded.pid_start`),
      remove: s(`DELETE FROM row_records WHERE name = ?`),
      all: s<{ name: string; spec: string; wake: string | null; session_id: string | null; position: number; pid: number | null; pid_start: string | null }>(`SELECT name, spec, wake, session_id, position, pid, pid_start FROM row_records ORDER BY position, name`),
      clear: s(`DELETE FROM row_records`),
      nextPosition: s<{ p: number }>(`SELECT coalesce(max(position), 0) + 1 AS p FROM row_records`),
      positionOf: s<{ position: number }>(`SELECT position FROM row_records WHERE name = ?`),
      lastRun: s<{ id: number; pid: number; boot_id: string; started_at: number; stopped_at: number | null }>(`SELECT id, pid, boot_id, started_at, stopped_at FROM server_runs ORDER BY id DESC LIMIT 1`),
      startRun: s(`INSERT INTO server_runs (pid, boot_id, started_at) VALUES (?, ?, ?)`),
      stopRun: s(`UPDATE server_runs SET stopped_at = ? WHERE id = (SELECT max(id) FROM server_runs) AND pid = ?`),
      muted: s<{ key: string }>(`SELECT key FROM meta WHERE key >= 'mute:' AND key < 'mute;' ORDER BY key`),
      mute: s(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`),
      unmute: s(`DELETE FROM meta WHERE key = ?`),
    });
  }

  /** Records a row (a new one goes last). */
  save(r: Omit<RowRecord, 'position' | 'pid' | 'pidStart'> & { pid?: number | null; pidStart?: string | null }): void {
    const position = this.q.positionOf.get(r.name)?.position ?? this.q.nextPosition.get()!.p;
    this.q.upsert.run({ ...r, pid: r.pid ?? null, pidStart: r.pidStart ?? null, position, at: this.now() });
  }

  forget(name: string): void {
    this.db.transaction(() => {
      this.q.remove.run(name);
      this.q.unmute.run(`mute:${name}`);
    })();
  }

  /** The rows whose notifications the operator muted. */
  mutedRows(): string[] {
    return this.q.muted.all().map((r) => r.key.slice('mute:'.length));
  }

  setMuted(name: string, muted: boolean): void {
    if (muted) this.q.mute.run(`mute:${name}`, String(this.now()));
    else this.q.unmute.run(`mute:${name}`);
  }

  all(): RowRecord[] {
    return this.q.all.all().map((r) => ({ name: r.name, spec: r.spec, wake: r.wake, sessionId: r.session_id, position: r.position, pid: r.pid, pidStart: r.pid_start }));
  }

  clear(): void {
    this.q.clear.run();
  }

  /** Starts this server's run; returns the one before it (null on the very first start). */
  startRun(pid: number, bootId: string): ServerRun | null {
    return this.db.transaction(() => {
      const last = this.q.lastRun.get();
      this.q.startRun.run(pid, bootId, this.now());
      return last ? { pid: last.pid, bootId: last.boot_id, startedAt: last.started_at, stoppedAt: last.stopped_at } : null;
    })();
  }

  stopRun(pid: number): void {
    this.q.stopRun.run(this.now(), pid);
  }
}
